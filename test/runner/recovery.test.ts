// Restart recovery against the in-process simulator: a store left by a crashed process (orders created,
// submitted, unknown, resting) meets an exchange that has — or lacks — them. Each case is named after
// the failure it prevents.
import { afterEach, describe, expect, it } from 'vitest';
import { dec, ZERO } from '../../src/core/decimal.ts';
import { clientOid } from '../../src/core/ids.ts';
import type { ExchangePort } from '../../src/exchange/port.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { BTC } from '../helpers/market.ts';
import { SimSession, STRATEGY } from '../helpers/sim-session.ts';
import { wrapPlacements } from '../helpers/wrap-placements.ts';

let s: SimSession | undefined;
afterEach(() => {
  s?.close();
  s = undefined;
});

/** A session whose process dies inside the next placement request: before or after the venue takes it. */
function crashingSession(when: 'before' | 'after'): { x: SimSession; arm: () => void } {
  let armed = false;
  const box: { x?: SimSession } = {};
  const wrap = (p: ExchangePort): ExchangePort => {
    const place = async <T>(send: () => Promise<T>): Promise<T> => {
      if (!armed) return send();
      armed = false;
      if (when === 'before') {
        box.x?.crash();
        return new Promise<T>(() => undefined);
      }
      const r = send();
      box.x?.crash();
      return r;
    };
    return wrapPlacements(p, place);
  };
  const x = new SimSession({ wrapPort: wrap });
  box.x = x;
  s = x;
  return {
    x,
    arm: () => {
      armed = true;
    },
  };
}

