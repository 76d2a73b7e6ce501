import { describe, expect, it } from 'vitest';
import { EMPTY, filter, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { RateLimitedError } from '../../src/core/errors.ts';
import type { Ticker, WireTicker } from '../../src/core/market.ts';
import { tickerFromWire } from '../../src/exchange/weex/mappers.ts';
import { backoffDelay, createTickerPoller, type PollerEvent } from '../../src/market/poller.ts';

function tk(symbol: string, ts: number, last = '100'): Ticker {
  const w: WireTicker = {
    symbol,
    last,
    best_bid: last,
    best_ask: last,
    high_24h: last,
    low_24h: last,
    volume_24h: '0',
    timestamp: String(ts),
    priceChangePercent: '0',
    base_volume: '0',
  };
  return tickerFromWire(w);
}

function scheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** A fetch that answers the i-th call with `replies[i]` (the last one repeats) and counts the calls. */
function scripted(replies: readonly (() => Observable<readonly Ticker[]>)[]): {
  fetch: () => Observable<readonly Ticker[]>;
  calls: () => number;
} {
  let n = 0;
  return {
    fetch: () => {
      const r = replies[Math.min(n, replies.length - 1)]!;
      n++;
      return r();
    },
    calls: () => n,
  };
}

describe('ticker poller', () => {
  it('never overlaps polls when responses are slower than the interval (exhaustMap)', () => {
    const ts = scheduler();
    let calls = 0;
    ts.run(({ cold, expectObservable }) => {
      const poller = createTickerPoller({
        intervalMs: 10,
        scheduler: ts,
        fetchTickers: () => {
          calls++;
          // Every reply takes 45 ms: ticks at 10..40 fall inside the first poll and are dropped.
          return cold('45ms (a|)', { a: [tk('A', 1000 + calls)] });
        },
      });
      const values = { a: [tk('A', 1001)], b: [tk('A', 1002)], c: [tk('A', 1003)] };
      // Polls start at 0, 50, 100 (the first tick after the previous reply) and reply 45 ms later.
      expectObservable(poller.tickers$, '150ms !').toBe('45ms a 49ms b 49ms c', values);
    });
    expect(calls).toBe(3);
  });

  it('retries a failed poll with exponential backoff, publishes each failure, and recovers', () => {
    const ts = scheduler();
    const script = scripted([
      () => ts.createColdObservable('-----#', undefined, 'boom'),
      () => ts.createColdObservable('-----#', undefined, 'boom'),
      () => ts.createColdObservable('--(a|)', { a: [tk('A', 7)] }),
    ]);
    ts.run(({ expectObservable }) => {
      const poller = createTickerPoller({
        intervalMs: 1000,
        scheduler: ts,
        fetchTickers: script.fetch,
        retry: { initialDelayMs: 100, factor: 2 },
      });
      // call 1 fails at 5 → retry after 100 ms; call 2 (at 105) fails at 110 → retry after 200 ms;
      // call 3 (at 310) answers at 312.
      expectObservable(poller.events$, '400ms !').toBe('5ms e 104ms f 201ms a', {
        e: { kind: 'error', at: 5, error: 'boom', attempt: 1, retryInMs: 100 },
        f: { kind: 'error', at: 110, error: 'boom', attempt: 2, retryInMs: 200 },
        a: { kind: 'tickers', at: 312, tickers: [tk('A', 7)] },
      } satisfies Record<string, PollerEvent>);
    });
    expect(script.calls()).toBe(3);
  });

  it('waits at least the retry-after of a rate-limit error, and gives a poll up after maxAttempts', () => {
    const ts = scheduler();
    const limited = new RateLimitedError('429', '/capi/v2/market/tickers', 500);
    const script = scripted([
      () => ts.createColdObservable('-#', undefined, limited),
      () => ts.createColdObservable('-#', undefined, 'down'),
      () => ts.createColdObservable('-(a|)', { a: [tk('A', 9)] }),
    ]);
    ts.run(({ expectObservable }) => {
      const poller = createTickerPoller({
        intervalMs: 1000,
        scheduler: ts,
        fetchTickers: script.fetch,
        retry: { initialDelayMs: 100, maxAttempts: 2 },
      });
      // 1: fails at 1, waits 500 (not 100); 2: at 501 fails at 502, gives up (maxAttempts 2);
      // the next tick (1000) polls again and succeeds at 1001.
      expectObservable(poller.events$, '1100ms !').toBe('1ms r 500ms g 498ms a', {
        r: { kind: 'error', at: 1, error: limited, attempt: 1, retryInMs: 500 },
        g: { kind: 'error', at: 502, error: 'down', attempt: 2, retryInMs: null },
        a: { kind: 'tickers', at: 1001, tickers: [tk('A', 9)] },
      } satisfies Record<string, PollerEvent>);
    });
  });

  it('publishes stale once when the exchange timestamp stops advancing, and fresh when it moves again', () => {
    const ts = scheduler();
    const stamps = [1, 2, 2, 2, 2, 3];
    let n = 0;
    ts.run(({ cold, expectObservable }) => {
      const poller = createTickerPoller({
        intervalMs: 10,
        scheduler: ts,
        staleAfterPolls: 3,
        fetchTickers: () => cold('(a|)', { a: [tk('A', stamps[Math.min(n++, stamps.length - 1)]!)] }),
      });
      const staleness = poller.events$.pipe(filter((e) => e.kind === 'stale' || e.kind === 'fresh'));
      // Polls at 0..50: timestamps 1, 2 (advance at 10), then 2, 2, 2 → stale at the third unchanged
      // poll (40); 3 at 50 → fresh.
      expectObservable(staleness, '55ms !').toBe('40ms s 9ms f', {
        s: { kind: 'stale', at: 40, exchangeTime: 2, unchangedPolls: 3, sinceMs: 30 },
        f: { kind: 'fresh', at: 50, exchangeTime: 3 },
      } satisfies Record<string, PollerEvent>);
    });
  });

  it('can also declare staleness by elapsed scheduler time', () => {
    const ts = scheduler();
    let n = 0;
    ts.run(({ cold, expectObservable }) => {
      const poller = createTickerPoller({
        intervalMs: 10,
        scheduler: ts,
        staleAfterPolls: 100,
        staleAfterMs: 15,
        fetchTickers: () => cold('(a|)', { a: [tk('A', n++ === 0 ? 1 : 5)] }),
      });
      const stale = poller.events$.pipe(filter((e) => e.kind === 'stale'));
      // Advances at 0 (1) and 10 (5); unchanged at 20 (10 ms) and 30 (20 ms ≥ 15) → stale at 30.
      expectObservable(stale, '45ms !').toBe('30ms s', {
        s: { kind: 'stale', at: 30, exchangeTime: 5, unchangedPolls: 2, sinceMs: 20 },
      } satisfies Record<string, PollerEvent>);
    });
  });

  it('splits per symbol into shared streams with duplicate and older timestamps removed', () => {
    const ts = scheduler();
    const polls: Ticker[][] = [
      [tk('A', 1), tk('B', 1)],
      [tk('A', 1), tk('B', 2)], // A duplicate
      [tk('A', 3), tk('B', 2)], // B duplicate
      [tk('A', 2), tk('B', 3)], // A older than the last one seen
    ];
    let calls = 0;
    ts.run(({ cold, expectObservable }) => {
      const poller = createTickerPoller({
        intervalMs: 10,
        scheduler: ts,
        fetchTickers: () => cold('(a|)', { a: polls[Math.min(calls++, polls.length - 1)]! }),
      });
      expect(poller.bySymbol('A')).toBe(poller.bySymbol('A'));
      expectObservable(poller.bySymbol('A'), '35ms !').toBe('a 19ms c', { a: tk('A', 1), c: tk('A', 3) });
      expectObservable(poller.bySymbol('B'), '35ms !').toBe('a 9ms b 19ms c', {
        a: tk('B', 1),
        b: tk('B', 2),
        c: tk('B', 3),
      });
    });
    // Both symbol streams share one poll per tick.
    expect(calls).toBe(4);
  });

  it('takes the gate before every request, retries included, and treats a completing gate as open', () => {
    const ts = scheduler();
    let gates = 0;
    const script = scripted([
      () => ts.createColdObservable('-#', undefined, 'x'),
      () => ts.createColdObservable('-(a|)', { a: [tk('A', 1)] }),
    ]);
    ts.run(({ cold, expectObservable }) => {
      const poller = createTickerPoller({
        intervalMs: 1000,
        scheduler: ts,
        retry: { initialDelayMs: 10 },
        // First gate waits 4 ms (budget exhausted), the second is immediately open (completes empty).
        gate: () => (gates++ === 0 ? cold('----(x|)') : EMPTY),
        fetchTickers: script.fetch,
      });
      // gate 0..4, call 1 fails at 5; retry at 15: gate open, call 2 answers at 16.
      expectObservable(poller.events$, '100ms !').toBe('5ms e 10ms a', {
        e: { kind: 'error', at: 5, error: 'x', attempt: 1, retryInMs: 10 },
        a: { kind: 'tickers', at: 16, tickers: [tk('A', 1)] },
      } satisfies Record<string, PollerEvent>);
    });
    expect(gates).toBe(2);
  });

  it('computes capped exponential backoff', () => {
    expect([1, 2, 3, 4, 10].map((n) => backoffDelay(n, { initialDelayMs: 100, maxDelayMs: 500 }))).toEqual([
      100, 200, 400, 500, 500,
    ]);
    expect(backoffDelay(1)).toBe(1000);
  });

  it('works with a promise-returning fetch on a real scheduler', async () => {
    const { asyncScheduler, firstValueFrom } = await import('rxjs');
    const poller = createTickerPoller({
      intervalMs: 5,
      scheduler: asyncScheduler,
      fetchTickers: () => Promise.resolve([tk('A', 1)]),
    });
    await expect(firstValueFrom(poller.bySymbol('A'))).resolves.toEqual(tk('A', 1));
  });
});
