/**
 * The TypeScript SDK against answers no conforming server sends (the Python SDK's tests/sdk/test_hostile_bodies.py
 * and test_hostile_servers.py, in node:test): a 2xx body it cannot read, JSON built to pollute prototypes, stacked
 * or unknown content codings, endless or 100,000 headers, a server that never finishes or floods 1xx answers,
 * redirects to other origins, token answers that are no token. Every call ends with a typed error, within its
 * bounds; credentials never leave the base URL's origin.
 */

import assert from "node:assert/strict";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import zlib from "node:zlib";

import {
  AccessGov,
  ApiError,
  ConnectionError,
  DeadlineExceededError,
  InvalidResponseError,
  MAX_JSON_DEPTH,
  PagingLoopError,
} from "@accessgov/client";

import { json, TestServer } from "./support.js";

const PAGE = { list: [{ appEntitlement: { id: "e1", appId: "a" } }], nextPageToken: "" };

let server: TestServer;
before(async () => {
  server = await TestServer.start((_request, response) => json(response, 404, { code: "NOT_FOUND", message: "no route" }));
});
after(() => server.close());

function client(options: Partial<ConstructorParameters<typeof AccessGov>[0]> = {}): AccessGov {
  return new AccessGov({ baseUrl: server.url, retry: false, ...(options.credentials ? {} : { token: "t0ken" }), ...options });
}

function answer(body: Buffer | string, contentType: string, status = 200, headers: Record<string, string> = {}): void {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  server.handle((_request, response) => {
    response.writeHead(status, { ...(contentType ? { "content-type": contentType } : {}), "content-length": bytes.length, ...headers });
    response.end(bytes);
  });
}

/** A raw TCP server: `act` gets each connection once its request head has arrived. */
async function raw(act: (socket: net.Socket) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
    let head = "";
    const onData = (chunk: Buffer): void => {
      head += chunk.toString("latin1");
      if (head.includes("\r\n\r\n")) {
        socket.off("data", onData);
        act(socket);
      }
    };
    socket.on("data", onData);
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

/** Writes `chunk` again whenever the socket drains, until it closes (a flood that never ends). */
function flood(socket: net.Socket, chunk: Buffer): void {
  const write = (): void => {
    while (!socket.destroyed && socket.write(chunk)) {
      // fill the buffer
    }
  };
  socket.on("drain", write);
  write();
}

const deep = `{"list": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
// name -> [body, content type, the message]
const UNREADABLE: Record<string, [Buffer | string, string, RegExp]> = {
  html: ["<!doctype html><h1>Welcome</h1>", "text/html; charset=utf-8", /"text\/html; charset=utf-8", not the JSON/],
  "json labelled html": [JSON.stringify(PAGE), "text/html", /"text\/html", not the JSON/],
  empty: ["", "application/json", /the body is empty/],
  whitespace: [" \r\n", "application/json", /the body is empty/],
  truncated: ['{"list": [{"appEntitlement": {"id"', "application/json", /not valid JSON/],
  "invalid UTF-8": [Buffer.from('{"list": [], "nextPageToken": "\xff\xfe"}', "latin1"), "application/json", /not UTF-8/],
  "UTF-16": [Buffer.from(`\ufeff${JSON.stringify(PAGE)}`, "utf16le"), "application/json", /not UTF-8/],
  "top-level array": ["[1, 2, 3]", "application/json", /the body is an array, where the operation returns a JSON object/],
  string: ['"hello"', "application/json", /the body is a string/],
  null: ["null", "application/json", /the body is null/],
  number: ["12", "application/json", /the body is a number/],
  NaN: ['{"list": [], "nextPageToken": "", "x": NaN}', "application/json", /not valid JSON/],
  "nested 100,000 deep": [deep, "application/json", new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`)],
};

