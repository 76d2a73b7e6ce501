// The engine against the in-process simulator (the same venue as `capibot sim`), in virtual time:
// a flood of placements and cancels is batched, stays within the weight limits (zero 429s), and
// every order the exchange holds is one capibot wrote ahead, once.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RecordedPoll } from '../../src/core/market.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { riskLimits } from '../../src/risk/limits.ts';
import { VirtualTime } from '../../src/engine/virtual-time.ts';
import { SimPort } from '../../src/exchange/sim/sim-port.ts';
import { tickerFromWire } from '../../src/exchange/weex/mappers.ts';
import { silentLog } from '../helpers/executor-harness.ts';
import { inlineStrategy } from '../helpers/engine-harness.ts';
import { MemoryStore } from '../helpers/memory-store.ts';
import { BTC, ETH } from '../helpers/market.ts';

function polls(): RecordedPoll[] {
  return readFileSync('test/fixtures/recordings/sim-small.ndjson', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"t"'))
    .map((l) => JSON.parse(l) as RecordedPoll);
}

describe('engine against the in-process simulator', () => {
  it('batches a flood of quotes, cancels the stale ones, and never meets a 429', async () => {
    const recording = polls();
    const vt = new VirtualTime(recording[0]!.t - 1_000);
    const sim = new SimPort({ clock: vt.clock });
    const specs = new Map((await sim.contracts()).map((c) => [c.symbol, c]));
    // Every tick: cancel the previous quotes, then quote 25 bids per symbol about 1% below the bid
    // (far enough not to fill).
    const quoter = inlineStrategy(
      'quoter',
      (ctx) => ({
        onTicker: (t) => [
          ctx.cancelAll(t.symbol),
          ...Array.from({ length: 25 }, (_, i) =>
            ctx.place({
              symbol: t.symbol,
              side: 'open_long',
              size: ctx.spec(t.symbol).minSize,
              price: ctx.roundPrice(
                t.symbol,
                t.bestBid.times('0.99').minus(ctx.spec(t.symbol).priceTick.times(i)),
                'down',
              ),
            }),
          ),
        ],
      }),
      [BTC, ETH],
    );
    const store = new MemoryStore();
    const engine = createEngine({
      port: sim,
      store,
      clock: vt.clock,
      scheduler: vt.scheduler,
      log: silentLog,
      specs,
      strategies: [{ id: 'q', definition: quoter }],
      options: {
        riskLimits: riskLimits({
          maxOpenOrders: 1_000,
          maxOrdersPerMinute: 10_000,
          maxOrderNotional: '100000',
        }),
        executor: { maxInFlight: 2 },
      },
    });
    engine.start();
    for (const poll of recording) {
      await vt.advanceTo(poll.t, () => engine.idle());
      sim.applyPoll(poll);
      engine.onTick(poll.tickers.map(tickerFromWire));
      await engine.idle();
    }
    for (let due = vt.nextDue(); !engine.executor.isEmpty() && due !== undefined; due = vt.nextDue()) {
      await vt.advanceTo(due, () => engine.idle());
    }

    const stats = sim.stats();
    expect(stats.responses429).toBe(0);
    const simOrders = sim.core.orders();
    const oids = simOrders.map((o) => o.clientOid);
    expect(new Set(oids).size).toBe(oids.length);
    for (const o of simOrders) {
      expect(store.getOrder(o.clientOid as never), o.clientOid).toBeDefined();
    }
    const m = engine.metrics();
    expect(m.ordersCreated).toBe(12 * 50);
    expect(m.rejectionsByReason).toEqual({});
    // 25 quotes per symbol go as 20 + 5; the cancels (10 per second at most) outrank them, so the
    // quotes still queued at the next tick are canceled before they ever leave.
    expect(m.batchEntries / m.batchCalls).toBe(12.5);
    expect(m.batchEntries).toBe(m.ordersAccepted);
    expect(stats.requests.byEndpoint['batchOrders']).toBe(m.batchCalls);
    expect(m.ordersUnknown).toBe(0);
    // The quotes of the last tick rest; every older one was canceled, at the exchange or before it left.
    expect(simOrders.filter((o) => o.status === 'open' || o.status === 'pending')).toHaveLength(50);
    // Canceled before they left (locally), or canceled at the venue, which only took the cancel as far
    // as the engine knows: those stay `canceling` until order history (reconciliation, not running
    // here) confirms them. The simulator shows each of them canceled.
    const gone = store.allOrders().filter((o) => o.status === 'canceled' || o.status === 'canceling');
    expect(gone).toHaveLength(11 * 50);
    const atVenue = new Map(simOrders.map((o) => [o.clientOid, o.status]));
    for (const o of gone.filter((g) => g.status === 'canceling'))
      expect(atVenue.get(o.clientOid), o.clientOid).toBe('canceled');
    expect(stats.errors.byCode).toEqual({});
    expect(store.allOrders().filter((o) => o.status === 'created' || o.status === 'submitted')).toEqual([]);
  });
});
