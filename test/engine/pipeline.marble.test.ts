// Marble test of the intent pipeline inside the engine: tickers → strategies → risk gate →
// write-ahead store. (What happens after a request leaves is promise-driven and is covered by the
// executor tests.)
import { filter, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { clientOid } from '../../src/core/ids.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { silentLog } from '../helpers/executor-harness.ts';
import { FakeExchange } from '../helpers/fake-exchange.ts';
import { inlineStrategy } from '../helpers/engine-harness.ts';
import { BTC, makeTicker, SPECS } from '../helpers/market.ts';
import { MemoryStore } from '../helpers/memory-store.ts';

const FRONT = new Set(['StrategyIntent', 'RiskRefused', 'OrderCreated', 'StrategyDisabled']);

describe('engine intent pipeline (marbles)', () => {
  it('approves, refuses and isolates per tick, writing approved orders ahead of any request', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    ts.run(({ hot, expectObservable }) => {
      const clock = { now: () => ts.now() };
      const store = new MemoryStore();
      // Buys one tick below last; at last 300 it asks a price far outside the band (refused).
      const buyer = inlineStrategy('buyer', (ctx) => ({
        onTicker: (t) =>
          ctx.place({
            symbol: t.symbol,
            side: 'open_long',
            size: '0.001',
            price: t.last.eq(300) ? t.last.times(3) : t.last.minus(1),
          }),
      }));
      // Throws on the third ticker.
      let n = 0;
      const fragile = inlineStrategy('fragile', (ctx) => ({
        onTicker: (t) => {
          if (++n === 3) throw new Error('fragile broke');
          return ctx.place({ symbol: t.symbol, side: 'open_short', size: '0.001', price: t.last.plus(1) });
        },
      }));
      const engine = createEngine({
        port: new FakeExchange({ clock }),
        store,
        clock,
        scheduler: ts,
        log: silentLog,
        specs: SPECS,
        strategies: [
          { id: 'b', definition: buyer },
          { id: 'f', definition: fragile },
        ],
      });
      const polls = {
        a: [makeTicker(BTC, '100')],
        b: [makeTicker(BTC, '200')],
        c: [makeTicker(BTC, '300')],
        d: [makeTicker(BTC, '400')],
      };
      const tickers$ = hot('-a------b------c------d-', polls);
      const front$ = engine.events$.pipe(
        filter((e) => FRONT.has(e.kind)),
        map((e) =>
          e.kind === 'OrderCreated'
            ? `created:${e.order.clientOid}`
            : e.kind === 'StrategyIntent'
              ? `intent:${e.strategy}`
              : `${e.kind}:${'strategy' in e ? e.strategy : ''}`,
        ),
      );
      engine.start({ tickers$ });
      //                                 tick a              tick b              tick c        tick d
      expectObservable(front$).toBe('-(abcd)-(efgh)-(ijk)--(lm)', {
        a: 'intent:b',
        b: 'created:cb-b-1',
        c: 'intent:f',
        d: 'created:cb-f-1',
        e: 'intent:b',
        f: 'created:cb-b-2',
        g: 'intent:f',
        h: 'created:cb-f-2',
        i: 'intent:b',
        j: 'RiskRefused:b',
        k: 'StrategyDisabled:f',
        l: 'intent:b',
        m: 'created:cb-b-3',
      });
      ts.flush();
      // Every created order was in the store before anything else was written about it.
      for (const id of ['cb-b-1', 'cb-f-1', 'cb-b-2', 'cb-f-2', 'cb-b-3']) {
        expect(store.writes.find((w) => w[1] === clientOid(id))).toEqual(['insert', id, 'created']);
      }
    });
  });
});
