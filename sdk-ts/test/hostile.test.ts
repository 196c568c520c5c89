/**
 * Against servers that send what the contract allows but the SDK has never seen (unknown enum values, extra
 * members), and against broken or hostile ones (a drip, a compression bomb, endless or repeated page tokens,
 * redirects elsewhere, overloads): the SDK keeps the values, stays within its bounds, retries where it may and only
 * there, and throws a typed error otherwise.
 */

import assert from "node:assert/strict";
import type http from "node:http";
import { performance } from "node:perf_hooks";
import { after, before, describe, test } from "node:test";
import zlib from "node:zlib";

import {
  AccessGov,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  DeadlineExceededError,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
  InvalidResponseError,
  PageLimitError,
  PagingLoopError,
  RateLimitError,
  ResponseTooLargeError,
  ServerError,
  WebhookSender,
  type Schemas,
} from "@accessgov/client";

import { json, recordingSleep, TestServer } from "./support.js";

const ENTITLEMENTS = /^\/api\/v1\/apps\/[^/]+\/entitlements/;
const RESTART = /^\/api\/v1\/tasks\/[^/]+\/action\/restart$/;

function entitlement(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { appEntitlement: { id: `ent-${n}`, appId: "app", displayName: `E${n}`, ...extra } };
}

function task(overrides: Record<string, unknown>): Record<string, unknown> {
  return { taskView: { task: { id: "t1", numericId: "9223372036854775807", ...overrides } }, ticketActionId: "a1", expanded: [] };
}

let server: TestServer;
before(async () => {
  server = await TestServer.start((_request, response) => json(response, 404, { code: "NOT_FOUND", message: "no route" }));
});
after(() => server.close());

function client(options: Partial<ConstructorParameters<typeof AccessGov>[0]> = {}): AccessGov {
  return new AccessGov({ baseUrl: server.url, ...(options.credentials ? {} : { token: "t0ken" }), ...options });
}

describe("values the contract allows that the SDK has never seen", () => {
  test("unknown enum values and extra members are kept as sent", async () => {
    server.handle((_request, response) =>
      json(
        response,
        200,
        task({
          state: "TASK_STATE_SOMETHING_NEW",
          processing: "TASK_PROCESSING_TYPE_FROM_THE_FUTURE",
          newTopLevelMember: { nested: [1, 2, 3] },
          type: { grant: { outcome: "GRANT_OUTCOME_NOT_YET_INVENTED", newMember: true } },
        }),
      ),
    );
    const api = client();
    const result = await api.restartTask({ path: { task_id: "t1" }, body: {} });
    const state: Schemas["TaskState"] | undefined = result.taskView?.task?.state;
    assert.equal(state, "TASK_STATE_SOMETHING_NEW");
    const taskType = result.taskView?.task?.type;
    assert.ok(taskType && "grant" in taskType && taskType.grant);
    assert.equal(taskType.grant.outcome, "GRANT_OUTCOME_NOT_YET_INVENTED");
    assert.deepEqual((result.taskView?.task as Record<string, unknown>).newTopLevelMember, { nested: [1, 2, 3] });
    // int64 as a decimal string keeps every digit
    assert.equal(result.taskView?.task?.numericId, "9223372036854775807");
    api.close();
  });

  test("a page item with members the SDK does not know", async () => {
    server.handle((_request, response) => json(response, 200, { list: [entitlement(1, { riskLevel: "HIGH" })], nextPageToken: "", total: 1 }));
    const api = client();
    const items = [];
    for await (const item of api.paginate("list_app_entitlements", { path: { app_id: "app" } })) items.push(item);
    assert.equal((items[0]?.appEntitlement as Record<string, unknown>).riskLevel, "HIGH");
    api.close();
  });
});

