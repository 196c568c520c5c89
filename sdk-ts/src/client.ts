/**
 * `AccessGov`: every operation of the contract behind one object, with authentication, bounded exchanges,
 * retries for idempotent calls, typed errors and paging.
 *
 *     const api = new AccessGov({ baseUrl: "http://127.0.0.1:8080", token: "..." });
 *     for await (const item of api.paginate("list_app_entitlements", { path: { app_id: "app-github" } })) { ... }
 *     await api.restartTask({ path: { task_id: "1001" }, body: { comment: "retry" } });
 *
 * Every operation of the catalogue is a method (`restartTask`, `listAppEntitlements`, ...: the camelCase of its
 * operationId) and `call(operationId, request)` is the same by name, so an operation added to the contract is
 * callable without SDK code. Requests are built by openapi-fetch over the generated `paths` types (`api.raw` is that
 * client, for the generated layer underneath) and sent by the SDK's own bounded transport.
 */

import createClient, { type Client } from "openapi-fetch";

import {
  METHOD_NAMES,
  OPERATIONS,
  operation as lookup,
  type CallArguments,
  type ItemOf,
  type OperationId,
  type OperationInfo,
  type OperationMethods,
  type PagedOperationId,
  type PagedRequestOf,
  type ResultOf,
} from "./catalog.js";
import { readResult } from "./answers.js";
import { AccessGovError, errorFromResponse, InvalidResponseError } from "./errors.js";
import { deadlineOf, exchange } from "./exchange.js";
import { CONTRACT_VERSION, TOKEN_URL } from "./generated/operations.js";
import type { paths } from "./generated/schema.js";
import { ClientCredentials, type ClientCredentialsOptions } from "./oauth.js";
import { DEFAULT_MAX_PAGES, iterate } from "./paging.js";
import { DEFAULT_RETRY, NO_RETRY, retryPolicy, sleep as realSleep, type RetryOption, type RetryPolicy, type Sleep } from "./retry.js";
import {
  ACCEPT_ENCODING,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  HttpTransport,
  type IncomingAnswer,
  type Limits,
  type TransportOptions,
} from "./transport.js";

export interface AccessGovOptions {
  /** The tenant's base URL, e.g. `https://example.accessgov.example` (a path prefix is kept). */
  readonly baseUrl: string;
  /** An API token or an access token, sent as `Authorization: Bearer` to the base URL's origin only. */
  readonly token?: string;
  /** OAuth2 client credentials: the SDK fetches, caches and refreshes the access token. */
  readonly credentials?: ClientCredentials | ClientCredentialsOptions;
  /**
   * Deadline of one call (default 30 s; Python SDK: `timeout`): from the call's start to its answer's last body
   * byte, its retries, their waits and an OAuth2 token request included. A `paginate` walk is one call per page.
   */
  readonly timeoutMs?: number;
  /** Deadline to connect, for each connection, within the call's `timeoutMs` (default 5 s). */
  readonly connectTimeoutMs?: number;
  /** Cap on an answer's body, as received and once decompressed (default 8 MiB; Python: `max_response_bytes`). */
  readonly maxResponseBytes?: number;
  /** Pages one `paginate` walk may read (default 1000; Python: `max_pages`). */
  readonly maxPages?: number;
  /** The policy for idempotent calls (default `DEFAULT_RETRY`); `false` turns retries off. */
  readonly retry?: RetryOption;
  /** Headers added to every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** TLS options: a private CA (`ca`). */
  readonly tls?: TransportOptions;
  /** How retries wait, and the clock of token expiry (tests set them). */
  readonly sleep?: Sleep;
  readonly clock?: () => number;
}

/** Options of one call. */
export interface CallOptions {
  /** `false`: send once; `true`: retry even a non-idempotent call; a policy for this call. */
  readonly retry?: RetryOption;
  readonly signal?: AbortSignal;
  /** Headers for this request (after the client's). */
  readonly headers?: Readonly<Record<string, string>>;
  /** This call's deadline (ms, retries included), instead of the client's `timeoutMs`. */
  readonly timeoutMs?: number;
}

