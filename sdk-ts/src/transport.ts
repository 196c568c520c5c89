/**
 * One HTTP exchange, bounded against a hostile or broken server (node:http and node:https, no other dependency):
 *
 * - a deadline (`timeoutMs`, from connecting to the answer's last byte; a server that drips its answer a byte at
 *   a time gets no longer): one for the whole call, retries and their waits included, so an attempt gets only
 *   the part of it that is left (`timeLeftMs`); and a connect deadline (`connectTimeoutMs`) within it;
 * - at most `maxResponseBytes` of body as received, and at most as many once decoded: gzip, deflate and br are
 *   decoded as the bytes arrive, in zlib's bounded output chunks, and the exchange is cut the moment the decoded
 *   size passes the cap (a compression bomb stops there, not when it is fully inflated);
 * - redirects are never followed (a 3xx is an answer like any other), so credentials go nowhere but the URL asked.
 *
 * The same limits and names as the Python SDK's (`timeout`, `max_response_bytes`).
 */

import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";

import { AccessGovError, ConnectionError, DeadlineExceededError, InvalidResponseError, ResponseTooLargeError } from "./errors.js";

/** 30 s for a whole call (its retries included), 5 s to connect, 8 MiB of body: the Python SDK's defaults. */
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
// What the SDK asks for and decodes: the encodings zlib has; Python's httpx asks for gzip and deflate too.
export const ACCEPT_ENCODING = "gzip, deflate";
/** Stacked content codings beyond this are refused, as the Python SDK refuses them. */
export const MAX_CODINGS = 2;
// What the SDK decodes (br too: some servers send it unasked); any other coding is refused.
const DECODED = new Set(["gzip", "x-gzip", "deflate", "br"]);

export interface Limits {
  /** Deadline of one call, from its start to the last body byte of its last attempt, retries included (ms). */
  readonly timeoutMs: number;
  /** Deadline for the TCP (and TLS) connection (ms). */
  readonly connectTimeoutMs: number;
  /** Cap on the body, as received and once decoded (bytes). */
  readonly maxResponseBytes: number;
}

export interface OutgoingRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body?: Uint8Array | undefined;
}

export interface IncomingAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  /** The decoded body. */
  readonly body: Buffer;
}

/** Options of the agents an `HttpTransport` keeps connections in. */
export interface TransportOptions {
  /** PEM certificates to trust instead of Node's bundle (a private CA). */
  readonly ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /** `false` accepts any TLS certificate: for a local test server only. */
  readonly rejectUnauthorized?: boolean;
}

function limitsText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

