// The graceful stop against the in-process simulator, on virtual time. Each case is named after the
// failure it prevents. The first was found by the end-to-end crash test: an order whose placement
// reply was lost just before the stop, with the venue's order history lagging behind, stayed `unknown`
// at exit while its fill sat in the store attributed to nobody.
import { afterEach, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/core/endpoints.ts';
import type { ExchangePort } from '../../src/exchange/port.ts';
import type { FaultProfile } from '../../src/exchange/sim/faults.ts';
import { delay } from '../../src/runner/wait.ts';
import { shutdown } from '../../src/runner/shutdown.ts';
import { silentLog } from '../helpers/executor-harness.ts';
import { BTC } from '../helpers/market.ts';
import { SimSession, testPlanPolling, testReconcilerConfig } from '../helpers/sim-session.ts';
import { wrapPlacements } from '../helpers/wrap-placements.ts';

let s: SimSession | undefined;
afterEach(() => {
  s?.close();
  s = undefined;
});

/** A session whose lone placements are processed but never answered, its history `lagMs` behind. */
async function lostReplySession(
  lagMs: number,
  placement: 'responseLost' | 'resetBeforeProcessing',
  wrapPort?: (p: ExchangePort, x: () => SimSession) => ExchangePort,
) {
  const faults: FaultProfile = {
    faults: [
      { kind: placement, probability: 1, endpoints: ['placeOrder'] },
      { kind: 'staleHistory', probability: 1, lagMs },
    ],
  };
  const box: { x?: SimSession } = {};
  const x = new SimSession({
    faults,
    ...(wrapPort !== undefined ? { wrapPort: (p: ExchangePort) => wrapPort(p, () => box.x!) } : {}),
  });
  box.x = x;
  s = x;
  await x.boot();
  // Crosses the book: the venue fills it at once.
  x.control.wishes.push((ctx) =>
    ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '60010' }),
  );
  await x.tick();
  const [order] = x.store.allOrders();
  expect(order?.status).toBe('unknown');
  return { x, order: order! };
}

/** The port's methods bound to it, to override some. */
function bindAll(p: ExchangePort): ExchangePort {
  return {
    serverTime: () => p.serverTime(),
    contracts: () => p.contracts(),
    tickers: () => p.tickers(),
    placeOrder: (a, b) => p.placeOrder(a, b),
    placeBatch: (a, b) => p.placeBatch(a, b),
    cancelOrder: (r) => p.cancelOrder(r),
    fills: (q) => p.fills(q),
    history: (q) => p.history(q),
    planHistory: (q) => p.planHistory(q),
    placePlan: (a, e) => p.placePlan(a, e),
    cancelPlan: (r) => p.cancelPlan(r),
    currentPlans: (q) => p.currentPlans(q),
  };
}

/** Lets every pending promise chain run: the simulator and the store answer within one macrotask. */
const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs the stop, moving virtual time only when nothing but timers is left (a timeout race inside the
 * stop must not fire merely because a round took more than a few microtask turns).
 */
async function stop(
  x: SimSession,
  drainDeadlineMs: number,
  unsettledRetryMs?: number,
  cancelOpenOrders = true,
) {
  let done = false;
  const p = shutdown({
    session: x.session,
    clock: x.vt.clock,
    wall: x.vt.clock,
    timers: x.vt.timers,
    log: silentLog,
    cancelOpenOrders,
    drainDeadlineMs,
    ...(unsettledRetryMs !== undefined ? { unsettledRetryMs } : {}),
  }).finally(() => {
    done = true;
  });
  for (let i = 0; i < 10_000 && !done; i++) {
    await macrotask();
    const due = x.vt.nextDue();
    if (done || due === undefined) continue;
    await x.vt.advanceTo(due, macrotask);
  }
  return p;
}

