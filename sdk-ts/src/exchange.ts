/** One request with its retries: what the client and the webhook sender send through. */

import { backoffMs, isRetryableError, type RetryPolicy, type Sleep } from "./retry.js";
import type { HttpTransport, IncomingAnswer, Limits, OutgoingRequest } from "./transport.js";

export interface ExchangeOptions {
  readonly limits: Limits;
  /** `NO_RETRY` for a request that must not be repeated. */
  readonly policy: RetryPolicy;
  readonly sleep: Sleep;
  readonly signal?: AbortSignal | undefined;
  readonly random?: () => number;
}

/**
 * Send `request`, again after a retryable error or status while the policy allows, waiting as it says; the last
 * answer is returned (a retried-out 503 too), the last error thrown. `retries` counts the attempts after the first.
 */
export async function exchange(
  transport: HttpTransport,
  request: OutgoingRequest,
  options: ExchangeOptions,
): Promise<{ answer: IncomingAnswer; retries: number }> {
  const { policy } = options;
  for (let attempt = 0; ; attempt++) {
    let answer: IncomingAnswer;
    try {
      answer = await transport.send(request, options.limits, options.signal);
    } catch (error) {
      if (attempt >= policy.retries || !isRetryableError(error) || options.signal?.aborted) throw error;
      await options.sleep(backoffMs(policy, attempt + 1, null, options.random), options.signal);
      continue;
    }
    if (attempt >= policy.retries || !policy.statuses.has(answer.status)) return { answer, retries: attempt };
    await options.sleep(backoffMs(policy, attempt + 1, answer.headers.get("retry-after"), options.random), options.signal);
  }
}
