import { afterEach, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { clientOid, orderId, strategyId } from '../../src/core/ids.ts';
import { commitReconcile } from '../../src/reconcile/commit.ts';
import { reconcile } from '../../src/reconcile/kernel.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { PREFIX, T0, fillOf, localOrder, row } from './fixtures.ts';

const stores: SqliteStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function setup() {
  const store = new SqliteStore({ path: ':memory:', lease: false });
  stores.push(store);
  store.insertOrder(localOrder(1, { status: 'unknown' }));
  store.insertOrder(localOrder(2, { status: 'open', orderId: orderId('700000000000000002') }));
  return store;
}

const exchange = {
  reports: [
    row(1, { status: 'open' }),
    row(3, {
      clientOid: clientOid('cb-grid-a'),
      status: 'filled',
      filledQty: dec('1'),
      priceAvg: dec('60000'),
    }),
    row(9, { clientOid: clientOid('other-9') }),
  ],
  fills: [fillOf(2, '1'), fillOf(3, '2', { size: dec('1') }), fillOf(9, '3')],
};

function pass(store: SqliteStore, now: number) {
  const out = reconcile({
    orders: store.ordersUpdatedSince(now - 60_000),
    ...exchange,
    knownTradeIds: (id) => store.hasFill(id),
    now,
    graceMs: 60_000,
    prefix: PREFIX,
    isKnownOrder: (oid) => store.getOrder(oid) !== undefined,
    unattributedFills: store.unattributedFills(),
    orderOf: (id) => store.getOrderByOrderId(id),
  });
  return commitReconcile(store, out, { prefix: PREFIX, meta: { 'fills.cursor': `{"newestSeen":${now}}` } });
}

describe('commitReconcile', () => {
  it('writes adopted orders, fills and every state change in one go', () => {
    const store = setup();
    const r = pass(store, T0 + 1_000);
    expect(r.anomalies).toEqual([]);
    expect(r.fillsRecorded).toBe(3);
    expect(store.getOrder(clientOid('cb-grid-1'))).toMatchObject({
      status: 'open',
      orderId: '700000000000000001',
    });
    expect(store.getOrder(clientOid('cb-grid-2'))!.filledQty.toFixed()).toBe('0.25');
    expect(store.getOrder(clientOid('cb-grid-a'))).toMatchObject({ status: 'filled', strategy: 'grid' });
    expect(store.getOrder(clientOid('cb-grid-a'))!.fillsQty!.toFixed()).toBe('1');
    expect(store.getOrder(clientOid('other-9'))).toBeUndefined();
    expect(store.unattributedFills().map((f) => f.tradeId)).toEqual(['3']); // the foreign fill
    expect(store.getMeta('fills.cursor')).toBe(`{"newestSeen":${T0 + 1_000}}`);
    // The adopted order used sequence 10 ("a" in base 36): new orders start after it.
    expect(store.nextSequence(strategyId('grid'))).toBe(11);
  });

  it('is idempotent: the same exchange picture again changes nothing (as after a restart)', () => {
    const store = setup();
    pass(store, T0 + 1_000);
    const before = store.allOrders();
    const again = pass(store, T0 + 2_000);
    expect(again.changed).toEqual([]);
    expect(again.fillsRecorded).toBe(0);
    expect(store.allOrders()).toEqual(before);
    expect(store.allFills()).toHaveLength(3);
  });

  it('rolls everything back when a write fails half-way', () => {
    const store = setup();
    const out = reconcile({
      orders: store.openOrders(),
      ...exchange,
      knownTradeIds: () => false,
      now: T0 + 1_000,
      graceMs: 60_000,
      prefix: PREFIX,
    });
    const broken = {
      ...out,
      adopted: [
        ...out.adopted,
        { ...out.adopted[0]!, clientOid: clientOid('cb-grid-b'), side: 'sideways' as never },
      ],
    };
    expect(() => commitReconcile(store, broken, { prefix: PREFIX, meta: { cursor: 'x' } })).toThrow();
    expect(store.allFills()).toEqual([]);
    expect(store.getOrder(clientOid('cb-grid-a'))).toBeUndefined();
    expect(store.getMeta('cursor')).toBeUndefined();
  });
});