export interface PaginateOptions extends CallOptions {
  /** This walk's page bound, instead of the client's `maxPages`. */
  readonly maxPages?: number;
}

/** Arguments of `paginate`: the request without its page token (optional when nothing in it is required). */
export type PaginateArguments<K extends PagedOperationId> =
  {} extends PagedRequestOf<K> ? [request?: PagedRequestOf<K>, options?: PaginateOptions] : [request: PagedRequestOf<K>, options?: PaginateOptions];

interface SendContext {
  readonly operation: string | undefined;
  readonly info: OperationInfo | undefined;
  readonly policy: RetryPolicy;
  readonly limits: Limits;
  readonly signal: AbortSignal | undefined;
  /** When the call must have its answer (`exchange`'s monotonic clock): fixed when the call starts. */
  readonly deadline: number;
  answer?: IncomingAnswer;
}

// Statuses whose answers have no body, which `new Response` refuses a body for.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const USER_AGENT = `accessgov-client-ts/${CONTRACT_VERSION} node/${process.versions.node}`;

function encodePathValue(value: unknown): string {
  const text = encodeURIComponent(String(value));
  // `.` and `..` would be read as path segments (and resolved away); encoded they stay a value.
  return text === "." || text === ".." ? text.replaceAll(".", "%2E") : text;
}

/** Path parameters into the URL: each value percent-encoded, a missing or empty one refused. */
function pathSerializer(url: string, params: Record<string, unknown>): string {
  return url.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === "") throw new TypeError(`path parameter ${name} is required`);
    return encodePathValue(value);
  });
}

function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.host === b.host;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const result = value ?? fallback;
  if (!(Number.isFinite(result) && result > 0)) throw new RangeError(`${name} must be a number > 0`);
  return result;
}

/** The SDK client. Give `token` (an API token) or `credentials` (OAuth2 client credentials). */
export interface AccessGov extends OperationMethods<CallOptions> {}
export class AccessGov {
  readonly baseUrl: URL;
  /** openapi-fetch's typed client over the contract's `paths`, sending through this client (auth, limits, retries). */
  readonly raw: Client<paths>;
  readonly retry: RetryPolicy;
  readonly limits: Limits;
  readonly maxPages: number;
  readonly credentials: ClientCredentials | undefined;
  readonly #token: string | undefined;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #transport: HttpTransport;
  readonly #sleep: Sleep;
  readonly #clock: () => number;