describe("a 2xx body the SDK cannot read is an InvalidResponseError", () => {
  for (const [name, [body, contentType, message]] of Object.entries(UNREADABLE)) {
    test(name, async () => {
      answer(body, contentType);
      const api = client();
      const before = server.requests.length;
      await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => {
        assert.ok(error instanceof InvalidResponseError, String(error));
        assert.match(error.message, message);
        assert.match(error.message, /^list_app_entitlements: HTTP 200: /);
        assert.ok(error.message.length < 600, "the body is quoted, not pasted whole");
        return true;
      });
      await assert.rejects(
        (async () => {
          for await (const _ of api.paginate("list_app_entitlements", { path: { app_id: "a" } })) {
            // consume
          }
        })(),
        InvalidResponseError,
      );
      assert.equal(server.requests.length - before, 2, "never retried");
      api.close();
    });
  }

  test("JSON types with parameters, +json types, a byte order mark and no Content-Type are read", async () => {
    const api = client();
    for (const contentType of ["application/json; charset=utf-8", "application/problem+json", "APPLICATION/JSON", ""]) {
      answer(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(PAGE))]), contentType);
      const result = await api.listAppEntitlements({ path: { app_id: "a" } });
      assert.equal(result.list?.[0]?.appEntitlement?.id, "e1", contentType);
    }
    api.close();
  });

  test("page items that are not objects, and a page token that is not a string", async () => {
    const api = client();
    answer('{"list": [1, null], "nextPageToken": ""}', "application/json");
    await assert.rejects(
      (async () => {
        for await (const _ of api.paginate("list_app_entitlements", { path: { app_id: "a" } })) {
          // consume
        }
      })(),
      /must be an array of objects/,
    );
    answer('{"list": [], "nextPageToken": 5}', "application/json");
    await assert.rejects(
      (async () => {
        for await (const _ of api.paginate("list_app_entitlements", { path: { app_id: "a" } })) {
          // consume
        }
      })(),
      (error: unknown) => error instanceof InvalidResponseError && /must be a string/.test(error.message),
    );
    api.close();
  });
});

describe("JSON keys that name prototypes never pollute one", () => {
  const hostileKeys = '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": {"polluted": "yes"}';

  test("in a result, a page item and an error body", async () => {
    const api = client();
    answer(`${hostileKeys}, "list": [${hostileKeys}, "appEntitlement": {"id": "e1"}}], "nextPageToken": ""}`, "application/json");
    const result = (await api.listAppEntitlements({ path: { app_id: "a" } })) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(result, "__proto__")?.value, { polluted: "yes" });
    assert.equal(typeof result.constructor, "object", "an own member, kept as data");
    const items = [];
    for await (const item of api.paginate("list_app_entitlements", { path: { app_id: "a" } })) items.push(item);
    assert.equal(items[0]?.appEntitlement?.id, "e1");
    assert.equal(Object.getPrototypeOf(items[0]), Object.prototype);
    answer(`${hostileKeys}, "code": "INVALID_ARGUMENT", "message": "m", "details": [${hostileKeys}}]}`, "application/json", 400);
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => {
      assert.ok(error instanceof ApiError && error.error !== undefined);
      assert.equal(Object.getPrototypeOf(error.error), Object.prototype);
      assert.equal(error.code, "INVALID_ARGUMENT");
      return true;
    });
    const probe: Record<string, unknown> = {};
    assert.equal(probe.polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    assert.equal((Function.prototype as unknown as Record<string, unknown>).polluted, undefined);
    api.close();
  });

  test("in a token answer", async () => {
    server.handle((request, response) => {
      if (request.url === "/auth/v1/token") {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(`${hostileKeys}, "access_token": "tok", "token_type": "Bearer", "expires_in": 3600}`);
        return;
      }
      json(response, 200, PAGE);
    });
    const api = client({ credentials: { clientId: "c", clientSecret: "s" } });
    await api.listAppEntitlements({ path: { app_id: "a" } });
    assert.equal(server.requests.at(-1)?.headers.authorization, "Bearer tok");
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    api.close();
  });
});

describe("content codings", () => {
  const page = Buffer.from(JSON.stringify(PAGE));

  test("two stacked codings are decoded, in the order they were applied", async () => {
    const api = client();
    answer(zlib.brotliCompressSync(zlib.gzipSync(page)), "application/json", 200, { "content-encoding": "gzip, br" });
    assert.equal((await api.listAppEntitlements({ path: { app_id: "a" } })).list?.[0]?.appEntitlement?.id, "e1");
    answer(zlib.deflateSync(zlib.deflateSync(page)), "application/json", 200, { "content-encoding": "deflate, deflate" });
    assert.equal((await api.listAppEntitlements({ path: { app_id: "a" } })).list?.[0]?.appEntitlement?.id, "e1");
    api.close();
  });

  test("three stacked, twenty stacked, or one the SDK did not ask for are refused at once", async () => {
    const api = client({ timeoutMs: 20_000 });
    let body = page;
    for (let i = 0; i < 20; i++) body = zlib.deflateSync(body);
    for (const layers of [3, 20]) {
      let layered = page;
      for (let i = 0; i < layers; i++) layered = zlib.deflateSync(layered);
      answer(layered, "application/json", 200, { "content-encoding": Array(layers).fill("deflate").join(", ") });
      await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => {
        return error instanceof InvalidResponseError && new RegExp(`${layers} content codings`).test(error.message);
      });
    }
    answer(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), "application/json", 200, { "content-encoding": "zstd" });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), /Content-Encoding "zstd", which the SDK did not accept/);
    answer(Buffer.from("\x1f\x8b not gzip"), "application/json", 200, { "content-encoding": "gzip" });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), /the gzip body cannot be decoded/);
    api.close();
  });
});