describe('restart recovery', () => {
  it('an order whose request reached the exchange just before the crash is found by client_oid, not placed again', async () => {
    const { x, arm } = crashingSession('after');
    await x.boot();
    arm();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
    );
    await x.tick();
    const [o] = x.store.allOrders();
    expect(o?.status).toBe('submitted');
    expect(x.sim.core.orders()).toHaveLength(1);

    const report = await x.boot();
    const recovered = x.store.getOrder(o!.clientOid);
    expect(recovered?.orderId).toBe(x.sim.core.orders()[0]?.orderId);
    expect(recovered?.status).toBe('open');
    expect(report.unsettled).toEqual([]);
    expect(x.sim.core.orders()).toHaveLength(1);
  });

  it('an order submitted but never sent (crash before the request left) becomes unknown and is declared lost after the grace period', async () => {
    const { x, arm } = crashingSession('before');
    await x.boot();
    arm();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
    );
    await x.tick();
    const [o] = x.store.allOrders();
    expect(o?.status).toBe('submitted');

    const report = await x.boot();
    expect(report.unsettled).toEqual([o?.clientOid]);
    expect(x.store.getOrder(o!.clientOid)?.status).toBe('unknown');
    await x.advance(25_000);
    expect(x.store.getOrder(o!.clientOid)?.status).toBe('rejected');
    expect(x.sim.core.orders()).toHaveLength(0);
  });

  it('unknown orders left by the crash: the one the exchange has is settled at start, the others are declared lost after the grace period', async () => {
    const x = new SimSession({
      faults: {
        faults: [
          // A lone order goes as placeOrder: processed, reply lost. Two together go as batchOrders: never processed.
          { kind: 'responseLost', probability: 1, endpoints: ['placeOrder'] },
          { kind: 'resetBeforeProcessing', probability: 1, endpoints: ['batchOrders'] },
        ],
      },
    });
    s = x;
    await x.boot();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
    );
    await x.tick();
    x.control.wishes.push((ctx) => [
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59990' }),
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59985' }),
    ]);
    await x.tick();
    const [found, lost1, lost2] = x.store.allOrders();
    expect(x.store.allOrders().map((o) => o.status)).toEqual(['unknown', 'unknown', 'unknown']);
    x.crash();

    const report = await x.boot();
    expect(x.store.getOrder(found!.clientOid)?.orderId).toBe(
      x.sim.core.orderByClientOid(found!.clientOid)?.orderId,
    );
    expect(x.store.getOrder(found!.clientOid)?.status).toBe('open');
    expect([...report.unsettled].sort()).toEqual([lost1!.clientOid, lost2!.clientOid].sort());
    await x.advance(25_000);
    expect(x.store.getOrder(lost1!.clientOid)?.status).toBe('rejected');
    expect(x.store.getOrder(lost2!.clientOid)?.status).toBe('rejected');
    expect(x.sim.core.orders()).toHaveLength(1);
  });

  it('an order still created at the crash never left: it is rejected locally, never sent after the restart', async () => {
    const x = new SimSession();
    s = x;
    const seed = new SqliteStore({ path: x.path, lease: false });
    seed.insertOrder({
      clientOid: clientOid(`cb-${STRATEGY}-${seed.nextSequence(STRATEGY).toString(36)}`),
      strategy: STRATEGY,
      symbol: BTC,
      side: 'open_long',
      orderType: 'normal',
      price: dec('59995'),
      size: dec('0.001'),
      status: 'created',
      filledQty: ZERO,
      createdAt: x.vt.now() - 1_000,
      updatedAt: x.vt.now() - 1_000,
    });
    seed.close();
    await x.boot();
    const [o] = x.store.allOrders();
    expect(o?.status).toBe('rejected');
    await x.advance(5_000);
    expect(x.sim.core.orders()).toHaveLength(0);
    // The sequence went on: the next order does not reuse the client_oid.
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
    );
    await x.tick();
    expect(new Set(x.store.allOrders().map((r) => r.clientOid)).size).toBe(2);
  });

  it('fills and terminal states that happened while the runner was down are applied before strategies see a ticker', async () => {
    const x = new SimSession();
    s = x;
    await x.boot();
    x.control.wishes.push((ctx) => [
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
      ctx.place({ symbol: BTC, side: 'open_short', size: '0.001', price: '60100' }),
    ]);
    await x.tick();
    await x.advance(3_000);
    const [buy, sell] = x.store.allOrders();
    expect(buy?.status).toBe('open');
    x.crash();
    // While down: the market trades through the bid; the ask is canceled by someone at the exchange.
    await x.advance(1_000);
    x.price = x.price.minus('10');
    x.sim.applyTickers(x.vt.now(), [x.ticker().wire]);
    await x.sim.cancelOrder({ symbol: BTC, orderId: sell!.orderId! });

    let seenAtFirstTicker: string[] | undefined;
    x.control.wishes.push((ctx) => {
      seenAtFirstTicker = ctx.openOrders().map((o) => o.clientOid);
      return [];
    });
    const report = await x.boot();
    expect(report.round.committed.fillsRecorded).toBe(1);
    expect(x.store.getOrder(buy!.clientOid)?.status).toBe('filled');
    expect(x.store.getOrder(sell!.clientOid)?.status).toBe('canceled');
    expect(x.engine.openOrders()).toHaveLength(0);
    await x.tick();
    expect(seenAtFirstTicker).toEqual([]);
    expect(x.engine.pnl().fees.gt(0)).toBe(true);
  });

  it('an order of ours at the exchange that the store lacks is adopted, and its sequence is never issued again', async () => {
    const x = new SimSession();
    s = x;
    await x.sim.placeOrder(BTC, {
      clientOid: clientOid(`cb-${STRATEGY}-1f`),
      side: 'open_long',
      orderType: 'normal',
      size: dec('0.001'),
      price: dec('59990'),
    });
    await x.sim.placeOrder(BTC, {
      clientOid: clientOid('manual-1'),
      side: 'open_long',
      orderType: 'normal',
      size: dec('0.001'),
      price: dec('59980'),
    });
    const report = await x.boot();
    expect(report.round.output.adopted.map((o) => o.clientOid)).toEqual([`cb-${STRATEGY}-1f`]);
    expect(report.round.output.foreign.map((o) => o.clientOid)).toEqual(['manual-1']);
    expect(x.store.getOrder(clientOid(`cb-${STRATEGY}-1f`))?.status).toBe('open');
    expect(x.store.getOrder(clientOid('manual-1'))).toBeUndefined();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
    );
    await x.tick();
    const mine = x.store.allOrders().filter((o) => o.clientOid !== `cb-${STRATEGY}-1f`);
    expect(mine.map((o) => o.clientOid)).toEqual([`cb-${STRATEGY}-1g`]);
  });

  it('cancelOnStart cancels every open order after the start-up reconciliation (nothing is left resting)', async () => {
    const x = new SimSession();
    s = x;
    await x.boot();
    x.control.wishes.push((ctx) => [
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59995' }),
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59990' }),
    ]);
    await x.tick();
    await x.advance(3_000);
    x.crash();
    x.cancelOnStart = true;
    const report = await x.boot();
    expect(report.canceled.requested).toBe(2);
    expect(x.sim.core.orders().map((o) => o.status)).toEqual(['canceled', 'canceled']);
    expect(x.store.allOrders().map((o) => o.status)).toEqual(['canceled', 'canceled']);
  });
});