describe("bounds", () => {
  test("a server that drips its answer gets no longer than timeoutMs in all", async () => {
    server.handle((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write("{");
      const timer = setInterval(() => response.write(" "), 50);
      response.on("close", () => clearInterval(timer));
    });
    const api = client({ timeoutMs: 400, retry: false });
    const started = Date.now();
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof DeadlineExceededError && error.phase === "total");
    assert.ok(Date.now() - started < 5_000);
    api.close();
  });

  test("a gzip bomb stops at maxResponseBytes (8 MiB by default), not when inflated", async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    assert.ok(bomb.length < 256 * 1024);
    server.handle((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip", "content-length": bomb.length });
      response.end(bomb);
    });
    const api = client({ retry: false });
    const before = process.memoryUsage().arrayBuffers;
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => {
      return error instanceof ResponseTooLargeError && error.limit === DEFAULT_MAX_RESPONSE_BYTES && /decodes/.test(error.message);
    });
    assert.ok(process.memoryUsage().arrayBuffers - before < 48 * 1024 * 1024, "the bomb was not inflated in memory");
    api.close();
  });

  test("deflate and br bombs too, and a declared or streamed body over the cap", async () => {
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const cases: [string, Buffer | null][] = [
      ["deflate", zlib.deflateSync(zeros)],
      ["br", zlib.brotliCompressSync(zeros)],
      ["identity", null],
    ];
    const api = client({ retry: false, maxResponseBytes: 1024 * 1024 });
    for (const [encoding, body] of cases) {
      server.handle((_request, response) => {
        if (body) {
          response.writeHead(200, { "content-type": "application/json", "content-encoding": encoding });
          response.end(body);
          return;
        }
        response.writeHead(200, { "content-type": "application/json" }); // chunked, no length
        for (let i = 0; i < 20; i++) response.write(Buffer.alloc(128 * 1024, 0x20));
        response.end();
      });
      await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), ResponseTooLargeError, encoding);
    }
    server.handle((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": String(2 * 1024 * 1024) });
      response.write("{");
    });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof ResponseTooLargeError && /declares/.test(error.message));
    api.close();
  });

  test("a small gzip body under the cap is decoded", async () => {
    const page = zlib.gzipSync(JSON.stringify({ list: [entitlement(1)], nextPageToken: "" }));
    server.handle((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      response.end(page);
    });
    const api = client();
    const result = await api.listAppEntitlements({ path: { app_id: "a" } });
    assert.equal(result.list?.[0]?.appEntitlement?.id, "ent-1");
    assert.equal(server.requests.at(-1)?.headers["accept-encoding"], "gzip, deflate");
    api.close();
  });

  test("endless page tokens stop at the default bound of 1000 pages", async () => {
    let served = 0;
    server.handle((_request, response) => {
      served += 1;
      json(response, 200, { list: [entitlement(served)], nextPageToken: `token-${served}` });
    });
    const api = client();
    let items = 0;
    await assert.rejects(
      (async () => {
        for await (const _ of api.paginate("list_app_entitlements", { path: { app_id: "a" } })) items += 1;
      })(),
      (error: unknown) => error instanceof PageLimitError && error.maxPages === DEFAULT_MAX_PAGES,
    );
    assert.equal(served, DEFAULT_MAX_PAGES);
    assert.equal(items, DEFAULT_MAX_PAGES);
    api.close();
  });

  test("a repeated page token is a loop, caught at once", async () => {
    let served = 0;
    server.handle((_request, response) => {
      served += 1;
      json(response, 200, { list: [entitlement(served)], nextPageToken: served === 1 ? "A" : served === 2 ? "B" : "A" });
    });
    const api = client({ maxPages: 50 });
    await assert.rejects(
      (async () => {
        for await (const _ of api.paginate("list_app_entitlements", { path: { app_id: "a" } })) {
          // consume
        }
      })(),
      PagingLoopError,
    );
    assert.equal(served, 3);
    const tokens = server.requests.slice(-3).map((r) => new URL(r.url, server.url).searchParams.get("page_token"));
    assert.deepEqual(tokens, [null, "A", "B"]);
    api.close();
  });

  test("a page that is not a page, and a 200 that is not JSON, are InvalidResponseErrors", async () => {
    const api = client({ retry: false });
    server.handle((_request, response) => json(response, 200, { list: "nope", nextPageToken: "" }));
    await assert.rejects(
      (async () => {
        for await (const _ of api.paginate("list_app_entitlements", { path: { app_id: "a" } })) {
          // consume
        }
      })(),
      InvalidResponseError,
    );
    server.handle((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{not json");
    });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), InvalidResponseError);
    api.close();
  });
});

