/** One request with its retries, within one deadline: what the client and the webhook sender send through. */

import { performance } from "node:perf_hooks";

import { DeadlineExceededError } from "./errors.js";
import { backoffMs, isRetryableError, type RetryPolicy, type Sleep } from "./retry.js";
import { deadlineText, type HttpTransport, type IncomingAnswer, type Limits, type OutgoingRequest } from "./transport.js";

export interface ExchangeOptions {
  readonly limits: Limits;
  /** `NO_RETRY` for a request that must not be repeated. */
  readonly policy: RetryPolicy;
  readonly sleep: Sleep;
  readonly signal?: AbortSignal | undefined;
  readonly random?: () => number;
  /** The call's deadline on the `monotonic()` clock, when the call started before this exchange (default: now + `limits.timeoutMs`). */
  readonly deadline?: number | undefined;
}

/** The clock deadlines are kept on (ms, monotonic: a change of the wall clock moves no deadline). */
export const monotonic = (): number => performance.now();

/** The deadline of a call that starts now and may take `limits.timeoutMs`. */
export function deadlineOf(limits: Limits): number {
  return monotonic() + limits.timeoutMs;
}

/**
 * Send `request`, again after a retryable error or status while the policy allows, waiting as it says; the last
 * answer is returned (a retried-out 503 too), the last error thrown. `retries` counts the attempts after the first.
 *
 * All of it within one deadline (`options.deadline`, else `limits.timeoutMs` from now): each attempt gets what is
 * left of it; a wait that would end past it is not started (the last answer is returned, the last error thrown, at
 * once); an attempt that ran out the deadline is not retried.
 */
export async function exchange(
  transport: HttpTransport,
  request: OutgoingRequest,
  options: ExchangeOptions,
): Promise<{ answer: IncomingAnswer; retries: number }> {
  const { policy, limits } = options;
  const deadline = options.deadline ?? deadlineOf(limits);
  const where = `${request.method} ${request.url.origin}${request.url.pathname}`;
  for (let attempt = 0; ; attempt++) {
    const left = deadline - monotonic();
    if (left <= 0) throw new DeadlineExceededError(`${where}: ${deadlineText(limits, 0)}`, "total");
    let answer: IncomingAnswer;
    try {
      answer = await transport.send(request, limits, options.signal, left);
    } catch (error) {
      if (attempt >= policy.retries || !isRetryableError(error) || options.signal?.aborted) throw error;
      if (error instanceof DeadlineExceededError && error.phase === "total") throw error;
      const wait = backoffMs(policy, attempt + 1, null, options.random);
      if (monotonic() + wait >= deadline) throw error;
      await options.sleep(wait, options.signal);
      continue;
    }
    if (attempt >= policy.retries || !policy.statuses.has(answer.status)) return { answer, retries: attempt };
    const wait = backoffMs(policy, attempt + 1, answer.headers.get("retry-after"), options.random);
    if (monotonic() + wait >= deadline) return { answer, retries: attempt };
    await options.sleep(wait, options.signal);
  }
}
