/**
 * Retries with backoff, where the Python SDK retries and only there: a request that may be repeated (every GET,
 * and the operations the contract marks `x-idempotent`: a webhook delivery, a token request) is sent again after a
 * connection error, a timeout, a 429 or a 5xx; 3 retries, exponential backoff of about 1, 2, 4 s with full jitter,
 * or the server's `Retry-After` (seconds or an HTTP date, capped at 30 s). A task restart is sent once unless the
 * call asks for retries (`retry: true`). All within the call's one deadline (`timeoutMs`): a wait that would end
 * past it is not started, and an attempt that ran it out is not retried (exchange.ts).
 */

import { ConnectionError, DeadlineExceededError } from "./errors.js";

export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number;
  /** The n-th retry waits `backoffFactorMs * 2 ** n` (n from 1), jittered, capped by `maxBackoffMs`. */
  readonly backoffFactorMs: number;
  /** 1: full jitter (uniformly 0..wait); 0: none. */
  readonly jitter: number;
  /** Cap of any one wait, `Retry-After` included. */
  readonly maxBackoffMs: number;
  /** Whether a `Retry-After` header sets the wait. */
  readonly respectRetryAfter: boolean;
  /** Statuses that are retried. */
  readonly statuses: ReadonlySet<number>;
}

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, ...Array.from({ length: 100 }, (_, i) => 500 + i)]);

/** httpx-retries' policy of the Python SDK (`DEFAULT_RETRY`): 3 retries, 0.5 s factor, full jitter, 30 s cap. */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  retries: 3,
  backoffFactorMs: 500,
  jitter: 1,
  maxBackoffMs: 30_000,
  respectRetryAfter: true,
  statuses: RETRY_STATUSES,
});

export const NO_RETRY: RetryPolicy = Object.freeze({ ...DEFAULT_RETRY, retries: 0 });

/** `true`: the default policy; `false`/`null`: none; a partial policy: the default with those fields changed. */
export type RetryOption = boolean | null | Partial<RetryPolicy>;

export function retryPolicy(option: RetryOption | undefined, fallback: RetryPolicy = DEFAULT_RETRY): RetryPolicy {
  if (option === undefined || option === true) return fallback.retries > 0 ? fallback : DEFAULT_RETRY;
  if (option === false || option === null) return NO_RETRY;
  const policy = { ...DEFAULT_RETRY, ...option };
  for (const key of ["retries", "backoffFactorMs", "jitter", "maxBackoffMs"] as const) {
    if (!Number.isFinite(policy[key]) || policy[key] < 0) throw new RangeError(`retry.${key} must be a number >= 0`);
  }
  if (policy.jitter > 1) throw new RangeError("retry.jitter must be between 0 and 1");
  return Object.freeze(policy);
}

/** Errors of an attempt that a retry may cure: the connection, a deadline. Not a too-large or unreadable answer. */
export function isRetryableError(error: unknown): boolean {
  return error instanceof ConnectionError || error instanceof DeadlineExceededError;
}

/** The server's `Retry-After` in ms (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  const text = (value ?? "").trim();
  if (!text) return undefined;
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** How long to wait before retry number `attempt` (1, 2, ...): `Retry-After` when given and > 0, else backoff. */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfter: string | null, random: () => number = Math.random): number {
  if (policy.respectRetryAfter) {
    const wanted = retryAfterMs(retryAfter);
    if (wanted !== undefined && wanted > 0) return Math.min(wanted, policy.maxBackoffMs);
  }
  if (policy.backoffFactorMs === 0) return 0;
  const wait = policy.backoffFactorMs * 2 ** attempt;
  const jittered = wait * (1 - policy.jitter + policy.jitter * random());
  return Math.min(jittered, policy.maxBackoffMs);
}

/** Waits `ms` (rejecting with the signal's reason when it aborts first); tests give the clients their own. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