/** A server that sends a head and then one byte every `everyMs`, never finishing; `served()` counts the requests. */
function dripping(everyMs: number, first: (served: number, response: http.ServerResponse) => boolean = () => false): { served: () => number } {
  let served = 0;
  server.handle((request, response) => {
    served += 1;
    if (first(served, response)) return;
    response.writeHead(200, { "content-type": "application/json" });
    response.write("{");
    const timer = setInterval(() => response.write(" "), everyMs);
    response.on("close", () => clearInterval(timer));
  });
  return { served: () => served };
}

describe("timeoutMs is one deadline for the whole call, retries included", () => {
  test("a dripping server with default retries: one attempt, the call ends at its deadline, not retried", async () => {
    const drip = dripping(250);
    const timeoutMs = 1500;
    const api = client({ timeoutMs }); // default retries (3) and real backoff waits
    const started = performance.now();
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => {
      return error instanceof DeadlineExceededError && error.phase === "total" && /timeoutMs of 1500 ms/.test(error.message);
    });
    const elapsed = performance.now() - started;
    // An attempt that ran the deadline out is not retried; 4 attempts of a fresh deadline each would take >= 4 x.
    assert.equal(drip.served(), 1);
    assert.ok(elapsed < 2.5 * timeoutMs, `the call took ${Math.round(elapsed)} ms`);
    api.close();
  });

  test("a retry gets only what is left: a dropped connection, then a drip, ends within the one deadline", async () => {
    const drip = dripping(250, (served, response) => {
      if (served === 1) response.socket?.destroy();
      return served === 1;
    });
    const timeoutMs = 1500;
    const api = client({ timeoutMs, retry: { backoffFactorMs: 100, jitter: 0 } }); // waits 200 ms, 400 ms, 800 ms
    const started = performance.now();
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => {
      return error instanceof DeadlineExceededError && error.phase === "total" && /the last attempt had the \d+ ms left of it/.test(error.message);
    });
    const elapsed = performance.now() - started;
    assert.equal(drip.served(), 2);
    assert.ok(elapsed < 2.5 * timeoutMs, `the call took ${Math.round(elapsed)} ms`);
    api.close();
  });

  test("the call's own timeoutMs is one deadline too (the client's is 30 s)", async () => {
    const drip = dripping(250);
    const api = client();
    const started = performance.now();
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }, { timeoutMs: 1000 }), (error: unknown) => error instanceof DeadlineExceededError && error.phase === "total");
    assert.equal(drip.served(), 1);
    assert.ok(performance.now() - started < 2.5 * 1000);
    api.close();
  });

  test("a 503 whose Retry-After ends past the deadline fails at once, without waiting, with the 503", async () => {
    let served = 0;
    server.handle((_request, response) => {
      served += 1;
      json(response, 503, { code: "UNAVAILABLE", message: "busy" }, { "retry-after": "5" });
    });
    const { waits, sleep } = recordingSleep();
    const api = client({ timeoutMs: 1500, sleep });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof ServerError && error.status === 503 && error.code === "UNAVAILABLE");
    assert.equal(served, 1);
    assert.deepEqual(waits, []);
    // The same with the real sleep: nothing is waited (a 5 s wait would be taken if it were started).
    const real = client({ timeoutMs: 1500 });
    const started = performance.now();
    await assert.rejects(real.listAppEntitlements({ path: { app_id: "a" } }), ServerError);
    assert.equal(served, 2);
    assert.ok(performance.now() - started < 2.5 * 1500);
    api.close();
    real.close();
  });

  test("a backoff that ends past the deadline is not started either: the last error is thrown at once", async () => {
    let served = 0;
    server.handle((_request, response) => {
      served += 1;
      response.socket?.destroy();
    });
    const { waits, sleep } = recordingSleep();
    const api = client({ timeoutMs: 1500, sleep, retry: { backoffFactorMs: 5_000, jitter: 0 } });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), ConnectionError);
    assert.equal(served, 1);
    assert.deepEqual(waits, []);
    api.close();
  });

  test("a 503, then a 200 within the time left, succeeds", async () => {
    let served = 0;
    server.handle((_request, response) => {
      served += 1;
      if (served % 2 === 1) json(response, 503, { code: "UNAVAILABLE", message: "busy" }, { "retry-after": "1" });
      else json(response, 200, { list: [entitlement(1)], nextPageToken: "" });
    });
    const { waits, sleep } = recordingSleep();
    const api = client({ timeoutMs: 5000, sleep });
    const result = await api.listAppEntitlements({ path: { app_id: "a" } });
    assert.equal(result.list?.[0]?.appEntitlement?.id, "ent-1");
    assert.equal(served, 2);
    assert.deepEqual(waits, [1000]);
    // Waited for real: 1 s of the 3 s deadline, and the retry gets the 2 s left.
    const real = client({ timeoutMs: 3000 });
    assert.equal((await real.listAppEntitlements({ path: { app_id: "a" } })).list?.[0]?.appEntitlement?.id, "ent-1");
    assert.equal(served, 4);
    api.close();
    real.close();
  });

  test("a webhook delivery's timeoutMs is one deadline for the delivery and its retries", async () => {
    const drip = dripping(250);
    const sender = new WebhookSender({ url: `${server.url}/api/v1/webhooks/incoming/l1`, secret: "s3cret", timeoutMs: 1500 });
    const started = performance.now();
    await assert.rejects(sender.send({ orderId: "A-1" }), (error: unknown) => error instanceof DeadlineExceededError && error.phase === "total");
    assert.equal(drip.served(), 1);
    assert.ok(performance.now() - started < 2.5 * 1500);
    sender.close();
  });

  test("an OAuth2 token request is part of the call: a dripping token endpoint ends the call at its deadline", async () => {
    const drip = dripping(250);
    const api = client({ credentials: { clientId: "c", clientSecret: "s" }, timeoutMs: 1500 });
    const started = performance.now();
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof DeadlineExceededError && error.phase === "total");
    assert.equal(drip.served(), 1);
    assert.equal(server.requests.at(-1)?.url, "/auth/v1/token");
    assert.ok(performance.now() - started < 2.5 * 1500);
    api.close();
  });
});

