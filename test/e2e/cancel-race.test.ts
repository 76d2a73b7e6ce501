// A cancel answered `result: true` is not the end of the order (issue #18): the venue keeps it
// `canceling` for a while and may fill it meanwhile. Against the in-process simulator with a cancel
// delay, the order stays canceling until reconciliation reads how it ended, and a fill that lands
// after the reply ends it filled, counted in the position, not canceled.
import { afterEach, describe, expect, it } from 'vitest';
import { clientOid } from '../../src/core/ids.ts';
import { BTC } from '../helpers/market.ts';
import { SimSession } from '../helpers/sim-session.ts';

let x: SimSession | undefined;
afterEach(() => {
  x?.close();
  x = undefined;
});

describe('cancel race against the simulator', () => {
  it('keeps an accepted cancel canceling, and ends the order filled when the fill wins the race', async () => {
    x = new SimSession({ cancelDelayMs: 5_000 });
    await x.boot();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59990' }),
    );
    await x.tick();
    await x.advance(3_000);
    const oid = clientOid('cb-mt-1');
    expect(x.store.getOrder(oid)?.status).toBe('open');

    x.control.wishes.push((ctx) => ctx.cancel(x!.store.getOrder(oid)!));
    await x.tick();
    // The venue took the cancel (result: true) but is still canceling: so is the order here.
    expect(x.sim.core.orders().find((o) => o.clientOid === oid)?.status).toBe('canceling');
    expect(x.store.getOrder(oid)?.status).toBe('canceling');
    await x.advance(2_500); // history read meanwhile: still canceling at the venue
    expect(x.store.getOrder(oid)?.status).toBe('canceling');

    // The market trades through the price before the cancel takes effect: the venue fills it.
    await x.tick('-20');
    expect(x.sim.core.orders().find((o) => o.clientOid === oid)?.status).toBe('filled');
    await x.advance(6_000);
    const order = x.store.getOrder(oid)!;
    expect(order).toMatchObject({ status: 'filled' });
    expect(order.filledQty.toFixed()).toBe('0.001');
    expect(order.fillsQty?.toFixed()).toBe('0.001');
    expect(x.engine.hedgePositions().get(BTC)?.long.toFixed()).toBe('0.001');
    expect(x.control.updates.filter((u) => u.clientOid === oid).map((u) => u.status)).not.toContain(
      'canceled',
    );
  });

  it('ends it canceled, with the fills counted, once history shows the cancel done', async () => {
    x = new SimSession({ cancelDelayMs: 3_000 });
    await x.boot();
    x.control.wishes.push((ctx) =>
      ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '59990' }),
    );
    await x.tick();
    await x.advance(3_000);
    const oid = clientOid('cb-mt-1');
    x.control.wishes.push((ctx) => ctx.cancel(x!.store.getOrder(oid)!));
    await x.tick();
    expect(x.store.getOrder(oid)?.status).toBe('canceling');
    await x.advance(8_000);
    expect(x.store.getOrder(oid)).toMatchObject({ status: 'canceled' });
    expect(x.engine.openOrders()).toEqual([]);
    expect(x.engine.metrics().ordersCanceled).toBe(1);
  });
});