describe('graceful shutdown', () => {
  it('a plan whose reply was lost just before the stop is settled by a plan-history poll of the last rounds', async () => {
    // Plan reads fail from the start-up to the stop: no plan round settles the plan before it.
    let planReads = true;
    const down = (): Promise<never> => Promise.reject(new Error('plan reads are down'));
    const x = new SimSession({
      faults: { faults: [{ kind: 'responseLost', probability: 1, endpoints: ['planOrder'] }] },
      wrapPort: (p: ExchangePort): ExchangePort => ({
        ...bindAll(p),
        planHistory: (q) => (planReads ? p.planHistory(q) : down()),
        currentPlans: (q) => (planReads ? p.currentPlans(q) : down()),
      }),
      reconcile: {
        ...testReconcilerConfig(),
        plans: testPlanPolling(600_000),
      },
    });
    s = x;
    await x.boot();
    planReads = false;
    // Far above the price: it rests untriggered.
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', triggerPrice: '70000' }),
    );
    await x.tick();
    const [plan] = x.store.allOrders();
    expect(plan?.status).toBe('unknown');

    // Only plan rows settle a plan: order history alone would leave it unknown until the deadline.
    planReads = true;
    const report = await stop(x, 3_000, undefined, false);
    expect(report.finalReconciliation).toBe('done');
    const stored = x.store.getOrder(plan!.clientOid);
    expect(stored?.status).toBe('untriggered');
    expect(stored?.orderId).toBe(
      x.sim.core.planOrders().find((p) => p.clientOid === plan!.clientOid)?.orderId,
    );
  });

  it('an order whose reply was lost just before the stop is found by later rounds, and its fill is attributed to it', async () => {
    const { x, order } = await lostReplySession(1_500, 'responseLost');
    const atVenue = x.sim.core.orderByClientOid(order.clientOid);
    expect(atVenue?.status).toBe('filled');

    const report = await stop(x, 3_000);
    expect(report.finalReconciliation).toBe('done');
    expect(report.unsettled).toEqual([]);
    const stored = x.store.getOrder(order.clientOid);
    expect(stored?.orderId).toBe(atVenue?.orderId);
    expect(stored?.status).toBe('filled');
    expect(stored?.filledQty.toFixed()).toBe('0.001');
    const fills = x.store.allFills();
    expect(fills).toHaveLength(1);
    expect(fills[0]?.clientOid).toBe(order.clientOid);
  });

  it('an order that never reached the venue keeps the stop waiting only until the deadline, and is reported', async () => {
    const { x, order } = await lostReplySession(1_500, 'resetBeforeProcessing');
    expect(x.sim.core.orders()).toHaveLength(0);

    const start = x.vt.now();
    const report = await stop(x, 8_000);
    const took = x.vt.now() - start;
    expect(report.finalReconciliation).toBe('unsettled');
    expect(report.unsettled).toEqual([order.clientOid]);
    expect(x.store.getOrder(order.clientOid)?.status).toBe('unknown');
    // Rounds went on while time was left (the grace period, 20 s, is longer than the stop).
    expect(took).toBeGreaterThanOrEqual(7_500);
    expect(took).toBeLessThanOrEqual(8_000);
  });

  it("repeated rounds keep to half of the budget's limits (they bypass the stopped budget)", async () => {
    const { x } = await lostReplySession(1_500, 'resetBeforeProcessing');
    const before = { ...x.sim.stats().requests.byEndpoint };
    const start = x.vt.now();
    // A 50 ms pause alone would send a round (15 of weight) 20 times a second.
    await stop(x, 30_000, 50);
    const took = x.vt.now() - start;
    let ip = 0;
    for (const e of ['fills', 'history'] as const) {
      ip += ((x.sim.stats().requests.byEndpoint[e] ?? 0) - (before[e] ?? 0)) * ENDPOINTS[e].ipWeight;
    }
    // The rounds went on (until the 20 s grace period declared the order lost).
    expect(ip).toBeGreaterThan(15 * 20);
    // A round reads fills (5) and history (10): one every 334 ms is half of the budget's 900 per 10 s.
    // One round more than the span holds at that pace: the first and the last both count.
    const { ip: pool, windowMs } = x.engine.executor.budgetUsage();
    expect(pool.limit).toBe(900);
    expect(ip).toBeLessThanOrEqual(0.5 * pool.limit * (took / windowMs) + 2 * 15);
  });

  it('a repeat starts only when another round as long as the last still fits before the deadline', async () => {
    let slow = false;
    let started = 0;
    let finished = 0;
    const { x } = await lostReplySession(1_500, 'resetBeforeProcessing', (p, session) => ({
      // Every call passes through (placements untouched)...
      ...wrapPlacements(p, (send) => send()),
      // ...but once the stop begins, order history answers after 700 ms of (virtual) time.
      history: async (q) => {
        if (!slow) return p.history(q);
        started++;
        await delay(session().vt.timers, 700);
        const rows = await p.history(q);
        finished++;
        return rows;
      },
    }));
    slow = true;
    const start = x.vt.now();
    const report = await stop(x, 5_200);
    expect(report.finalReconciliation).toBe('unsettled');
    expect(x.vt.now() - start).toBeLessThanOrEqual(5_200);
    // No round was cut short by the deadline: every history read had its answer.
    expect(started).toBeGreaterThan(2);
    expect(finished).toBe(started);
  });

  it('with every order settled, one round is all the stop takes', async () => {
    const x = new SimSession();
    s = x;
    await x.boot();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
    );
    await x.tick();
    const start = x.vt.now();
    const report = await stop(x, 3_000);
    expect(report.finalReconciliation).toBe('done');
    expect(report.unsettled).toEqual([]);
    expect(report.canceled.requested).toBe(1);
    expect(x.vt.now() - start).toBeLessThan(500);
    expect(x.store.allOrders().map((o) => o.status)).toEqual(['canceled']);
  });
});