describe("retries where the Python SDK retries, and only there", () => {
  test("a GET is retried after 503s with backoff, then succeeds", async () => {
    let served = 0;
    server.handle((_request, response) => {
      served += 1;
      if (served < 3) json(response, 503, { code: "UNAVAILABLE", message: "busy" });
      else json(response, 200, { list: [], nextPageToken: "" });
    });
    const { waits, sleep } = recordingSleep();
    const api = client({ sleep });
    await api.listAppEntitlements({ path: { app_id: "a" } });
    assert.equal(served, 3);
    assert.equal(waits.length, 2);
    assert.ok(waits[0]! >= 0 && waits[0]! <= 1000 && waits[1]! >= 0 && waits[1]! <= 2000, `full jitter of 1 s, 2 s: ${waits}`);
    api.close();
  });

  test("Retry-After sets the wait (seconds or an HTTP date), capped at 30 s; 3 retries, then the typed error", async () => {
    // The waits are recorded, not waited; the call's deadline (timeoutMs) is set long enough for all of them.
    let served = 0;
    server.handle((_request, response) => {
      served += 1;
      const retryAfter = ["7", "3600", new Date(Date.now() + 10_000).toUTCString(), "5"][served - 1] ?? "";
      json(response, 429, { code: "RATE_LIMITED", message: "slow down" }, { "retry-after": retryAfter });
    });
    const { waits, sleep } = recordingSleep();
    const api = client({ sleep, timeoutMs: 120_000 });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof RateLimitError && error.retryAfter === 5);
    assert.equal(served, 4);
    assert.equal(waits.length, 3);
    assert.equal(waits[0], 7000);
    assert.equal(waits[1], 30_000);
    assert.ok(waits[2]! > 5000 && waits[2]! <= 10_000, String(waits[2]));
    api.close();
  });

  test("a restart (a POST with effects) is sent once, unless the call asks for retries", async () => {
    let served = 0;
    server.handle((request, response) => {
      served += 1;
      if (served === 1) json(response, 503, { code: "UNAVAILABLE", message: "busy" });
      else json(response, 200, RESTART.test(request.url ?? "") ? task({}) : { list: [], nextPageToken: "" });
    });
    const { waits, sleep } = recordingSleep();
    const api = client({ sleep });
    await assert.rejects(api.restartTask({ path: { task_id: "t1" }, body: {} }), ServerError);
    assert.equal(served, 1);
    served = 0;
    const result = await api.restartTask({ path: { task_id: "t1" }, body: {} }, { retry: true });
    assert.equal(result.ticketActionId, "a1");
    assert.equal(served, 2);
    assert.equal(waits.length, 1);
    served = 0;
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }, { retry: false }), (error: unknown) => error instanceof ApiError);
    assert.equal(served, 1);
    api.close();
  });

  test("a dropped connection is retried for a GET, not for a restart", async () => {
    let served = 0;
    server.handle((request, response) => {
      served += 1;
      if (served === 1) {
        response.socket?.destroy();
        return;
      }
      if (ENTITLEMENTS.test(request.url ?? "")) json(response, 200, { list: [], nextPageToken: "" });
      else json(response, 200, task({}));
    });
    const { sleep } = recordingSleep();
    const api = client({ sleep });
    await api.listAppEntitlements({ path: { app_id: "a" } });
    assert.equal(served, 2);
    served = 0;
    await assert.rejects(api.restartTask({ path: { task_id: "t1" }, body: {} }), ConnectionError);
    assert.equal(served, 1);
    api.close();
  });

  test("a webhook delivery is retried with the same event id; a 409 after a retry means it got through", async () => {
    let served = 0;
    server.handle((_request, response) => {
      served += 1;
      if (served === 1) json(response, 502, { code: "BAD_GATEWAY", message: "upstream" });
      else json(response, 409, { code: "DUPLICATE_EVENT", message: "already received" });
    });
    const { sleep } = recordingSleep();
    const sender = new WebhookSender({ url: `${server.url}/api/v1/webhooks/incoming/l1`, secret: "s3cret", sleep });
    const delivery = await sender.send({ orderId: "A-1" });
    assert.equal(delivery.status, 409);
    assert.equal(delivery.retries, 1);
    const [first, second] = server.requests.slice(-2);
    assert.equal(first?.headers["webhook-event-id"], second?.headers["webhook-event-id"]);
    assert.equal(first?.headers["webhook-signature"], second?.headers["webhook-signature"]);
    assert.deepEqual(first?.body, second?.body);
    sender.close();
  });
});

