/**
 * Both sides of the inbound webhook protocol.
 *
 * Sender: `WebhookSender` signs a body (HMAC, or a JWT signed with `jose`: RS256, ES256, EdDSA) and delivers it,
 * with a fresh UUID v4 event id, the current timestamp, and retries that resend the same bytes and headers (the
 * listener's idempotency makes them safe: a 409 after a retry means an earlier attempt got through).
 *
 * Receiver: `verifyWebhook` checks a delivery as the contract describes an HMAC listener doing it: the headers,
 * the 5-minute timestamp window, a UUID v4 event id, the 64 KB body limit, and the signature (constant time,
 * against each of several secrets). Remembering event ids for 7 days (the 409 of a replay) is the caller's.
 *
 * The HMAC: `Webhook-Signature` = base64url without padding of HMAC-SHA256 over `{timestamp}.{event_id}.{body}`
 * (the header texts as sent, the exact body bytes), keyed with the secret *text* UTF-8 encoded, not decoded.
 */

import { createHash, createHmac, createPrivateKey, randomUUID, timingSafeEqual, type KeyObject } from "node:crypto";

import { SignJWT } from "jose";

import { AccessGovError, errorFromResponse, InvalidResponseError } from "./errors.js";
import { exchange } from "./exchange.js";
import { DEFAULT_RETRY, retryPolicy, sleep as realSleep, type RetryOption, type Sleep } from "./retry.js";
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, HttpTransport, type Limits } from "./transport.js";

export const TIMESTAMP_WINDOW_SECONDS = 300;
export const MAX_BODY_BYTES = 64 * 1024;
/** Listeners refuse a JWT whose `exp` is more than 10 minutes ahead. */
export const MAX_JWT_LIFETIME_SECONDS = 600;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const UUID4 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
const TIMESTAMP = /^[0-9]{1,12}$/;

export type Body = Uint8Array | string;

