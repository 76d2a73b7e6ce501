// Backtests: reconciliation loops with nothing to find sleep without timers (RoundShortcut.quiet,
// src/reconcile/pollers.ts), and every round they sleep through is still weighed and counted at its
// own time, as if it had been sent and found nothing.
import { describe, expect, it } from 'vitest';
import type { SimPort } from '../../src/exchange/sim/sim-port.ts';
import { defineStrategy, symbolId, z } from '../../src/strategy/index.ts';
import { Session } from '../../src/strategy/testing/session.ts';
import type { WeightLimits } from '../../src/exchange/sim/weights.ts';
import { polls } from '../exchange/sim/helpers.ts';

const idle = defineStrategy({
  name: 'idle',
  version: '0',
  params: z.object({}),
  symbols: () => ['cmt_btcusdt'],
  create: () => ({ onTicker: () => undefined }),
});

/** Ten minutes of polls, one a minute, then the end of the run. */
async function run(skipIdleRounds: boolean, simLimits?: Partial<WeightLimits>) {
  const data = polls(Array.from({ length: 11 }, () => 0)).map((p, i) => ({ ...p, t: p.t + i * 59_000 }));
  const s = new Session({
    strategies: [{ id: 'idle', definition: idle }],
    startMs: data[0]!.t,
    symbols: ['cmt_btcusdt'],
    skipIdleRounds,
    ...(simLimits !== undefined ? { simLimits } : {}),
  });
  const pendingTimers: number[] = [];
  // What the weight windows hold after each poll: the rounds of the last 10 s, each at its own time.
  const windows: { budget: [number, number]; venue: unknown }[] = [];
  for (const p of data) {
    await s.feed(p);
    pendingTimers.push(s.vt.scheduler.actions.length);
    // Quiet polls defer their tickers reads (DeferredReads); a wake charges them, at their own times.
    s.reconciler.wake();
    const u = s.engine.executor.budgetUsage();
    windows.push({ budget: [u.ip.used, u.uid.used], venue: s.sim.venue.limiter.usage(s.vt.now()) });
  }
  await s.idleFor(30_000);
  s.reconciler.stop();
  const out = {
    // Skipped plan rounds move the cursor in memory; it reaches the store before a real poll or at stop.
    planCursor: s.store.getMeta('reconcile.planCursor'),
    requests: s.engine.executor.metrics().requestsByEndpoint,
    weight: s.engine.executor.metrics().weightUsed,
    sim: s.sim.stats().requests.byEndpoint,
    sim429: s.sim.stats().responses429,
    status: s.reconciler.status(),
    pendingTimers,
    windows,
  };
  s.close();
  return out;
}

describe('sleeping reconciliation loops', () => {
  it('keep no timer while nothing can change, yet weigh and count every round they slept through', async () => {
    const every = await run(false);
    const asleep = await run(true);
    // The same requests and weight, at the exchange's side too.
    expect(asleep.requests).toEqual(every.requests);
    expect(asleep.weight).toEqual(every.weight);
    expect(asleep.sim).toEqual(every.sim);
    // The windows hold the same weight at every poll: the rounds slept through were charged in time
    // order, at their own times, and those older than a window had expired from it.
    expect(asleep.windows).toEqual(every.windows);
    expect(every.windows.slice(1).every((w) => w.budget[0] > 0)).toBe(true);
    expect(asleep.planCursor).toBeDefined();
    expect(asleep.planCursor).toBe(every.planCursor);
    expect(every.requests['fills']).toBeGreaterThan(50); // every 2–6 s over 10.5 minutes
    // Almost every round was skipped; the first of each loop was real.
    expect(asleep.status.rounds).toBeLessThanOrEqual(3);
    expect(asleep.status.skippedRounds).toBeGreaterThan(60);
    // Between polls the reconciliation loops hold no timers (every-round mode holds one per loop).
    expect(Math.max(...asleep.pendingTimers.slice(3))).toBeLessThan(
      Math.min(...every.pendingTimers.slice(3)),
    );
  });

  it('a slept round the simulator refuses is sent for real at the wake, and meets its 429 there', async () => {
    // The simulator allows 45 of IP weight per 10 s, below the budget: a poll's tickers read (40)
    // leaves no room for a history round (10) in the next 10 s.
    const asleep = await run(true, { ipWeightPerWindow: 45 });
    expect(asleep.sim429).toBeGreaterThan(0);
    // The loops went on: rounds were still skipped, and real ones were sent after the refusals.
    expect(asleep.status.skippedRounds).toBeGreaterThan(20);
    expect(asleep.status.rounds).toBeGreaterThan(3);
    expect(asleep.requests['fills']).toBeGreaterThan(50);
  });

  it('after the rounds of an order, loops sleep again and nothing is charged between polls', async () => {
    // One market order at the second poll, then nothing: its rounds run for real in the next
    // seconds, the loops sleep again, and the polls after that are quiet.
    const BTC = symbolId('cmt_btcusdt');
    const once = defineStrategy({
      name: 'once',
      version: '0',
      params: z.object({}),
      symbols: () => [BTC],
      create: (ctx) => {
        let ticks = 0;
        return {
          onTicker: () =>
            ++ticks === 2 ? ctx.place({ symbol: BTC, side: 'open_long', size: '0.01' }) : undefined,
        };
      },
    });
    const data = polls(Array.from({ length: 8 }, () => 0)).map((p, i) => ({ ...p, t: p.t + i * 60_000 }));
    const s = new Session({
      strategies: [{ id: 'once', definition: once }],
      startMs: data[0]!.t,
      symbols: [BTC],
      skipIdleRounds: true,
    });
    // When reads that were not sent are charged (a skipped round, a pass of slept rounds and
    // deferred reads, in bulk or one by one).
    const chargedAt: number[] = [];
    const at = (): void => void chargedAt.push(s.vt.now());
    const sim = s.sim;
    const chargeUnsent = sim.chargeUnsent.bind(sim);
    const chargeUnsentRounds = sim.chargeUnsentRounds.bind(sim);
    const chargeBulk = sim.chargeBulk.bind(sim);
    sim.chargeUnsent = (...a: Parameters<SimPort['chargeUnsent']>) => (at(), chargeUnsent(...a));
    sim.chargeUnsentRounds = (...a: Parameters<SimPort['chargeUnsentRounds']>) => (
      at(),
      chargeUnsentRounds(...a)
    );
    sim.chargeBulk = (...a: Parameters<SimPort['chargeBulk']>) => (at(), chargeBulk(...a));
    const deferred: number[] = [];
    for (const p of data) {
      await s.feed(p);
      deferred.push(s.footprint()['session.deferred'] ?? -1);
    }
    const filled = s.store.allFills().length;
    s.close();
    expect(filled).toBe(1);
    // Polls 0–1 read at once (no real round yet; then the order); from poll 2 on every read waits
    // for the next wake, poll 2 included (its read used to wake the loops: the venue had changed
    // since the read before, though the loops had seen the change in their real rounds).
    expect(deferred.slice(2)).toEqual([1, 2, 3, 4, 5, 6]);
    // Half a minute after the order, the plan loop's round fell due on the timer the order gave it
    // back: it sleeps through it (SleepingLoops.sleepThroughRound) instead of waking the others to
    // charge everything slept through so far. From then on, charges happen at polls only.
    const settled = data[1]!.t + 20_000;
    const polled = new Set(data.map((p) => p.t));
    expect(chargedAt.filter((t) => t > settled && !polled.has(t))).toEqual([]);
    expect(chargedAt.filter((t) => t > settled).length).toBeGreaterThan(0);
  });
});
