// Plan (trigger) orders through the whole session against the in-process simulator, on virtual time:
// a plan whose reply was lost is found (never placed twice), a plan that fires while the process is
// down is followed through its child after the restart, a leg that goes flat takes its stops and
// targets with it, and the kill switch leaves the protective plans resting.
import { afterEach, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { BTC } from '../helpers/market.ts';
import { SimSession, testPlanPolling, testReconcilerConfig } from '../helpers/sim-session.ts';

const PLANS = testPlanPolling(2_000);

let s: SimSession | undefined;
afterEach(() => {
  s?.close();
  s = undefined;
});

function session(over: ConstructorParameters<typeof SimSession>[0] = {}): SimSession {
  s = new SimSession({ reconcile: testReconcilerConfig({ plans: PLANS }), ...over });
  return s;
}

/** A long of 0.002 BTC at about 60 000, filled. */
async function openLong(x: SimSession): Promise<void> {
  x.control.wishes.push((ctx, t) =>
    ctx.place({ symbol: BTC, side: 'open_long', size: '0.002', price: t.bestAsk.plus(5) }),
  );
  await x.tick();
  await x.advance(3_000);
  expect(x.engine.hedgePositions().get(BTC)?.long.toFixed()).toBe('0.002');
}

const venuePlans = (x: SimSession) => x.sim.core.plans.all();

describe('plan orders across the session', () => {
  it('a plan whose reply was lost is settled from currentPlan by client_oid, not placed again', async () => {
    const x = session({
      faults: { faults: [{ kind: 'responseLost', probability: 1, endpoints: ['planOrder'] }] },
    });
    await x.boot();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', triggerPrice: '61000' }),
    );
    await x.tick();
    await x.advance(5_000);
    expect(x.engine.metrics().ordersUnknown).toBe(1); // the reply was lost indeed
    const [plan] = x.store.allOrders();
    const [atVenue] = venuePlans(x);
    expect(venuePlans(x)).toHaveLength(1);
    expect(plan).toMatchObject({ status: 'untriggered', orderId: atVenue?.orderId });
  });

  it('a stop that fires while the process is down is followed through its child after the restart', async () => {
    const x = session();
    await x.boot();
    await openLong(x);
    x.control.wishes.push((ctx) => ctx.stopLoss({ symbol: BTC, leg: 'long', triggerPrice: '59900' })!);
    await x.tick();
    await x.advance(3_000);
    const stop = x.store.allOrders().find((o) => o.triggerPrice !== undefined);
    expect(stop?.status).toBe('untriggered');
    x.crash();
    // While down, the price falls through the stop: the venue closes the long.
    for (let i = 0; i < 4; i++) {
      x.price = x.price.minus(60);
      await x.vt.advanceTo(x.vt.now() + 500);
      x.sim.applyTickers(x.vt.now(), [x.ticker().wire]);
    }
    await x.boot();
    await x.advance(6_000);
    const after = x.store.getOrder(stop!.clientOid);
    expect(after).toMatchObject({ status: 'filled', planOrderId: stop!.orderId });
    expect(after?.orderId).not.toBe(stop!.orderId);
    expect(x.engine.hedgePositions().get(BTC)?.long.toFixed() ?? '0').toBe('0');
    expect(venuePlans(x)).toHaveLength(1); // never placed twice
    const fills = x.store.allFills().filter((f) => f.clientOid === stop!.clientOid);
    expect(fills.reduce((a, f) => a.plus(f.size), dec(0)).toFixed()).toBe('0.002');
  });

  it('closing the leg cancels its stop and its target (one cancels the other)', async () => {
    const x = session();
    await x.boot();
    await openLong(x);
    x.control.wishes.push((ctx) => [
      ctx.stopLoss({ symbol: BTC, leg: 'long', triggerPrice: '59000' })!,
      ctx.takeProfit({ symbol: BTC, leg: 'long', triggerPrice: '61000' })!,
    ]);
    await x.tick();
    await x.advance(3_000);
    expect(x.store.openOrders().map((o) => o.status)).toEqual(['untriggered', 'untriggered']);
    x.control.wishes.push((ctx, t) =>
      ctx.place({ symbol: BTC, side: 'close_long', size: '0.002', price: t.bestBid.minus(5) }),
    );
    await x.tick();
    await x.advance(8_000);
    const plans = x.store.allOrders().filter((o) => o.triggerPrice !== undefined);
    expect(plans.map((o) => o.status)).toEqual(['canceled', 'canceled']);
    expect(venuePlans(x).every((p) => p.status !== 'untriggered')).toBe(true);
  });

  it('the kill switch cancels every order but the protective plans', async () => {
    const x = session();
    await x.boot();
    await openLong(x);
    x.control.wishes.push((ctx) => [
      ctx.stopLoss({ symbol: BTC, leg: 'long', triggerPrice: '59000' })!,
      ctx.place({ symbol: BTC, side: 'open_short', size: '0.001', triggerPrice: '58000' }),
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59500' }),
    ]);
    await x.tick();
    await x.advance(3_000);
    expect(x.store.openOrders()).toHaveLength(3);
    x.engine.killSwitch('test');
    await x.advance(8_000);
    const open = x.store.openOrders();
    expect(open.map((o) => [o.tag, o.status])).toEqual([['stop-loss', 'untriggered']]);
    expect(x.engine.tradingState()).toBe('HALTED');
  });
});

