/**
 * OAuth2 client credentials (the contract's `oauth` scheme): the access token is fetched from the contract's token
 * URL on first use, kept, and fetched again `leewaySeconds` (60) before it expires; concurrent calls wait for one
 * fetch. Client authentication is HTTP Basic (`client_secret_basic`, RFC 6749 section 2.3.1: id and secret
 * form-urlencoded first) unless `authMethod` is `client_secret_post` (both in the form body). A refused request
 * throws the typed error with the RFC 6749 body (`code` = `error`, `message` = `error_description`).
 */

import { InvalidResponseError } from "./errors.js";

export interface ClientCredentialsOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes to ask for; none by default. */
  readonly scope?: string;
  readonly authMethod?: "client_secret_basic" | "client_secret_post";
  /** Fetch a new token this many seconds before the current one expires (default 60). */
  readonly leewaySeconds?: number;
}

/** An access token and when it expires (ms since the epoch; `Infinity` when the server gave no `expires_in`). */
export interface AccessToken {
  readonly value: string;
  readonly expiresAt: number;
}

/** Sends a token request (form fields, extra headers) and returns the parsed 2xx body; throws on refusal. */
export type TokenRequester = (form: URLSearchParams, headers: Record<string, string>) => Promise<unknown>;

function formEncode(value: string): string {
  // application/x-www-form-urlencoded of RFC 6749 appendix B (space as +), as section 2.3.1 asks before Basic.
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** The cached access token of one client, fetched through `request` and refreshed before it expires. */
export class ClientCredentials {
  readonly clientId: string;
  readonly scope: string | undefined;
  readonly authMethod: "client_secret_basic" | "client_secret_post";
  readonly leewaySeconds: number;
  readonly #secret: string;
  #token: AccessToken | undefined;
  #pending: Promise<AccessToken> | undefined;

  constructor(options: ClientCredentialsOptions) {
    if (!options.clientId || !options.clientSecret) throw new TypeError("clientId and clientSecret are required");
    this.clientId = options.clientId;
    this.#secret = options.clientSecret;
    this.scope = options.scope;
    this.authMethod = options.authMethod ?? "client_secret_basic";
    this.leewaySeconds = options.leewaySeconds ?? 60;
    if (!(this.leewaySeconds >= 0)) throw new RangeError("leewaySeconds must be >= 0");
  }

  /** A current access token: the cached one, or one fetched now (one fetch at a time). */
  async token(request: TokenRequester, now: () => number = Date.now): Promise<string> {
    const current = this.#token;
    if (current && now() < current.expiresAt - this.leewaySeconds * 1000) return current.value;
    this.#pending ??= this.#fetch(request, now).finally(() => {
      this.#pending = undefined;
    });
    return (await this.#pending).value;
  }

  /** Forget the cached token (after a 401 with it, say): the next call fetches a new one. */
  invalidate(value?: string): void {
    if (value === undefined || this.#token?.value === value) this.#token = undefined;
  }

  async #fetch(request: TokenRequester, now: () => number): Promise<AccessToken> {
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (this.scope) form.set("scope", this.scope);
    const headers: Record<string, string> = {};
    if (this.authMethod === "client_secret_post") {
      form.set("client_id", this.clientId);
      form.set("client_secret", this.#secret);
    } else {
      const pair = `${formEncode(this.clientId)}:${formEncode(this.#secret)}`;
      headers.authorization = `Basic ${Buffer.from(pair, "utf8").toString("base64")}`;
    }
    const started = now();
    const body = await request(form, headers);
    const parsed = body as { access_token?: unknown; token_type?: unknown; expires_in?: unknown } | null;
    if (typeof parsed?.access_token !== "string" || !/^[\x21-\x7e]{1,8192}$/.test(parsed.access_token)) {
      // Visible ASCII only (RFC 6750's b64token, loosely): the token goes into an Authorization header as it came.
      throw new InvalidResponseError("the token endpoint's answer has no access_token the SDK can send (a non-empty string of visible ASCII)");
    }
    if (typeof parsed.token_type === "string" && parsed.token_type.toLowerCase() !== "bearer") {
      throw new InvalidResponseError(`the token endpoint issued a ${parsed.token_type} token, not a Bearer token`);
    }
    const lifetime = typeof parsed.expires_in === "number" && Number.isFinite(parsed.expires_in) ? parsed.expires_in : undefined;
    this.#token = { value: parsed.access_token, expiresAt: lifetime === undefined ? Infinity : started + lifetime * 1000 };
    return this.#token;
  }
}
