// Backtests with sleeping reconciliation loops (rounds that could find nothing charged unsent, quiet
// polls' reads deferred, timed rounds slept through) charge the weight budget and the simulator
// exactly as running every round and sending every read does: the same requests, the same weight,
// the same weight windows after every poll, the same orders and fills. Random polls (gaps from a
// second to ten minutes), random prices and random orders (market orders that fill at once, limit
// orders far from the market or a tick away, filled by a later poll, cancels, stop-losses resting at
// the exchange as plan orders).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineStrategy, symbolId, z, type Intent } from '../../src/strategy/index.ts';
import { Session } from '../../src/strategy/testing/session.ts';
import { polls } from '../exchange/sim/helpers.ts';

const BTC = symbolId('cmt_btcusdt');
const ACTIONS = ['none', 'none', 'none', 'buy', 'sell', 'rest', 'near', 'cancel', 'stop'] as const;
type Action = (typeof ACTIONS)[number];

/** Does at each tick what the scenario says (its actions in turn, one a tick). */
function scripted(actions: readonly Action[]) {
  return defineStrategy({
    name: 'scripted',
    version: '0',
    params: z.object({}),
    symbols: () => [BTC],
    create: (ctx) => {
      let tick = 0;
      return {
        onTicker: (t): Intent | undefined => {
          const a = actions[tick++] ?? 'none';
          const pos = ctx.position(BTC);
          switch (a) {
            case 'buy':
              return ctx.place({ symbol: BTC, side: 'open_long', size: '0.01' });
            case 'sell':
              return pos.long.gt(0)
                ? ctx.place({ symbol: BTC, side: 'close_long', size: pos.long })
                : undefined;
            case 'rest':
              return ctx.place({ symbol: BTC, side: 'open_long', size: '0.01', price: t.price * 0.9 });
            case 'near': // fills at a later poll if the price comes down a tick or two
              return ctx.place({ symbol: BTC, side: 'open_long', size: '0.01', price: t.price - 0.1 });
            case 'cancel': {
              const o = ctx.openOrders(BTC)[0];
              return o !== undefined ? ctx.cancel({ symbol: BTC, clientOid: o.clientOid }) : undefined;
            }
            case 'stop':
              return pos.long.gt(0)
                ? ctx.place({
                    symbol: BTC,
                    side: 'close_long',
                    size: pos.long,
                    price: t.price * 0.95,
                    triggerPrice: t.price * 0.95,
                  })
                : undefined;
            case 'none':
              return undefined;
          }
        },
      };
    },
  });
}

async function run(
  gapsS: readonly number[],
  steps: readonly number[],
  actions: readonly Action[],
  skipIdleRounds: boolean,
) {
  const data = polls(gapsS.map((_, i) => steps[i] ?? 0));
  let t = data[0]!.t;
  const timed = data.map((p, i) => {
    if (i > 0) t += (gapsS[i] ?? 1) * 1000;
    return { ...p, t };
  });
  const s = new Session({
    strategies: [{ id: 'scripted', definition: scripted(actions) }],
    startMs: timed[0]!.t,
    symbols: [BTC],
    skipIdleRounds,
  });
  const windows: unknown[] = [];
  for (const p of timed) {
    await s.feed(p);
    // Deferred reads are charged at the next wake: wake, then read the windows.
    s.reconciler.wake();
    const u = s.engine.executor.budgetUsage();
    windows.push([u.ip.used, u.uid.used, s.sim.venue.limiter.usage(s.vt.now())]);
  }
  await s.idleFor(60_000);
  s.reconciler.stop();
  const out = {
    requests: s.engine.executor.metrics().requestsByEndpoint,
    weight: s.engine.executor.metrics().weightUsed,
    sim: s.sim.stats().requests.byEndpoint,
    sim429: s.sim.stats().responses429,
    windows,
    orders: s.store
      .allOrders()
      .map((o) => [o.clientOid, o.status, o.filledQty.toFixed(), o.createdAt, o.updatedAt] as const),
    fills: s.store.allFills().map((f) => [f.tradeId, f.clientOid, f.size.toFixed(), f.createdTime] as const),
  };
  s.close();
  return out;
}

describe('sleeping reconciliation loops (property)', () => {
  it('charge and trade exactly as running every round, whatever the polls and orders', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 600 })), {
          minLength: 4,
          maxLength: 24,
        }),
        fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 24, maxLength: 24 }),
        fc.array(fc.constantFrom(...ACTIONS), { minLength: 4, maxLength: 24 }),
        async (gapsS, steps, actions) => {
          const every = await run(gapsS, steps, actions, false);
          const asleep = await run(gapsS, steps, actions, true);
          expect(asleep).toEqual(every);
        },
      ),
      { numRuns: 200 },
    );
  }, 120_000);
});
