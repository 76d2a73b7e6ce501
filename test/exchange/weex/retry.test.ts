// Retry policy per operation: reads retry, cancels only when safe, placements never.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, type EndpointId } from '../../../src/core/endpoints.ts';
import {
  BadResponseError,
  ExchangeError,
  OutcomeUnknownError,
  RateLimitedError,
  TransportError,
} from '../../../src/core/errors.ts';
import {
  DEFAULT_RETRY,
  RETRY_CLASS,
  backoffDelayMs,
  isRetryable,
  withRetry,
} from '../../../src/exchange/weex/retry.ts';

const transport = (): Error => new TransportError('refused', 'x');
const unknown = (): Error => new OutcomeUnknownError('timeout', 'x');
const limited = (ms = 0): Error => new RateLimitedError('429', 'x', ms);

/** Runs `withRetry` where attempt n fails with failures[n-1] (or succeeds past the list). */
async function attempts(id: EndpointId, failures: readonly Error[], maxAttempts = 5) {
  let calls = 0;
  const delays: number[] = [];
  const result = await withRetry(
    ENDPOINTS[id],
    (attempt) => {
      calls++;
      const f = failures[attempt - 1];
      return f ? Promise.reject(f) : Promise.resolve('ok');
    },
    { ...DEFAULT_RETRY, maxAttempts },
    {
      random: () => 0.5,
      sleep: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
    },
  ).catch((err: unknown) => err);
  return { result, calls, delays };
}

describe('retry classes', () => {
  it('follow the endpoint catalogue: idempotent reads are reads; placements never retry', () => {
    for (const e of Object.values(ENDPOINTS)) {
      if (e.idempotent) expect(RETRY_CLASS[e.id]).toBe('read');
      else expect(RETRY_CLASS[e.id]).not.toBe('read');
    }
    expect(RETRY_CLASS.placeOrder).toBe('never');
    expect(RETRY_CLASS.batchOrders).toBe('never');
    expect(RETRY_CLASS.cancelOrder).toBe('cancel');
  });

  it('reads retry transport, outcome-unknown and rate-limit failures, then succeed', async () => {
    const r = await attempts('fills', [transport(), unknown(), limited()]);
    expect(r).toMatchObject({ result: 'ok', calls: 4 });
  });

  it('reads give up after maxAttempts with the last error', async () => {
    const last = unknown();
    const r = await attempts('tickers', [transport(), transport(), last], 3);
    expect(r.result).toBe(last);
    expect(r.calls).toBe(3);
  });

  it('reads do not retry exchange errors or bad responses', async () => {
    for (const e of [
      new ExchangeError('40020', 'bad', 400, 'parameter', 'x'),
      new BadResponseError('shape', 'x', 'list'),
    ]) {
      expect(await attempts('history', [e])).toMatchObject({ result: e, calls: 1 });
    }
  });

  it('placements are attempted exactly once, whatever the failure', async () => {
    for (const id of ['placeOrder', 'batchOrders'] as const) {
      for (const e of [transport(), unknown(), limited()]) {
        expect(await attempts(id, [e])).toMatchObject({ result: e, calls: 1 });
      }
    }
  });

  it('cancel retries transport failures and 429, but not an unknown outcome', async () => {
    expect(await attempts('cancelOrder', [transport(), limited()])).toMatchObject({ result: 'ok', calls: 3 });
    const u = unknown();
    expect(await attempts('cancelOrder', [u])).toMatchObject({ result: u, calls: 1 });
    expect(isRetryable('cancel', unknown())).toBe(false);
  });
});

describe('backoff', () => {
  it('is exponential with equal jitter, capped, and never below a 429 retry-after', () => {
    const opts = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1000 };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (n, r) => {
          const exp = Math.min(1000, 100 * 2 ** (n - 1));
          const d = backoffDelayMs(n, transport(), opts, () => r);
          expect(d).toBeGreaterThanOrEqual(Math.floor(exp / 2));
          expect(d).toBeLessThanOrEqual(exp);
          expect(backoffDelayMs(n, limited(5000), opts, () => r)).toBeGreaterThanOrEqual(5000);
        },
      ),
    );
  });

  it('the injected sleep receives the delays', async () => {
    const r = await attempts('fills', [transport(), transport()]);
    expect(r.delays).toEqual([188, 375]);
  });
});