describe("credentials go to the base URL's origin only", () => {
  test("a redirect to another origin is not followed, and the other origin gets nothing", async () => {
    const other = await TestServer.start((_request, response) => json(response, 200, { list: [], nextPageToken: "" }));
    server.handle((_request, response) => {
      response.writeHead(307, { location: `${other.url}/api/v1/apps/a/entitlements` });
      response.end();
    });
    const api = client({ retry: false });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof ApiError && error.status === 307);
    assert.equal(other.requests.length, 0);
    assert.equal(server.requests.at(-1)?.headers.authorization, "Bearer t0ken");
    // The raw client pointed at another origin sends no credential either.
    const raw = await api.raw.GET("/api/v1/apps/{app_id}/entitlements", { baseUrl: other.url, params: { path: { app_id: "a" } } });
    assert.equal(raw.response.status, 200);
    assert.equal(other.requests.length, 1);
    assert.equal(other.requests[0]?.headers.authorization, undefined);
    await other.close();
    api.close();
  });

  test("the tenant credential is not sent with a webhook delivery made through the client", async () => {
    server.handle((_request, response) => json(response, 200, { eventId: "e", automationRun: { id: "r", status: "AUTOMATION_RUN_STATUS_QUEUED" } }));
    const api = client();
    await api.receiveWebhook(
      { path: { listener_id: "l1" }, header: { "Webhook-Timestamp": "1", "Webhook-Event-Id": "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b" }, body: { a: 1 } },
      { headers: { "webhook-signature": "x" } },
    );
    assert.equal(server.requests.at(-1)?.headers.authorization, undefined);
    api.close();
  });
});