  constructor(options: AccessGovOptions) {
    if ((options.token === undefined) === (options.credentials === undefined)) {
      throw new TypeError("give exactly one of token (an API or access token) and credentials (OAuth2)");
    }
    if (options.token !== undefined && !options.token) throw new TypeError("token must not be empty");
    this.baseUrl = new URL(options.baseUrl.replace(/\/+$/, ""));
    if (this.baseUrl.protocol !== "http:" && this.baseUrl.protocol !== "https:") {
      throw new TypeError(`baseUrl must be an http or https URL, not ${options.baseUrl}`);
    }
    this.#token = options.token;
    this.credentials =
      options.credentials === undefined || options.credentials instanceof ClientCredentials
        ? options.credentials
        : new ClientCredentials(options.credentials);
    this.retry = retryPolicy(options.retry ?? DEFAULT_RETRY);
    this.limits = Object.freeze({
      timeoutMs: positive("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS),
      connectTimeoutMs: positive("connectTimeoutMs", options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS),
      maxResponseBytes: positive("maxResponseBytes", options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES),
    });
    this.maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
    this.#headers = { ...options.headers };
    this.#transport = new HttpTransport(options.tls);
    this.#sleep = options.sleep ?? realSleep;
    this.#clock = options.clock ?? Date.now;
    this.raw = createClient<paths>({
      baseUrl: this.baseUrl.href.replace(/\/$/, ""),
      pathSerializer,
      fetch: (request: Request) => this.#send(request, this.#context(undefined, request)),
    });
    for (const [method, id] of Object.entries(METHOD_NAMES)) {
      Object.defineProperty(this, method, {
        value: (request?: unknown, callOptions?: CallOptions) => this.#call(id, request, callOptions),
        enumerable: false,
      });
    }
  }

  /** Call an operation by its operationId: `await api.call("restart_task", { path: { task_id: "1001" } })`. */
  call<K extends OperationId>(operation: K, ...args: CallArguments<K, CallOptions>): Promise<ResultOf<K>> {
    return this.#call(operation, args[0], args[1]) as Promise<ResultOf<K>>;
  }

  /**
   * Every item of a list operation, page after page: `for await (const item of api.paginate(...))`. Filters and
   * `page_size` go in `request.query`; the page token is set by the walk. A token the server repeats is a
   * `PagingLoopError`; more than `maxPages` pages a `PageLimitError`.
   */
  paginate<K extends PagedOperationId>(operation: K, ...args: PaginateArguments<K>): AsyncGenerator<ItemOf<K>, void, undefined> {
    const [request, options = {}] = args as [PagedRequestOf<K> | undefined, PaginateOptions | undefined];
    const info = lookup(operation);
    if (info.paging === null) throw new TypeError(`${operation} is not a paged operation`);
    const paging = info.paging;
    const base = (request ?? {}) as { query?: Record<string, unknown> };
    const fetchPage = (token: string | undefined): Promise<unknown> =>
      this.#call(operation, { ...base, query: { ...base.query, ...(token === undefined ? {} : { [paging.tokenParam]: token }) } }, options);
    return iterate<ItemOf<K>>(fetchPage, paging, options.maxPages ?? this.maxPages);
  }

  /** Close idle connections (the client stays usable). */
  close(): void {
    this.#transport.close();
  }

  #context(operation: string | undefined, request: Request | undefined, options: CallOptions = {}): SendContext {
    const info = operation !== undefined ? lookup(operation) : request ? matchOperation(request.method, new URL(request.url).pathname) : undefined;
    const idempotent = info ? info.idempotent : request ? IDEMPOTENT.has(request.method) : false;
    const policy =
      options.retry === undefined ? (idempotent ? this.retry : NO_RETRY) : options.retry === true ? (this.retry.retries > 0 ? this.retry : DEFAULT_RETRY) : retryPolicy(options.retry);
    const limits = options.timeoutMs === undefined ? this.limits : { ...this.limits, timeoutMs: positive("timeoutMs", options.timeoutMs, 1) };
    return { operation: operation ?? undefined, info, policy, limits, signal: options.signal, deadline: deadlineOf(limits) };
  }

  async #call(operation: string, request: unknown, options: CallOptions = {}): Promise<unknown> {
    const info = lookup(operation);
    const context = this.#context(operation, undefined, options);
    const { path, query, header, body } = (request ?? {}) as { path?: object; query?: object; header?: object; body?: unknown };
    const form = info.bodyType === "application/x-www-form-urlencoded";