describe('stops and targets attached to an entry', () => {
  it('are placed once the entry has filled, for the filled size, tagged as protective plans', async () => {
    const x = session();
    await x.boot();
    x.control.wishes.push((ctx, t) =>
      ctx.place({
        symbol: BTC,
        side: 'open_long',
        size: '0.002',
        price: t.bestAsk.plus(5),
        stopLoss: 59_000.04,
        takeProfit: '61000',
      }),
    );
    await x.tick();
    await x.advance(5_000);
    const plans = x.store.openOrders().filter((o) => o.triggerPrice !== undefined);
    expect(plans.map((o) => [o.tag, o.side, o.size.toFixed(), o.triggerPrice?.toFixed(), o.status])).toEqual([
      ['stop-loss', 'close_long', '0.002', '59000', 'untriggered'],
      ['take-profit', 'close_long', '0.002', '61000', 'untriggered'],
    ]);
    // Done: the attachment leaves the store with the placements (the meta table does not grow).
    const entry = x.store.allOrders().find((o) => o.side === 'open_long');
    expect(entry?.status).toBe('filled');
    expect(x.store.getMeta(`attach.${entry!.clientOid}`)).toBeUndefined();
  });

  it('survive a restart between the entry and its fill, and are never placed twice', async () => {
    const x = session();
    await x.boot();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.002', price: '59990', stopLoss: '59000' }),
    );
    await x.tick();
    await x.advance(3_000);
    expect(x.store.openOrders().map((o) => o.status)).toEqual(['open']);
    x.crash();
    await x.boot();
    // The market comes down through the resting bid: it fills after the restart.
    await x.tick('-30');
    await x.advance(5_000);
    await x.tick('0');
    await x.advance(5_000);
    const stops = x.store.allOrders().filter((o) => o.tag === 'stop-loss');
    expect(stops.map((o) => [o.status, o.size.toFixed()])).toEqual([['untriggered', '0.002']]);
    expect(venuePlans(x)).toHaveLength(1);
  });

  it('are dropped when the entry ends without a fill, and refused on a closing order', async () => {
    const x = session();
    await x.boot();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.002', price: '59000', stopLoss: '58000' }),
    );
    await x.tick();
    await x.advance(3_000);
    x.control.wishes.push((ctx) => ctx.cancelAll());
    await x.tick();
    await x.advance(5_000);
    expect(x.store.allOrders().map((o) => o.status)).toEqual(['canceled']);
    expect(venuePlans(x)).toHaveLength(0);
    // The attachment is removed, not kept marked done: nothing reads a terminal order's again.
    expect(x.store.getMeta(`attach.${x.store.allOrders()[0]!.clientOid}`)).toBeUndefined();
  });
});