describe("OAuth2 client credentials", () => {
  function tokenServer(expiresIn: number): { fetched: () => number } {
    let fetched = 0;
    server.handle((request, response, body) => {
      if (request.url === "/auth/v1/token") {
        fetched += 1;
        const form = new URLSearchParams(body.toString());
        assert.equal(form.get("grant_type"), "client_credentials");
        if (request.headers.authorization !== `Basic ${Buffer.from("my+client:s%26cret").toString("base64")}`) {
          json(response, 401, { error: "invalid_client", error_description: "unknown client" });
          return;
        }
        json(response, 200, { access_token: `access-${fetched}`, token_type: "Bearer", expires_in: expiresIn });
        return;
      }
      if (request.headers.authorization === "Bearer revoked") {
        json(response, 401, { code: "UNAUTHENTICATED", message: "expired" });
        return;
      }
      json(response, 200, { list: [], nextPageToken: "" });
    });
    return { fetched: () => fetched };
  }

  test("one token for concurrent calls, refreshed 60 s before it expires", async () => {
    const counter = tokenServer(3600);
    let now = 1_000_000;
    const api = client({ credentials: { clientId: "my client", clientSecret: "s&cret" }, clock: () => now });
    await Promise.all(Array.from({ length: 5 }, () => api.listAppEntitlements({ path: { app_id: "a" } })));
    assert.equal(counter.fetched(), 1);
    now += 3539_000;
    await api.listAppEntitlements({ path: { app_id: "a" } });
    assert.equal(counter.fetched(), 1);
    assert.equal(server.requests.at(-1)?.headers.authorization, "Bearer access-1");
    now += 2_000; // within the 60 s leeway of expiry
    await api.listAppEntitlements({ path: { app_id: "a" } });
    assert.equal(counter.fetched(), 2);
    assert.equal(server.requests.at(-1)?.headers.authorization, "Bearer access-2");
    api.close();
  });

  test("a refused token request is an AuthenticationError with the RFC 6749 body", async () => {
    tokenServer(3600);
    const api = client({ credentials: { clientId: "other", clientSecret: "x" } });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => {
      return error instanceof AuthenticationError && error.code === "invalid_client" && error.message === "unknown client" && error.oauthError?.error === "invalid_client";
    });
    api.close();
  });
});

describe("typed errors", () => {
  test("the Error body's code, message and details", async () => {
    server.handle((_request, response) =>
      json(response, 400, { code: "INVALID_ARGUMENT", message: "page_size must be an integer", details: [{ location: "query", name: "page_size", reason: "not an integer" }] }),
    );
    const api = client();
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => {
      assert.ok(error instanceof BadRequestError);
      assert.equal(error.code, "INVALID_ARGUMENT");
      assert.equal(error.message, "page_size must be an integer");
      assert.deepEqual(error.details, [{ location: "query", name: "page_size", reason: "not an integer" }]);
      assert.match(String(error), /list_app_entitlements: HTTP 400 INVALID_ARGUMENT/);
      return true;
    });
    server.handle((_request, response) => {
      response.writeHead(418, { "content-type": "text/plain" });
      response.end("I'm a teapot");
    });
    await assert.rejects(api.listAppEntitlements({ path: { app_id: "a" } }), (error: unknown) => error instanceof ApiError && error.status === 418 && error.code === "" && error.body === "I'm a teapot");
    api.close();
  });
});
