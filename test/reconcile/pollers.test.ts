// The reconciliation pollers on virtual time, against the in-process simulator: each case is named
// after the failure it prevents.
import { afterEach, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { ExchangeError } from '../../src/core/errors.ts';
import { orderId, symbolId } from '../../src/core/ids.ts';
import type { PlanReport } from '../../src/core/reports.ts';
import type { ExchangePort } from '../../src/exchange/port.ts';
import { BTC } from '../helpers/market.ts';
import { SimSession, testPlanPolling, testReconcilerConfig } from '../helpers/sim-session.ts';

let s: SimSession | undefined;
afterEach(() => {
  s?.close();
  s = undefined;
});

function open(opts: ConstructorParameters<typeof SimSession>[0] = {}): SimSession {
  s = new SimSession(opts);
  return s;
}

const placementFaults = (kind: 'responseLost' | 'resetBeforeProcessing') => ({
  faults: { faults: [{ kind, probability: 1, endpoints: ['placeOrder' as const, 'batchOrders' as const] }] },
});

describe('reconciliation pollers', () => {
  it('a fill of a resting order reaches the store, the order and the strategy (fills are not lost when no reply carries them)', async () => {
    const x = open();
    await x.boot();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
    );
    await x.tick();
    const [o] = x.store.allOrders();
    expect(o?.status).toBe('pending');
    await x.tick('-10'); // the ask trades through the bid: the simulator fills it
    expect(x.sim.core.fills()).toHaveLength(1);
    await x.advance(1_500);
    const fills = x.store.allFills();
    expect(fills).toHaveLength(1);
    expect(fills[0]?.clientOid).toBe(o?.clientOid);
    expect(x.store.getOrder(o!.clientOid)?.status).toBe('filled');
    expect(x.control.fills.map((f) => f.clientOid)).toEqual([o?.clientOid]);
    expect(x.engine.pnl().fees.gt(0)).toBe(true);
  });

  it('a placement whose reply was lost is settled by its client_oid from order history (never resent)', async () => {
    const x = open(placementFaults('responseLost'));
    await x.boot();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
    );
    await x.tick();
    const [o] = x.store.allOrders();
    expect(o?.status).toBe('unknown');
    await x.advance(2_500);
    const atSim = x.sim.core.orderByClientOid(o!.clientOid);
    const settled = x.store.getOrder(o!.clientOid);
    expect(settled?.orderId).toBe(atSim?.orderId);
    expect(settled?.status).toBe('open');
    expect(x.sim.stats().requests.byEndpoint['batchOrders'] ?? 0).toBe(0);
    expect(x.sim.stats().requests.byEndpoint['placeOrder']).toBe(1);
  });

  it('a placement that never reached the exchange is declared lost after the grace period, not before', async () => {
    const x = open(placementFaults('resetBeforeProcessing'));
    await x.boot();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
    );
    await x.tick();
    const [o] = x.store.allOrders();
    expect(o?.status).toBe('unknown');
    await x.advance(15_000);
    expect(x.store.getOrder(o!.clientOid)?.status).toBe('unknown');
    await x.advance(10_000);
    const lost = x.store.getOrder(o!.clientOid);
    expect(lost?.status).toBe('rejected');
    expect(lost?.reason).toMatch(/no trace/);
    expect(x.sim.core.orders()).toHaveLength(0);
  });

  it('a fill of an order whose reply was lost is recorded at once and attributed (exactly once) when its order id is learned', async () => {
    const x = open(placementFaults('responseLost'));
    await x.boot();
    // Marketable: fills on arrival at the simulator, the reply is lost.
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.002', price: '60005' }),
    );
    await x.tick();
    const [o] = x.store.allOrders();
    expect(x.sim.core.fills()).toHaveLength(1);
    await x.advance(1_000);
    expect(x.store.allFills()).toHaveLength(1);
    await x.advance(3_000);
    const [f] = x.store.allFills();
    expect(f?.clientOid).toBe(o?.clientOid);
    expect(x.store.getOrder(o!.clientOid)?.status).toBe('filled');
    expect(x.control.fills).toHaveLength(1);
    expect(x.engine.openOrders()).toHaveLength(0);
    // Later rounds re-read the same fill (overlap window): still once.
    await x.advance(10_000);
    expect(x.store.allFills()).toHaveLength(1);
    expect(x.control.fills).toHaveLength(1);
  });

  it('polls quickly while orders rest or are in flight, slowly when idle (request weight is not wasted)', async () => {
    const x = open();
    await x.boot();
    await x.advance(70_000); // nothing open, nothing happened for a minute: idle
    const count = () => x.sim.stats().requests.byEndpoint['fills'] ?? 0;
    const idleStart = count();
    await x.advance(30_000);
    const idle = count() - idleStart;
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
    );
    await x.tick();
    const busyStart = count();
    await x.advance(30_000);
    const busy = count() - busyStart;
    expect(idle).toBeGreaterThanOrEqual(9);
    expect(idle).toBeLessThanOrEqual(11);
    expect(busy).toBeGreaterThanOrEqual(28);
  });

  it('plan orders found in plan history are recorded once and kept up to date (shown, never acted on)', async () => {
    let status: PlanReport['status'] = 'untriggered';
    const plan = (): PlanReport => ({
      symbol: symbolId('cmt_btcusdt'),
      orderId: orderId('900000000000000001'),
      status,
      rawStatus: status.toUpperCase(),
      type: 'CLOSE_LONG',
      orderType: '0',
      size: dec('0.01'),
      price: dec('0'),
      triggerPrice: dec('55000'),
      createTime: 1_700_000_000_000,
      filledQty: dec('0'),
      priceAvg: dec('0'),
      fee: dec('0'),
    });
    const x = open({
      reconcile: {
        ...testReconcilerConfig(),
        plans: testPlanPolling(5_000),
      },
      wrapPort: (p): ExchangePort => ({
        serverTime: () => p.serverTime(),
        contracts: () => p.contracts(),
        tickers: () => p.tickers(),
        placeOrder: (a, b) => p.placeOrder(a, b),
        placeBatch: (a, b) => p.placeBatch(a, b),
        cancelOrder: (r) => p.cancelOrder(r),
        fills: (q) => p.fills(q),
        history: (q) => p.history(q),
        planHistory: () => Promise.resolve({ plans: [plan()], nextPage: false }),
        placePlan: (s, e) => p.placePlan(s, e),
        cancelPlan: (r) => p.cancelPlan(r),
        currentPlans: (q) => p.currentPlans(q),
      }),
    });
    await x.boot();
    await x.advance(6_000);
    expect(x.store.planOrders().map((p) => [p.orderId, p.status])).toEqual([
      ['900000000000000001', 'untriggered'],
    ]);
    status = 'triggered';
    await x.advance(6_000);
    expect(x.store.planOrders().map((p) => p.status)).toEqual(['triggered']);
    expect(x.sim.core.orders()).toHaveLength(0);
  });

  it('a failing history read leaves the store untouched and is reported in the status (readiness)', async () => {
    let failing = false;
    const x = open({
      wrapPort: (p): ExchangePort => ({
        serverTime: () => p.serverTime(),
        contracts: () => p.contracts(),
        tickers: () => p.tickers(),
        placeOrder: (a, b) => p.placeOrder(a, b),
        placeBatch: (a, b) => p.placeBatch(a, b),
        cancelOrder: (r) => p.cancelOrder(r),
        fills: (q) => p.fills(q),
        history: (q) =>
          failing
            ? Promise.reject(new ExchangeError('40001', 'bad signature', 400, 'auth', 'history', 'never'))
            : p.history(q),
        planHistory: (q) => p.planHistory(q),
        placePlan: (s, e) => p.placePlan(s, e),
        cancelPlan: (r) => p.cancelPlan(r),
        currentPlans: (q) => p.currentPlans(q),
      }),
    });
    await x.boot();
    const before = x.reconciler.status();
    expect(before.lastFullAt).toBeDefined();
    failing = true;
    await x.advance(5_000);
    const st = x.reconciler.status();
    expect(st.consecutiveFailures).toBeGreaterThan(0);
    expect(st.lastError).toMatch(/bad signature/);
    expect(st.lastFullAt).toBe(before.lastFullAt);
    expect(st.lastSuccessAt).toBeGreaterThan(before.lastFullAt!); // fills rounds still succeed
    failing = false;
    await x.advance(5_000);
    expect(x.reconciler.status().consecutiveFailures).toBe(0);
  });
});
