// Retry policy per operation (ARCHITECTURE.md invariant 3: reads and cancels may be retried,
// placements may not).
//
//   read   (time, contracts, tickers, history, fills, historyPlan, currentPlan): retry TransportError,
//          OutcomeUnknownError and RateLimitedError — a read has no effect at the exchange.
//   cancel (cancel_order, cancel_plan): retry TransportError (nothing was sent) and RateLimitedError (the
//          exchange refused before acting). Not OutcomeUnknownError: the cancel may have worked, and
//          a resent cancel of an order that is now gone answers 50005, which the caller must read as
//          "already gone" — the caller settles it from history instead.
//   never  (placeOrder, batchOrders, plan_order): no retry at all, not even a TransportError. Telling "not sent"
//          from "sent" relies on error codes; a duplicate order costs real money, so a placement is
//          attempted exactly once and the caller (executor + reconciliation) decides what follows,
//          keyed by the client_oid it persisted before sending.
//
// Back-off: exponential from `baseDelayMs`, capped at `maxDelayMs`, with "equal jitter" (half fixed,
// half random); a RateLimitedError waits at least its `retryAfterMs`. RNG and sleep are injected.
import type { Logger } from 'pino';
import { setTimeout as sleepTimer } from 'node:timers/promises';
import type { Endpoint, EndpointId } from '../../core/endpoints.ts';
import { OutcomeUnknownError, RateLimitedError, TransportError } from '../../core/errors.ts';

export type RetryClass = 'read' | 'cancel' | 'never';

export const RETRY_CLASS: Readonly<Record<EndpointId, RetryClass>> = {
  time: 'read',
  contracts: 'read',
  tickers: 'read',
  history: 'read',
  fills: 'read',
  historyPlan: 'read',
  currentPlan: 'read',
  cancelOrder: 'cancel',
  cancelPlan: 'cancel',
  placeOrder: 'never',
  batchOrders: 'never',
  planOrder: 'never',
};

export interface RetryOptions {
  /** Attempts in total (1 = no retry) for reads and cancels; placements always make exactly one. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 3, baseDelayMs: 250, maxDelayMs: 5_000 };

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryDeps {
  /** Uniform in [0, 1). */
  readonly random: () => number;
  readonly sleep: Sleep;
  readonly logger?: Logger;
  readonly signal?: AbortSignal;
}

export const realSleep: Sleep = async (ms, signal) => {
  await sleepTimer(ms, undefined, signal !== undefined ? { signal } : {});
};

export function retryClassOf(endpoint: Endpoint): RetryClass {
  return RETRY_CLASS[endpoint.id];
}

/** Whether a failure of an attempt of this class may be followed by another attempt. */
export function isRetryable(cls: RetryClass, err: unknown): boolean {
  switch (cls) {
    case 'read':
      return (
        err instanceof TransportError || err instanceof OutcomeUnknownError || err instanceof RateLimitedError
      );
    case 'cancel':
      return err instanceof TransportError || err instanceof RateLimitedError;
    case 'never':
      return false;
  }
}

export function maxAttemptsFor(cls: RetryClass, opts: RetryOptions): number {
  return cls === 'never' ? 1 : Math.max(1, Math.floor(opts.maxAttempts));
}

/** Delay before attempt `attempt + 1`, after attempt number `attempt` (1-based) failed with `err`. */
export function backoffDelayMs(
  attempt: number,
  err: unknown,
  opts: RetryOptions,
  random: () => number,
): number {
  const exp = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exp / 2 + random() * (exp / 2);
  const floor = err instanceof RateLimitedError ? err.retryAfterMs : 0;
  return Math.round(Math.max(floor, jittered));
}

/** Runs `fn` (given the 1-based attempt number) under the policy of the endpoint's retry class. */
export async function withRetry<T>(
  endpoint: Endpoint,
  fn: (attempt: number) => Promise<T>,
  opts: RetryOptions,
  deps: RetryDeps,
): Promise<T> {
  const cls = retryClassOf(endpoint);
  const max = maxAttemptsFor(cls, opts);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= max || !isRetryable(cls, err) || deps.signal?.aborted) throw err;
      const delay = backoffDelayMs(attempt, err, opts, deps.random);
      deps.logger?.warn(
        {
          endpoint: endpoint.id,
          attempt,
          delayMs: delay,
          error: err instanceof Error ? err.name : 'unknown',
        },
        'capi/v2 request failed; retrying',
      );
      try {
        await deps.sleep(delay, deps.signal);
      } catch {
        throw err;
      }
    }
  }
}
