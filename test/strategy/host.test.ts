import { map, NEVER, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { strategyId } from '../../src/core/ids.ts';
import type { Intent } from '../../src/core/intents.ts';
import type { Ticker } from '../../src/core/market.ts';
import type { Order } from '../../src/core/orders.ts';
import {
  hostStrategies,
  timerFromPulses,
  type HostedStrategy,
  type HostInputs,
  type HostOutput,
} from '../../src/strategy/host.ts';
import type { StrategyFill } from '../../src/strategy/types.ts';
import { BTC, ETH, makeTicker } from '../helpers/market.ts';

const A = strategyId('a');
const B = strategyId('b');

function placeAt(last: string): Intent {
  return {
    kind: 'place',
    symbol: BTC,
    side: 'open_long',
    size: dec('0.001'),
    price: dec(last),
    orderType: 'normal',
  };
}

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

function inputs(tickers$: Observable<Ticker>, clock$: Observable<number> = NEVER): HostInputs {
  const orders$: Observable<Order> = NEVER;
  const fills$: Observable<StrategyFill> = NEVER;
  return { tickers$, orders$, fills$, clock$ };
}

describe('strategy host isolation', () => {
  it('disables a strategy that throws and keeps the other one emitting', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const tickers = {
        a: makeTicker(BTC, '1'),
        b: makeTicker(BTC, '2'),
        c: makeTicker(BTC, '3'),
        d: makeTicker(BTC, '4'),
      };
      const tickers$ = hot('-a----b----c----d-', tickers);
      const thrower: HostedStrategy = {
        id: A,
        symbols: [BTC],
        instance: {
          onTicker: (t) => {
            if (t.last.eq(3)) throw new Error('boom at 3');
            return [placeAt(t.last.toFixed())];
          },
        },
      };
      const steady: HostedStrategy = {
        id: B,
        symbols: [BTC],
        instance: { onTicker: (t) => placeAt(t.last.toFixed()) },
      };
      const clock = { now: () => ts.now() };
      const out$ = hostStrategies([thrower, steady], inputs(tickers$), clock);
      const intent = (s: typeof A, last: string, at: number): HostOutput => ({
        kind: 'StrategyIntent',
        strategy: s,
        intent: placeAt(last),
        at,
      });
      expectObservable(out$).toBe('-(xy)-(zw)-(uv)-p-', {
        x: intent(A, '1', 1),
        y: intent(B, '1', 1),
        z: intent(A, '2', 6),
        w: intent(B, '2', 6),
        // The hook's name, the message, and the line of the strategy's code that threw.
        u: {
          kind: 'StrategyDisabled',
          strategy: A,
          reason: expect.stringMatching(
            /^onTicker threw boom at 3 \(test\/strategy\/host\.test\.ts:\d+:\d+\)$/,
          ),
          at: 11,
        },
        v: intent(B, '3', 11),
        p: intent(B, '4', 16),
      });
    });
  });

  it('disables a strategy that emits an invalid intent (foreign symbol, zero size)', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const tickers$ = hot('-a----b-', { a: makeTicker(BTC, '1'), b: makeTicker(BTC, '2') });
      // Both strategies end disabled, so the merged stream completes.
      const foreign: HostedStrategy = {
        id: A,
        symbols: [BTC],
        instance: { onTicker: () => ({ ...placeAt('1'), symbol: ETH }) },
      };
      const zero: HostedStrategy = {
        id: B,
        symbols: [BTC],
        instance: { onTicker: (t) => (t.last.eq(2) ? { ...placeAt('2'), size: dec(0) } : placeAt('1')) },
      };
      const out$ = hostStrategies([foreign, zero], inputs(tickers$), { now: () => ts.now() });
      expectObservable(
        out$.pipe(
          map((o) => (o.kind === 'StrategyDisabled' ? `${o.strategy}:${o.reason}` : `${o.strategy}:ok`)),
        ),
      ).toBe('-(xy)-(z|)', {
        x: "a:strategy a: invalid intent: symbol cmt_ethusdt is not one of the strategy's symbols",
        y: 'b:ok',
        z: 'b:strategy b: invalid intent: size: must be positive, got 0',
      });
    });
  });

  it('isolates stream-style strategies: an error in run() disables only that one', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const tickers$ = hot('-a-b-', { a: makeTicker(BTC, '1'), b: makeTicker(BTC, '2') });
      const failing: HostedStrategy = {
        id: A,
        symbols: [BTC],
        instance: { run: () => cold('--#', {}, new Error('stream failed')) },
      };
      const streaming: HostedStrategy = {
        id: B,
        symbols: [BTC],
        instance: { run: (i) => i.tickers$.pipe(map((t) => placeAt(t.last.toFixed()))) },
      };
      const out$ = hostStrategies([failing, streaming], inputs(tickers$), { now: () => ts.now() });
      expectObservable(
        out$.pipe(
          map((o) =>
            o.kind === 'StrategyDisabled' ? `${o.strategy}:off` : `${o.strategy}:${o.intent.kind}`,
          ),
        ),
      ).toBe('-yxy-', { x: 'a:off', y: 'b:place' });
    });
  });

  it('fires hook timers on the declared interval from clock pulses', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      // Pulses carry the clock time; a 10 ms timer fires at 10, 20 and then once at 45 (not twice).
      const clock$ = hot('-a-b-c-d-e-', { a: 0, b: 5, c: 10, d: 20, e: 45 });
      const seen: number[] = [];
      const timed: HostedStrategy = {
        id: A,
        symbols: [BTC],
        instance: {
          timerIntervalMs: 10,
          onTimer: (now) => {
            seen.push(now);
            return placeAt(String(now + 1));
          },
        },
      };
      const out$ = hostStrategies([timed], inputs(NEVER, clock$), { now: () => ts.now() });
      expectObservable(out$.pipe(map(() => 't'))).toBe('-----t-t-t-');
      ts.flush();
      expect(seen).toEqual([10, 20, 45]);
    });
  });

  it('calls every hook as a method of its instance, in input order, and stops them all at a throw', () => {
    const ts = newScheduler();
    ts.run(({ hot }) => {
      const order = { strategy: A, clientOid: 'o1' } as unknown as Order;
      const fill = { strategy: A, clientOid: 'o1' } as unknown as StrategyFill;
      const tickers$ = hot('-a---b-----c-|', {
        a: makeTicker(BTC, '1'),
        b: makeTicker(BTC, '2'),
        c: makeTicker(BTC, '3'),
      });
      const orders$ = hot<Order>('--o-----o----', { o: order });
      const fills$ = hot<StrategyFill>('---f---------', { f: fill });
      const clock$ = hot('a---b---c-----', { a: 0, b: 10, c: 20 });
      const calls: string[] = [];
      // A class instance: each hook reads and writes `this` (hooks are called as its methods).
      class Counting {
        readonly timerIntervalMs = 10;
        seen = 0;
        onTicker(t: Ticker) {
          calls.push(`ticker ${t.last.toFixed()} after ${this.seen}`);
          this.seen++;
          return [placeAt(t.last.toFixed()), placeAt('9')];
        }
        onOrderUpdate() {
          calls.push(`order after ${this.seen}`);
          this.seen++;
          if (this.seen === 6) throw new Error('second order update');
        }
        onFill() {
          calls.push(`fill after ${this.seen}`);
          this.seen++;
          return [];
        }
        onTimer(now: number) {
          calls.push(`timer ${now} after ${this.seen}`);
          this.seen++;
          return placeAt(String(now));
        }
      }
      const hosted: HostedStrategy = { id: A, symbols: [BTC], instance: new Counting() };
      const out$ = hostStrategies([hosted], { tickers$, orders$, fills$, clock$ }, { now: () => ts.now() });
      const seen: string[] = [];
      let completedAt: number | undefined;
      out$.subscribe({
        next: (o) =>
          seen.push(
            `${ts.now()} ${o.kind === 'StrategyDisabled' ? 'off' : o.intent.kind === 'place' ? o.intent.price?.toFixed() : '?'}`,
          ),
        complete: () => (completedAt = ts.now()),
      });
      ts.flush();
      expect(seen).toEqual(['1 1', '1 9', '4 10', '5 2', '5 9', '8 off']);
      expect(completedAt).toBe(8);
      // After the throw no hook runs again: the ticker at 11 reaches nobody.
      expect(calls).toEqual([
        'ticker 1 after 0',
        'order after 1',
        'fill after 2',
        'timer 10 after 3',
        'ticker 2 after 4',
        'order after 5',
      ]);
    });
  });

  it('completes a hook strategy once every input it listens to has completed', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable }) => {
      const hosted: HostedStrategy = {
        id: A,
        symbols: [BTC],
        instance: { onTicker: (t) => placeAt(t.last.toFixed()), onFill: () => [] },
      };
      const out$ = hostStrategies(
        [hosted],
        {
          tickers$: cold('-a-|', { a: makeTicker(BTC, '1') }),
          orders$: NEVER,
          fills$: cold<StrategyFill>('-----|'),
          clock$: NEVER,
        },
        { now: () => ts.now() },
      );
      expectObservable(out$.pipe(map(() => 'p'))).toBe('-p---|');
    });
  });

  it('timerFromPulses never fires without an interval', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      expectObservable(timerFromPulses(hot('-a-b-', { a: 0, b: 100 }), undefined)).toBe('-----');
    });
  });
});