function bytes(body: Body): Buffer {
  return typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** base64url without padding. */
export function b64url(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64url");
}

/** The `Webhook-Signature` of a delivery. */
export function hmacSignature(secret: string, timestamp: string, eventId: string, body: Body): string {
  return createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(Buffer.from(`${timestamp}.${eventId}.`, "utf8"))
    .update(bytes(body))
    .digest("base64url");
}

/** The JWT `htb_s256` claim of a body: base64url (no padding) of its SHA-256. */
export function bodyHash(body: Body): string {
  return createHash("sha256").update(bytes(body)).digest("base64url");
}

/** The exact bytes to sign and send: bytes as given, text as UTF-8, anything else as compact JSON. */
export function encodeBody(body: unknown): Buffer {
  if (body instanceof Uint8Array || typeof body === "string") return bytes(body);
  const text = JSON.stringify(body);
  if (text === undefined) throw new TypeError("the webhook body must be bytes, text or a JSON value");
  return Buffer.from(text, "utf8");
}

/** RS256 for RSA, ES256 for EC P-256, EdDSA for Ed25519: the algorithms listeners accept. */
export function jwtAlgorithm(key: KeyObject): "RS256" | "ES256" | "EdDSA" {
  if (key.type !== "private") throw new TypeError("the JWT key must be a private key");
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1") return "ES256";
  if (key.asymmetricKeyType === "ed25519") return "EdDSA";
  throw new TypeError("the JWT key must be an RSA, EC P-256 or Ed25519 private key");
}

interface CommonSenderOptions {
  /** The listener's URL. */
  readonly url: string;
  /** The policy for deliveries (retried by default: a delivery is idempotent by its event id); `false`: once. */
  readonly retry?: RetryOption;
  /** Deadline of one `send` (default 30 s), its retries and their waits included. */
  readonly timeoutMs?: number;
  readonly connectTimeoutMs?: number;
  readonly maxResponseBytes?: number;
  /** The current time in ms since the epoch (tests set it). */
  readonly clock?: () => number;
  /** How retries wait (tests set it). */
  readonly sleep?: Sleep;
}

export interface HmacSenderOptions extends CommonSenderOptions {
  /** The listener's signing secret, as the service gave it. */
  readonly secret: string;
}

export interface JwtSenderOptions extends CommonSenderOptions {
  /** Your private key: PEM text (PKCS#8, or PKCS#1 / SEC1) or a `KeyObject`. */
  readonly privateKey: string | KeyObject;
  /** Its `kid` in the JWKS you publish. */
  readonly kid: string;
  /** Your tenant's base URL: the `sub` claim. */
  readonly tenantBaseUrl: string;
  /** The `aud` claim when the listener knows its URL by another address than `url` (behind a proxy). */
  readonly audience?: string;
  /** `exp` - `iat`: 5 minutes by default, at most 10. */
  readonly jwtLifetimeSeconds?: number;
}

export type WebhookSenderOptions = HmacSenderOptions | JwtSenderOptions;

/** An accepted delivery: the listener's status, headers and parsed body (`{eventId, automationRun}`). */
export interface Delivery {
  readonly status: number;
  readonly headers: Headers;
  readonly data: unknown;
  /** How many times it was sent again after the first attempt. */
  readonly retries: number;
}

/** Signs and delivers webhooks to one listener URL. */
export class WebhookSender {
  readonly url: URL;
  readonly #secret: string | undefined;
  readonly #jwt: { key: KeyObject; algorithm: string; kid: string; sub: string; aud: string; lifetime: number } | undefined;
  readonly #retry;
  readonly #limits: Limits;
  readonly #clock: () => number;
  readonly #sleep: Sleep;
  readonly #transport = new HttpTransport();

  constructor(options: WebhookSenderOptions) {
    this.url = new URL(options.url);
    const hmac = "secret" in options && options.secret !== undefined;
    const jwt = "privateKey" in options && options.privateKey !== undefined;
    if (hmac === jwt) throw new TypeError("give exactly one of secret (HMAC) and privateKey (JWT)");
    if (hmac) {
      this.#secret = (options as HmacSenderOptions).secret;
    } else {
      const o = options as JwtSenderOptions;
      if (!o.kid || !o.tenantBaseUrl) throw new TypeError("the JWT method needs kid and tenantBaseUrl");
      const lifetime = o.jwtLifetimeSeconds ?? 300;
      if (!(lifetime > 0 && lifetime <= MAX_JWT_LIFETIME_SECONDS)) {
        throw new RangeError(`jwtLifetimeSeconds must be 1..${MAX_JWT_LIFETIME_SECONDS}`);
      }
      const key = typeof o.privateKey === "string" ? createPrivateKey(o.privateKey) : o.privateKey;
      this.#jwt = { key, algorithm: jwtAlgorithm(key), kid: o.kid, sub: o.tenantBaseUrl, aud: o.audience ?? options.url, lifetime };
    }
    this.#retry = retryPolicy(options.retry, DEFAULT_RETRY);
    this.#limits = {
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    };
    this.#clock = options.clock ?? Date.now;
    this.#sleep = options.sleep ?? realSleep;
  }

  /** The headers of one delivery of `body`: a fresh UUID v4 event id and the current time unless given. */
  async headers(body: Body, options: { eventId?: string; timestamp?: number } = {}): Promise<Record<string, string>> {
    const eventId = options.eventId ?? randomUUID();
    const now = options.timestamp ?? Math.floor(this.#clock() / 1000);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "webhook-timestamp": String(now),
      "webhook-event-id": eventId,
    };
    if (this.#secret !== undefined) {
      headers["webhook-signature"] = hmacSignature(this.#secret, String(now), eventId, body);
      return headers;
    }
    const jwt = this.#jwt!;
    const token = await new SignJWT({ htm: "POST", htb_s256: bodyHash(body) })
      .setProtectedHeader({ alg: jwt.algorithm, kid: jwt.kid, typ: "JWT" })
      .setSubject(jwt.sub)
      .setAudience(jwt.aud)
      .setIssuedAt(now)
      .setExpirationTime(now + jwt.lifetime)
      .setJti(eventId)
      .sign(jwt.key);
    headers.authorization = `Bearer ${token}`;
    return headers;
  }

  /** Sign and POST `body` (bytes or text as given, other values as compact JSON); throws `ApiError` if refused. */
  async send(body: unknown, options: { eventId?: string; signal?: AbortSignal } = {}): Promise<Delivery> {
    const data = encodeBody(body);
    const headers = await this.headers(data, options.eventId === undefined ? {} : { eventId: options.eventId });
    const { answer, retries } = await exchange(
      this.#transport,
      { method: "POST", url: this.url, headers, body: data },
      { limits: this.#limits, policy: this.#retry, sleep: this.#sleep, signal: options.signal },
    );
    const text = answer.body.toString("utf8");
    const ok = answer.status >= 200 && answer.status < 300;
    if (!ok && !(answer.status === 409 && retries > 0)) {
      throw errorFromResponse(answer.status, answer.headers, text, "receive_webhook");
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      if (ok) throw new InvalidResponseError("the listener's answer is not JSON");
    }
    return { status: answer.status, headers: answer.headers, data: parsed, retries };
  }

  /** Close idle connections. */
  close(): void {
    this.#transport.close();
  }
}

/** A delivery that does not verify: `status` and `code` are what a listener answers (400, 401 or 413). */
export class WebhookVerificationError extends AccessGovError {
  override name = "WebhookVerificationError";
  constructor(
    readonly status: 400 | 401 | 413,
    readonly code: string,
    message: string,
    /** The header concerned, when there is one. */
    readonly header?: string,
  ) {
    super(message);
  }
}

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    // Node's IncomingMessage.headers joins repeated headers; an array here is a repeated header: refused.
    return Array.isArray(value) ? (value.length === 1 ? value[0] : "\u0000repeated") : value;
  }
  return undefined;
}

