/**
 * Typed errors. Every error the SDK throws is an `AccessGovError`:
 *
 * - `ApiError` and its subclasses by status: a non-2xx answer, carrying the contract's `Error` body (`code`,
 *   `message`, `details`) or the token endpoint's RFC 6749 body (`code` = `error`, `message` =
 *   `error_description`);
 * - `ConnectionError`, `DeadlineExceededError`, `ResponseTooLargeError`, `InvalidResponseError`: the exchange
 *   itself failed, ran out of time, or the server sent more or other than the SDK accepts;
 * - `PagingLoopError`, `PageLimitError`: a list walk that would never end.
 *
 * The same names as the Python SDK's (`accessgov_client.exceptions`), in TypeScript spelling.
 */

import type { components } from "./generated/schema.js";

export type ErrorBody = components["schemas"]["Error"];
export type ErrorDetail = components["schemas"]["ErrorDetail"];
export type OAuthErrorBody = components["schemas"]["OAuthError"];

/** Base class of everything the SDK throws. */
export class AccessGovError extends Error {
  override name = "AccessGovError";
}

const MAX_SUMMARY = 200;
// C0 and C1 controls, and the bidirectional controls that reorder what a terminal shows.
const UNSHOWN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * Server text as an error message shows it: cut to `limit` characters, every control character (a line break, an
 * ANSI escape, a bidi override) written as its `\\uXXXX` escape, so an answer cannot add lines to a log or recolour
 * a terminal. The attributes (`code`, `body`, `error`) keep the text as sent.
 */
export function shown(text: string, limit = 300): string {
  return text.slice(0, limit).replace(UNSHOWN, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A non-2xx answer. `code`, `message` and `details` come from the body when the server sent an `Error` body. */
export class ApiError extends AccessGovError {
  override name = "ApiError";
  readonly status: number;
  readonly headers: Headers;
  /** The body as received (decoded as UTF-8). */
  readonly body: string;
  /** The operationId the request was made for, when there is one. */
  readonly operation: string | undefined;
  /** The parsed `Error` body, when the body is one. */
  readonly error: ErrorBody | undefined;
  /** The parsed RFC 6749 body of a refused token request, when the body is one. */
  readonly oauthError: OAuthErrorBody | undefined;
  /** The `Error` body's `code` (or the RFC 6749 `error`); `""` when the body has none. */
  readonly code: string;
  readonly details: ErrorDetail[];

  constructor(status: number, headers: Headers, body: string, operation?: string) {
    const parsed = parseJson(body);
    let error: ErrorBody | undefined;
    let oauthError: OAuthErrorBody | undefined;
    let code = "";
    let message = "";
    if (isRecord(parsed) && typeof parsed.code === "string" && typeof parsed.message === "string") {
      const details = Array.isArray(parsed.details) ? parsed.details.filter(isRecord) : [];
      error = { ...parsed, code: parsed.code, message: parsed.message, details: details as ErrorDetail[] };
      code = parsed.code;
      message = parsed.message;
    } else if (isRecord(parsed) && typeof parsed.error === "string") {
      const description = typeof parsed.error_description === "string" ? parsed.error_description : "";
      oauthError = { ...parsed, error: parsed.error, error_description: description };
      code = parsed.error;
      message = description;
    }
    const where = operation ? `${operation}: ` : "";
    const summary = code ? `${code}: ${message}` : body.slice(0, MAX_SUMMARY);
    super(shown(message) || `${where}HTTP ${status} ${shown(summary)}`.trim());
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.operation = operation;
    this.error = error;
    this.oauthError = oauthError;
    this.code = code;
    this.details = error?.details ?? [];
  }

  /** One line for logs: operation, status, code and message. */
  override toString(): string {
    const where = this.operation ? `${this.operation}: ` : "";
    return `${this.name}: ${where}HTTP ${this.status}${this.code ? ` ${shown(this.code, 100)}` : ""}: ${this.message}`;
  }
}

/** A 4xx answer: the request must change before it can succeed (except 429). */
export class ClientError extends ApiError {
  override name = "ClientError";
}
/** 400: the request breaks the contract (`details` names the field). */
export class BadRequestError extends ClientError {
  override name = "BadRequestError";
}
/** 401: missing, unknown or expired credentials. */
export class AuthenticationError extends ClientError {
  override name = "AuthenticationError";
}
/** 403: the credentials are valid but lack the permission (or the source address is not allowed). */
export class PermissionDeniedError extends ClientError {
  override name = "PermissionDeniedError";
}
/** 404: no such resource. */
export class NotFoundError extends ClientError {
  override name = "NotFoundError";
}
/** 409: the resource's state forbids the request (a closed task, a duplicate webhook event). */
export class ConflictError extends ClientError {
  override name = "ConflictError";
}
/** 413: the body exceeds the operation's limit. */
export class PayloadTooLargeError extends ClientError {
  override name = "PayloadTooLargeError";
}
/** 429: too many requests; `retryAfter` is the server's requested wait in seconds, when it sent one. */
export class RateLimitError extends ClientError {
  override name = "RateLimitError";
  get retryAfter(): number | undefined {
    const value = (this.headers.get("retry-after") ?? "").trim();
    return /^[0-9]+$/.test(value) ? Number(value) : undefined;
  }
}
/** 5xx: a fault of the server or an overload; idempotent calls are retried before this is thrown. */
export class ServerError extends ApiError {
  override name = "ServerError";
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  429: RateLimitError,
};

/** The error class of a status: the specific one, else the family's (`ClientError`, `ServerError`). */
export function errorClass(status: number): typeof ApiError {
  return BY_STATUS[status] ?? (status >= 500 ? ServerError : status >= 400 ? ClientError : ApiError);
}

/** The typed error of a non-2xx answer. */
export function errorFromResponse(status: number, headers: Headers, body: string, operation?: string): ApiError {
  const Class = errorClass(status);
  return new Class(status, headers, body, operation);
}

/** The connection failed or broke before the answer was complete (refused, reset, not HTTP). */
export class ConnectionError extends AccessGovError {
  override name = "ConnectionError";
}

/**
 * A call ran out of time: its `timeoutMs` (one deadline from the call's start to its answer's last byte, retries
 * and their waits included; `phase: "total"`, never retried), or an attempt's `connectTimeoutMs` (`"connect"`).
 */
export class DeadlineExceededError extends AccessGovError {
  override name = "DeadlineExceededError";
  constructor(
    message: string,
    /** `"connect"` when the connection was not made in time, `"total"` for the call's deadline. */
    readonly phase: "connect" | "total",
  ) {
    super(message);
  }
}

/** The answer was bigger than `maxResponseBytes`, as received or once decompressed. */
export class ResponseTooLargeError extends AccessGovError {
  override name = "ResponseTooLargeError";
  constructor(
    message: string,
    readonly limit: number,
  ) {
    super(message);
  }
}

/** The answer could not be read: a body that is not valid JSON or not what the operation returns, bad compression. */
export class InvalidResponseError extends AccessGovError {
  override name = "InvalidResponseError";
}

/** A list walk that would never end. */
export class PagingError extends AccessGovError {
  override name = "PagingError";
}

/** The server handed out a page token it had already given: following it would never end. */
export class PagingLoopError extends PagingError {
  override name = "PagingLoopError";
}

/** A walk reached `maxPages` pages and the server still had a next page. */
export class PageLimitError extends PagingError {
  override name = "PageLimitError";
  constructor(
    message: string,
    readonly maxPages: number,
  ) {
    super(message);
  }
}