describe("heads, connections and redirects", () => {
  const cases: Record<string, [(socket: net.Socket) => void, (error: unknown) => boolean]> = {
    "endless headers": [
      (socket) => {
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n");
        flood(socket, Buffer.from(`X-A: ${"a".repeat(100)}\r\n`));
      },
      (error) => error instanceof ConnectionError && /HPE_HEADER_OVERFLOW/.test(error.message),
    ],
    "100,000 headers": [
      (socket) => {
        const lines = Array.from({ length: 100_000 }, (_, i) => `X-${i}: v\r\n`).join("");
        socket.end(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n${lines}\r\n{}`);
      },
      (error) => error instanceof ConnectionError && /HPE_HEADER_OVERFLOW/.test(error.message),
    ],
    "a 10 MB header": [
      (socket) => socket.end(`HTTP/1.1 200 OK\r\nX-Long: ${"a".repeat(10 * 1024 * 1024)}\r\nContent-Length: 2\r\n\r\n{}`),
      (error) => error instanceof ConnectionError,
    ],
    "a head and then nothing, never closed": [
      (socket) => socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"),
      (error) => error instanceof DeadlineExceededError && error.phase === "total",
    ],
    "1xx answers without end": [
      (socket) => flood(socket, Buffer.from("HTTP/1.1 102 Processing\r\n\r\n")),
      (error) => error instanceof DeadlineExceededError,
    ],
    "another protocol": [(socket) => socket.end("SSH-2.0-OpenSSH_9.6\r\n"), (error) => error instanceof ConnectionError],
    "Content-Length and Transfer-Encoding both": [
      (socket) => socket.end("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
      (error) => error instanceof ConnectionError,
    ],
    "a cut body": [
      (socket) => socket.end("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"list\""),
      (error) => error instanceof ConnectionError,
    ],
  };
  for (const [name, [act, expected]] of Object.entries(cases)) {
    test(name, async () => {
      const hostile = await raw(act);
      const api = new AccessGov({ baseUrl: hostile.url, token: "t", retry: false, timeoutMs: 1000 });
      const started = Date.now();
      await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => expected(error) || assert.fail(String(error)));
      assert.ok(Date.now() - started < 20_000);
      api.close();
      await hostile.close();
    });
  }

  test("no redirect to another origin is followed, the token request's neither", async () => {
    const other = await TestServer.start((_request, response) => json(response, 200, PAGE));
    for (const status of [301, 302, 303, 307, 308]) {
      server.handle((_request, response) => {
        response.writeHead(status, { location: `${other.url}/auth/v1/token` });
        response.end();
      });
      const api = client();
      await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof ApiError && error.status === status);
      const oauth = client({ credentials: { clientId: "c", clientSecret: "the-secret" } });
      await assert.rejects(oauth.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof ApiError && error.status === status);
      api.close();
      oauth.close();
    }
    assert.equal(other.requests.length, 0, "neither the token nor the client secret went elsewhere");
    await other.close();
  });

  test("a token answer that is no usable token is an InvalidResponseError", async () => {
    const answers = [
      "<html></html>",
      "[]",
      "{}",
      '{"access_token": 5}',
      '{"access_token": ""}',
      '{"access_token": "a\\r\\nX-Injected: 1"}',
      '{"access_token": "abc", "token_type": "mac"}',
    ];
    for (const text of answers) {
      server.handle((_request, response) => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(text);
      });
      const api = client({ credentials: { clientId: "c", clientSecret: "s" } });
      await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof InvalidResponseError || assert.fail(`${text}: ${error}`));
      api.close();
    }
  });

  test("a cycling token is still a loop, a fresh one every page stops at maxPages", async () => {
    let served = 0;
    server.handle((_request, response) => json(response, 200, { list: [], nextPageToken: `t${(served += 1) % 2}` }));
    const api = client({ maxPages: 5 });
    await assert.rejects(
      (async () => {
        for await (const _ of api.paginate("list_app_entitlements", { path: { app_id: "a" } })) {
          // consume
        }
      })(),
      PagingLoopError,
    );
    api.close();
  });
});

describe("error messages", () => {
  test("server text cannot add lines or escapes to a message", async () => {
    answer(JSON.stringify({ code: "X\n\u001b[31mFAKE", message: "ok\r\nINFO all good \u202e" }), "application/json", 400);
    const api = client();
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      for (const text of [error.message, String(error)]) assert.doesNotMatch(text, /[\n\r\u001b\u202e]/);
      assert.equal(error.code, "X\n\u001b[31mFAKE", "the attribute keeps the text as sent");
      return true;
    });
    answer("<html>\r\n\u001b[0m", "text/html");
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof InvalidResponseError && !/[\r\n\u001b]/.test(error.message));
    api.close();
  });
});