    // openapi-fetch builds and sends the request; the answer is read here (`readResult`), never by its JSON parser.
    const send = this.raw.request as unknown as (method: string, path: string, init: object) => Promise<{ response: Response }>;
    const result = await send(info.method.toLowerCase(), info.path, {
      params: { path, query, header },
      body,
      parseAs: "stream",
      headers: { ...options.headers, ...(form ? { "content-type": info.bodyType } : {}) },
      ...(form ? { bodySerializer: (value: unknown) => new URLSearchParams(value as Record<string, string>).toString() } : {}),
      fetch: (outgoing: Request) => this.#send(outgoing, context),
    });
    const answer = context.answer;
    if (answer === undefined) throw new InvalidResponseError(`${operation}: no answer was received`);
    if (result.response.ok) return readResult(operation, info, answer);
    throw errorFromResponse(answer.status, answer.headers, answer.body.toString("utf8"), operation);
  }

  async #authorization(context: SendContext): Promise<string | undefined> {
    if (this.#token !== undefined) return `Bearer ${this.#token}`;
    if (this.credentials === undefined) return undefined;
    const token = await this.credentials.token((form, headers) => this.#fetchToken(form, headers, context), this.#clock);
    return `Bearer ${token}`;
  }

  /** The token request of a call: within what is left of that call's deadline (its signal aborts it). */
  async #fetchToken(form: URLSearchParams, headers: Record<string, string>, context: SendContext): Promise<unknown> {
    if (TOKEN_URL === null) throw new AccessGovError("the contract has no OAuth2 client-credentials flow");
    const url = new URL(TOKEN_URL, this.baseUrl.href.endsWith("/") ? this.baseUrl.href : `${this.baseUrl.href}/`);
    if (TOKEN_URL.startsWith("/")) url.pathname = this.baseUrl.pathname.replace(/\/$/, "") + TOKEN_URL;
    // A token request is retried as the contract's token operation says (`x-idempotent`), like any other call.
    const policy = matchOperation("POST", url.pathname)?.idempotent === false ? NO_RETRY : this.retry;
    const { answer } = await exchange(
      this.#transport,
      {
        method: "POST",
        url,
        headers: {
          ...this.#defaultHeaders(),
          ...headers,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: Buffer.from(form.toString(), "utf8"),
      },
      { limits: context.limits, policy, sleep: this.#sleep, signal: context.signal, deadline: context.deadline },
    );
    const text = answer.body.toString("utf8");
    if (answer.status < 200 || answer.status >= 300) throw errorFromResponse(answer.status, answer.headers, text, "get_token");
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new InvalidResponseError("the token endpoint's answer is not JSON", { cause: error });
    }
  }

  #defaultHeaders(): Record<string, string> {
    return { "user-agent": USER_AGENT, accept: "application/json", "accept-encoding": ACCEPT_ENCODING, ...lowerKeys(this.#headers) };
  }

  async #send(request: Request, context: SendContext): Promise<Response> {
    const url = new URL(request.url);
    const headers: Record<string, string> = this.#defaultHeaders();
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    let sentToken: string | undefined;
    // The tenant credential goes to the base URL's origin only, and only with operations that take it.
    if ((context.info?.credential ?? true) && sameOrigin(url, this.baseUrl) && headers.authorization === undefined) {
      const authorization = await this.#authorization(context);
      if (authorization !== undefined) {
        headers.authorization = authorization;
        sentToken = authorization.slice("Bearer ".length);
      }
    }
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    const { answer } = await exchange(this.#transport, { method: request.method, url, headers, body }, {
      limits: context.limits,
      policy: context.policy,
      sleep: this.#sleep,
      signal: context.signal,
      deadline: context.deadline,
    });
    context.answer = answer;
    if (answer.status === 401 && sentToken !== undefined) this.credentials?.invalidate(sentToken);
    if (answer.status < 200 || answer.status > 599) {
      throw new InvalidResponseError(`${request.method} ${url.pathname}: HTTP status ${answer.status} is not one an API answers`);
    }
    return new Response(NULL_BODY_STATUSES.has(answer.status) ? null : answer.body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    });
  }
}

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]);

function lowerKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

const TEMPLATES = Object.entries(OPERATIONS).map(([id, info]) => ({
  id,
  info: info as OperationInfo,
  pattern: new RegExp(`${info.path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]+")}$`),
}));

/** The operation a request of the raw client belongs to (method and path template), if any. */
function matchOperation(method: string, pathname: string): OperationInfo | undefined {
  return TEMPLATES.find((entry) => entry.info.method === method.toUpperCase() && entry.pattern.test(pathname))?.info;
}
