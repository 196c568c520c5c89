/**
 * What the tests share: the servers the harness started (tests/sdk_ts/conftest.py passes their addresses in the
 * environment), and a loopback HTTP server whose routes each test writes (the hostile server).
 *
 * The tests import the package by its name, as a downstream project does: the harness compiles and runs them in
 * a folder where `@accessgov/client` is installed from its tarball.
 */

import http from "node:http";
import type { AddressInfo } from "node:net";

/** An environment variable the harness sets; a test that needs a missing one fails (it never passes by skipping). */
export function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run these tests with tests/sdk_ts (pytest), which starts the servers`);
  return value;
}

export const DEMO = {
  adminToken: "demo-admin-token",
  viewerToken: "demo-viewer-token",
  clientId: "demo-client",
  clientSecret: "demo-client-secret",
  hmacListener: "wh_demo_hmac",
  hmacSecret: "mSk9Mm21J27tNINPlKE-v8Ae6kEC7DjhxuB2L4WwR3g",
  pagingApp: "app-github",
  pagingAppEntitlements: 2500,
} as const;

export type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: Buffer) => void | Promise<void>;

/** A server on 127.0.0.1 (a free port) answering with `handler`; it records every request it received. */
export class TestServer {
  readonly requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
  readonly #server: http.Server;
  #handler: Handler;

  private constructor(handler: Handler) {
    this.#handler = handler;
    this.#server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks);
        this.requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
        Promise.resolve(this.#handler(request, response, body)).catch((error: unknown) => {
          response.destroy(error instanceof Error ? error : new Error(String(error)));
        });
      });
    });
  }

  static async start(handler: Handler): Promise<TestServer> {
    const server = new TestServer(handler);
    await new Promise<void>((resolve) => server.#server.listen(0, "127.0.0.1", resolve));
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Answer with another handler from now on (the recorded requests are kept). */
  handle(handler: Handler): void {
    this.#handler = handler;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

export function json(response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** A `sleep` for clients that records the waits instead of waiting. */
export function recordingSleep(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}