function decoderFor(encoding: string, first: Buffer | undefined): zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress | null {
  switch (encoding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      // RFC 9110 says zlib-wrapped; some servers send raw deflate, which httpx accepts too (told apart by the
      // zlib header of the first bytes, when the decoder is the one that receives them).
      return first === undefined || (first.length >= 2 && (first[0]! & 0x0f) === 8 && ((first[0]! << 8) | first[1]!) % 31 === 0)
        ? zlib.createInflate()
        : zlib.createInflateRaw();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

/** Connections to the servers one client talks to (keep-alive agents), and the bounded exchange over them. */
export class HttpTransport {
  private readonly agents: { "http:": http.Agent; "https:": https.Agent };

  constructor(options: TransportOptions = {}) {
    const tls = {
      ...(options.ca !== undefined ? { ca: options.ca as string | Buffer | (string | Buffer)[] } : {}),
      ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
    };
    this.agents = {
      "http:": new http.Agent({ keepAlive: true, maxSockets: 16 }),
      "https:": new https.Agent({ keepAlive: true, maxSockets: 16, ...tls }),
    };
  }

  /** Close the idle connections (the client can still be used: new ones are made). */
  close(): void {
    this.agents["http:"].destroy();
    this.agents["https:"].destroy();
  }

  /**
   * Send one request and read its whole answer within `limits`, in at most `timeLeftMs` (what is left of the
   * call's `timeoutMs`; all of it by default); `signal` aborts it.
   */
  send(request: OutgoingRequest, limits: Limits, signal?: AbortSignal, timeLeftMs: number = limits.timeoutMs): Promise<IncomingAnswer> {
    const { url } = request;
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return Promise.reject(new TypeError(`only http and https URLs are supported, not ${url.protocol}`));
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<IncomingAnswer>((resolve, reject) => {
      const agent = this.agents[url.protocol as "http:" | "https:"];
      const module = url.protocol === "https:" ? https : http;
      const headers: Record<string, string> = { ...request.headers };
      if (request.body !== undefined) headers["content-length"] = String(request.body.byteLength);
      let settled = false;
      const timers: NodeJS.Timeout[] = [];
      const streams: Readable[] = [];
      const finish = (error: unknown, answer?: IncomingAnswer): void => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (error !== undefined) {
          for (const stream of streams) stream.destroy();
          outgoing.destroy();
          reject(error instanceof AccessGovError || error === signal?.reason ? error : asConnectionError(error, url));
        } else {
          resolve(answer!);
        }
      };
      const onAbort = (): void => finish(signal?.reason);
      const outgoing = module.request(url, { method: request.method, headers, agent });
      timers.push(
        setTimeout(
          () => finish(new DeadlineExceededError(`${request.method} ${url.origin}${url.pathname}: ${deadlineText(limits, timeLeftMs)}`, "total")),
          Math.max(0, timeLeftMs),
        ),
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      outgoing.on("socket", (socket) => {
        if (!socket.connecting) return;
        const connectTimer = setTimeout(
          () => finish(new DeadlineExceededError(`${url.origin}: not connected within ${limits.connectTimeoutMs} ms`, "connect")),
          limits.connectTimeoutMs,
        );
        timers.push(connectTimer);
        socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () => clearTimeout(connectTimer));
      });
      outgoing.on("error", (error) => finish(error));
      outgoing.on("response", (response) => {
        streams.push(response);
        const declared = Number(response.headers["content-length"]);
        if (Number.isFinite(declared) && declared > limits.maxResponseBytes) {
          finish(tooLarge(`declares ${declared} bytes`, limits));
          return;
        }
        let received = 0;
        let decoded = 0;
        const chunks: Buffer[] = [];
        const encodings = (response.headers["content-encoding"] ?? "")
          .split(",")
          .map((value) => value.trim().toLowerCase())
          .filter((value) => value && value !== "identity");
        response.on("error", (error) => finish(error));
        response.on("close", () => {
          if (!response.complete) finish(new ConnectionError(`${url.origin}: the connection closed before the answer was complete`));
        });
        const collect = (chunk: Buffer): void => {
          if (settled) return;
          decoded += chunk.length;
          if (decoded > limits.maxResponseBytes) {
            finish(tooLarge("decodes to more", limits));
            return;
          }
          chunks.push(chunk);
        };
        const done = (): void =>
          finish(undefined, {
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? "",
            headers: toHeaders(response.rawHeaders),
            body: Buffer.concat(chunks),
          });
        // Refused before any byte is decoded: more stacked codings than MAX_CODINGS (each layer is a bounded
        // inflate, but they multiply), or one the SDK did not ask for (the body would be handed on undecoded).
        if (encodings.length > MAX_CODINGS) {
          finish(new InvalidResponseError(`${url.origin}: ${encodings.length} content codings (${JSON.stringify(encodings.join(", ").slice(0, 100))}), more than the SDK decodes`));
          return;
        }
        const unknown = encodings.find((encoding) => !DECODED.has(encoding));
        if (unknown !== undefined) {
          finish(new InvalidResponseError(`${url.origin}: Content-Encoding ${JSON.stringify(unknown.slice(0, 100))}, which the SDK did not accept`));
          return;
        }
        // Decoders are made on the first chunk (deflate's wrapper is sniffed from it): the last coding applied is
        // decoded first, and each decoder writes into the one of the coding applied before it, the first applied
        // into `collect`.
        let head: zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress | null | undefined;
        const decodersFrom = (first: Buffer): void => {
          head = null;
          let downstream: { write: (chunk: Buffer) => void; end: () => void } = { write: collect, end: done };
          for (const [index, encoding] of encodings.entries()) {
            const decoder = decoderFor(encoding, index === encodings.length - 1 ? first : undefined)!;
            streams.push(decoder);
            const sink = downstream;
            decoder.on("data", (chunk: Buffer) => sink.write(chunk));
            decoder.on("error", (error) => finish(new InvalidResponseError(`${url.origin}: the ${encoding} body cannot be decoded: ${error.message}`)));
            decoder.on("end", () => sink.end());
            downstream = { write: (chunk: Buffer) => void decoder.write(chunk), end: () => void decoder.end() };
            head = decoder;
          }
        };
        response.on("data", (chunk: Buffer) => {
          if (settled) return;
          received += chunk.length;
          if (received > limits.maxResponseBytes) {
            finish(tooLarge("sent more", limits));
            return;
          }
          if (head === undefined) decodersFrom(chunk);
          if (head) head.write(chunk);
          else collect(chunk);
        });
        response.on("end", () => {
          if (settled) return;
          if (head) head.end();
          else done();
        });
      });
      outgoing.end(request.body === undefined ? undefined : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength));
    });
  }
}

/** What a call that ran out of its deadline says: the deadline, and what was left of it for this attempt. */
export function deadlineText(limits: Limits, timeLeftMs: number): string {
  const left = timeLeftMs < limits.timeoutMs ? ` (the last attempt had the ${Math.max(0, Math.round(timeLeftMs))} ms left of it)` : "";
  return `no complete answer within the call's timeoutMs of ${limits.timeoutMs} ms${left}`;
}

function tooLarge(what: string, limits: Limits): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `the answer ${what} than maxResponseBytes (${limitsText(limits.maxResponseBytes)})`,
    limits.maxResponseBytes,
  );
}

function asConnectionError(error: unknown, url: URL): AccessGovError {
  const text = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return new ConnectionError(`${url.origin}: ${typeof code === "string" ? `${code} ` : ""}${text}`, { cause: error });
}

function toHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < raw.length; index += 2) {
    try {
      headers.append(raw[index]!, raw[index + 1]!);
    } catch {
      // A header value fetch's Headers refuses (a control character): not one the SDK reads.
    }
  }
  return headers;
}