export interface VerifyOptions {
  /** The listener's signing secret, or several (the current one and a previous one in its rotation grace). */
  readonly secret: string | readonly string[];
  /** The request's headers (a fetch `Headers`, or Node's `IncomingMessage.headers`). */
  readonly headers: HeaderSource;
  /** The exact body bytes received. */
  readonly body: Body;
  /** The current time in ms since the epoch (default: now). */
  readonly now?: number;
  /** The timestamp window either way (default 300 s). */
  readonly toleranceSeconds?: number;
}

/** A delivery that verified: its event id (keep it 7 days and answer a repeat with 409) and timestamp. */
export interface VerifiedDelivery {
  readonly eventId: string;
  readonly timestamp: number;
}

/** Verify an HMAC delivery as a listener does; throws `WebhookVerificationError` with the listener's status and code. */
export function verifyWebhook(options: VerifyOptions): VerifiedDelivery {
  const body = bytes(options.body);
  if (body.length > MAX_BODY_BYTES) {
    throw new WebhookVerificationError(413, "PAYLOAD_TOO_LARGE", `the body is over ${MAX_BODY_BYTES} bytes`);
  }
  const timestamp = header(options.headers, "webhook-timestamp");
  if (!timestamp) throw new WebhookVerificationError(400, "MISSING_HEADER", "the Webhook-Timestamp header is required", "Webhook-Timestamp");
  if (!TIMESTAMP.test(timestamp)) {
    throw new WebhookVerificationError(400, "INVALID_TIMESTAMP", "Webhook-Timestamp must be whole Unix seconds (digits only)", "Webhook-Timestamp");
  }
  const window = options.toleranceSeconds ?? TIMESTAMP_WINDOW_SECONDS;
  const skew = Math.abs(Number(timestamp) - Math.floor((options.now ?? Date.now()) / 1000));
  if (skew > window) {
    throw new WebhookVerificationError(400, "TIMESTAMP_OUT_OF_WINDOW", `Webhook-Timestamp is ${skew} seconds away (limit ${window})`, "Webhook-Timestamp");
  }
  const eventId = header(options.headers, "webhook-event-id");
  if (!eventId) throw new WebhookVerificationError(400, "MISSING_HEADER", "the Webhook-Event-Id header is required", "Webhook-Event-Id");
  if (!UUID.test(eventId)) throw new WebhookVerificationError(400, "INVALID_EVENT_ID", "Webhook-Event-Id is not a UUID", "Webhook-Event-Id");
  if (!UUID4.test(eventId)) throw new WebhookVerificationError(400, "INVALID_EVENT_ID", "Webhook-Event-Id must be a UUID version 4", "Webhook-Event-Id");
  const signature = header(options.headers, "webhook-signature");
  if (!signature) {
    throw new WebhookVerificationError(401, "MISSING_AUTHENTICATION", "the Webhook-Signature header is required", "Webhook-Signature");
  }
  const received = Buffer.from(signature, "utf8");
  const secrets = typeof options.secret === "string" ? [options.secret] : options.secret;
  if (secrets.length === 0) throw new TypeError("verifyWebhook needs at least one secret");
  let matched = false;
  for (const secret of secrets) {
    // Every secret is compared, in constant time each, so the time taken does not say which one matched.
    const expected = Buffer.from(hmacSignature(secret, timestamp, eventId, body), "ascii");
    matched = (expected.length === received.length && timingSafeEqual(expected, received)) || matched;
  }
  if (!matched) {
    throw new WebhookVerificationError(401, "SIGNATURE_MISMATCH", "Webhook-Signature does not match the request", "Webhook-Signature");
  }
  return { eventId, timestamp: Number(timestamp) };
}

