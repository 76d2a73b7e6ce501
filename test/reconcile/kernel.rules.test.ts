// The reconcile kernel's rules one by one: which orders may be declared lost and when (K2), how rows
// are matched (mismatched ids, duplicated client_oids), the events that settle an order (K1, K3, K4),
// fill ordering, deduplication and linking (K5), and the adopted record (K6). Complements the
// scenarios of kernel.test.ts and the properties of kernel.property.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZERO, dec } from '../../src/core/decimal.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import { clientOid, orderId, tradeId } from '../../src/core/ids.ts';
import { ORDER_STATUSES, type Order } from '../../src/core/orders.ts';
import { mayBeLost, reconcile, type ReconcileInput } from '../../src/reconcile/kernel.ts';
import { BTC, GRID, PREFIX, T0, fillOf, localOrder, row } from './fixtures.ts';

const GRACE = 60_000;
const NOW = T0 + 1_000;
const X1 = orderId('700000000000000001');
const X2 = orderId('700000000000000002');
const OID1 = clientOid('cb-grid-1');

function run(over: Partial<ReconcileInput>) {
  return reconcile({
    orders: [],
    reports: [],
    fills: [],
    knownTradeIds: () => false,
    now: NOW,
    graceMs: GRACE,
    prefix: PREFIX,
    ...over,
  });
}
const kinds = (events: readonly OrderEvent[]) => events.map((e) => e.kind);
const codes = (out: ReturnType<typeof run>) => out.warnings.map((w) => w.code);

describe('reconcile kernel: which orders may be declared lost (K2)', () => {
  it('exactly the unacknowledged submitted, unknown and canceling orders', () => {
    for (const status of ORDER_STATUSES) {
      const may = ['submitted', 'unknown', 'canceling'].includes(status);
      expect(mayBeLost({ status })).toBe(may);
      expect(mayBeLost({ status, orderId: X1 })).toBe(false);
      const out = run({ orders: [localOrder(1, { status })], now: T0 + GRACE });
      expect(kinds(out.events)).toEqual(may ? ['OrderLost'] : []);
      const acked = run({ orders: [localOrder(1, { status, orderId: X1 })], now: T0 + GRACE });
      expect(acked.events).toEqual([]);
    }
  });

  it('declares lost from exactly graceMs of silence since the last update, with the event and the warning', () => {
    const o = localOrder(1, { status: 'unknown', updatedAt: T0 + 500 });
    expect(run({ orders: [o], now: T0 + 500 + GRACE - 1 }).events).toEqual([]);
    const out = run({ orders: [o], now: T0 + 500 + GRACE });
    expect(out.events).toEqual([
      { kind: 'OrderLost', clientOid: OID1, at: T0 + 500 + GRACE, reason: expect.any(String) as unknown },
    ]);
    expect(out.warnings).toEqual([
      { code: 'order-lost', clientOid: OID1, message: expect.any(String) as unknown },
    ]);
  });

  it('declares lost an order created exactly at the start of the covered history, not one before it', () => {
    const o = localOrder(1, { status: 'unknown', createdAt: T0 });
    expect(kinds(run({ orders: [o], now: T0 + GRACE, historyCoversSince: T0 }).events)).toEqual([
      'OrderLost',
    ]);
    const before = run({ orders: [o], now: T0 + GRACE, historyCoversSince: T0 + 1 });
    expect(before.events).toEqual([]);
    expect(before.warnings).toEqual([
      { code: 'unsettled-outside-history', clientOid: OID1, message: expect.any(String) as unknown },
    ]);
    // Another symbol's bound does not apply; the overall bound does.
    const other = new Map([[clientOid('x') as unknown as typeof BTC, T0 + 1]]);
    expect(
      run({ orders: [o], now: T0 + GRACE, historyCoversSince: T0 + 1, historyCoversSinceBySymbol: other })
        .events,
    ).toEqual([]);
    expect(kinds(run({ orders: [o], now: T0 + GRACE, historyCoversSinceBySymbol: other }).events)).toEqual([
      'OrderLost',
    ]);
  });

  it('a silent order within its grace period gets no warning either', () => {
    const o = localOrder(1, { status: 'unknown', createdAt: T0 });
    const out = run({ orders: [o], now: T0 + 10, historyCoversSince: T0 + 1 });
    expect(out.events).toEqual([]);
    expect(out.warnings).toEqual([]);
  });
});

describe('reconcile kernel: matching rows to local orders', () => {
  it('a row whose order id belongs to another local client_oid is flagged and not applied', () => {
    const o = localOrder(1, { status: 'open', orderId: X1 });
    const out = run({
      orders: [o],
      reports: [row(1, { clientOid: clientOid('cb-grid-9'), status: 'filled' })],
    });
    expect(out.warnings).toEqual([
      { code: 'order-id-mismatch', clientOid: OID1, orderId: X1, message: expect.any(String) as unknown },
    ]);
    expect(out.events).toEqual([]);
    expect(out.adopted).toEqual([]);
  });

  it('a second exchange order for a client_oid already linked is a duplicate client_oid, not applied', () => {
    const o = localOrder(1, { status: 'open', orderId: X1 });
    const out = run({
      orders: [o],
      reports: [row(2, { clientOid: OID1, status: 'filled', filledQty: dec('1') })],
    });
    expect(out.warnings).toEqual([
      { code: 'duplicate-client-oid', clientOid: OID1, orderId: X2, message: expect.any(String) as unknown },
    ]);
    expect(out.events).toEqual([]);
  });

  it('two rows for one unlinked client_oid: the first is kept and the second flagged', () => {
    const o = localOrder(1, { status: 'unknown' });
    const out = run({ orders: [o], reports: [row(1), row(2, { clientOid: OID1 })] });
    expect(out.warnings).toEqual([
      { code: 'duplicate-client-oid', clientOid: OID1, orderId: X2, message: expect.any(String) as unknown },
    ]);
    expect(out.events[0]).toEqual({ kind: 'OrderAccepted', clientOid: OID1, at: NOW, orderId: X1 });
  });

  it('a row without client_oid is matched by its order id', () => {
    const o = localOrder(1, { status: 'open', orderId: X1 });
    const r = row(1, { status: 'canceled' });
    delete (r as { clientOid?: unknown }).clientOid;
    const out = run({ orders: [o], reports: [r] });
    expect(kinds(out.events)).toEqual(['OrderCanceled']);
    expect(out.foreign).toEqual([]);
  });

  it('flags conflicting history rows with the kept row’s client_oid when it has one', () => {
    const filled = row(1, { status: 'filled', filledQty: dec('1') });
    const canceled = row(1, { status: 'canceled', filledQty: dec('1') });
    const out = run({ reports: [filled, canceled], isKnownOrder: () => true });
    expect(out.warnings).toStrictEqual([
      { code: 'conflicting-reports', orderId: X1, clientOid: OID1, message: expect.any(String) as unknown },
    ]);
    const bare = [filled, canceled].map((r) => {
      const c = { ...r };
      delete (c as { clientOid?: unknown }).clientOid;
      return c;
    });
    expect(run({ reports: bare }).warnings[0]).toStrictEqual({
      code: 'conflicting-reports',
      orderId: X1,
      message: expect.any(String) as unknown,
    });
  });
});

describe('reconcile kernel: settling an order from its row (K1, K3, K4)', () => {
  const settle = (o: Order, r = row(1)) => run({ orders: [o], reports: [r] }).events;

  it('an unlinked order is accepted first (then pending), then brought to the row’s status', () => {
    expect(settle(localOrder(1, { status: 'unknown' }), row(1, { status: 'pending' }))).toEqual([
      { kind: 'OrderAccepted', clientOid: OID1, at: NOW, orderId: X1 },
    ]);
    expect(kinds(settle(localOrder(1, { status: 'unknown' }), row(1, { status: 'untriggered' })))).toEqual([
      'OrderAccepted',
    ]);
    expect(settle(localOrder(1, { status: 'submitted' }), row(1, { status: 'open' }))).toEqual([
      { kind: 'OrderAccepted', clientOid: OID1, at: NOW, orderId: X1 },
      { kind: 'OrderOpen', clientOid: OID1, at: NOW, orderId: X1, pending: false },
    ]);
    // Linked but not yet seen in matching: a pending row moves it to pending.
    expect(
      settle(localOrder(1, { status: 'submitted', orderId: X1 }), row(1, { status: 'pending' })),
    ).toEqual([{ kind: 'OrderOpen', clientOid: OID1, at: NOW, orderId: X1, pending: true }]);
    // An untriggered row is a plan waiting for its trigger: it proves acceptance, nothing more.
    expect(
      settle(localOrder(1, { status: 'submitted', orderId: X1 }), row(1, { status: 'untriggered' })),
    ).toEqual([]);
  });

  it('never emits an event that would not advance the order', () => {
    // Linked and pending, row pending: nothing. Linked and pending, row open: open.
    expect(settle(localOrder(1, { status: 'pending', orderId: X1 }), row(1, { status: 'pending' }))).toEqual(
      [],
    );
    expect(
      kinds(settle(localOrder(1, { status: 'pending', orderId: X1 }), row(1, { status: 'open' }))),
    ).toEqual(['OrderOpen']);
    expect(settle(localOrder(1, { status: 'open', orderId: X1 }), row(1, { status: 'open' }))).toEqual([]);
    expect(settle(localOrder(1, { status: 'open', orderId: X1 }), row(1, { status: 'pending' }))).toEqual([]);
    expect(settle(localOrder(1, { status: 'canceling', orderId: X1 }), row(1, { status: 'open' }))).toEqual(
      [],
    );
    // Canceling at the exchange proves the order rested in the book.
    expect(
      settle(localOrder(1, { status: 'pending', orderId: X1 }), row(1, { status: 'canceling' })),
    ).toEqual([{ kind: 'OrderOpen', clientOid: OID1, at: NOW, orderId: X1, pending: false }]);
    // An unlinked canceling order found pending: accepted only (its cancel decides).
    expect(kinds(settle(localOrder(1, { status: 'canceling' }), row(1, { status: 'pending' })))).toEqual([
      'OrderAccepted',
    ]);
  });

  it('completes with the reported quantity and average, the average only when both are above zero', () => {
    const open = localOrder(1, { status: 'open', orderId: X1 });
    expect(settle(open, row(1, { status: 'filled', filledQty: dec('1'), priceAvg: dec('60010') }))).toEqual([
      { kind: 'OrderCompleted', clientOid: OID1, at: NOW, filledQty: dec('1'), avgPrice: dec('60010') },
    ]);
    expect(settle(open, row(1, { status: 'filled', filledQty: dec('1'), priceAvg: ZERO }))).toEqual([
      { kind: 'OrderCompleted', clientOid: OID1, at: NOW, filledQty: dec('1') },
    ]);
    expect(settle(open, row(1, { status: 'filled', filledQty: ZERO, priceAvg: dec('60010') }))).toEqual([
      { kind: 'OrderCompleted', clientOid: OID1, at: NOW, filledQty: ZERO },
    ]);
  });

  it('cancels with the reported quantity and a reason', () => {
    expect(
      settle(
        localOrder(1, { status: 'open', orderId: X1 }),
        row(1, { status: 'canceled', filledQty: dec('0.5') }),
      ),
    ).toEqual([
      {
        kind: 'OrderCanceled',
        clientOid: OID1,
        at: NOW,
        filledQty: dec('0.5'),
        reason: expect.any(String) as unknown,
      },
    ]);
  });

  it('reports progress only beyond what the order and its new fills already hold', () => {
    const o = localOrder(1, { status: 'open', orderId: X1, filledQty: dec('0.5'), fillsQty: dec('0.25') });
    const r = row(1, { status: 'open', filledQty: dec('0.75'), priceAvg: dec('60005') });
    expect(settle(o, r)).toEqual([
      {
        kind: 'OrderProgress',
        clientOid: OID1,
        at: NOW,
        orderId: X1,
        filledQty: dec('0.75'),
        avgPrice: dec('60005'),
      },
    ]);
    expect(settle(o, row(1, { status: 'open', filledQty: dec('0.5') }))).toEqual([]);
    // Fills in this batch (0.25 stored + 0.25 + 0.25 new) already reach the reported 0.75.
    const withFills = run({
      orders: [o],
      reports: [r],
      fills: [fillOf(1, '1', { size: dec('0.25') }), fillOf(1, '2', { size: dec('0.25') })],
    });
    expect(kinds(withFills.events)).toEqual(['OrderFilled', 'OrderFilled']);
    // One new fill (0.25 + 0.25 = 0.5) does not: progress follows the fill.
    const oneFill = run({ orders: [o], reports: [r], fills: [fillOf(1, '1', { size: dec('0.25') })] });
    expect(kinds(oneFill.events)).toEqual(['OrderFilled', 'OrderProgress']);
    // Without stored fills, the order's filled quantity counts.
    const bare = localOrder(1, { status: 'open', orderId: X1, filledQty: dec('0.75') });
    expect(settle(bare, r)).toEqual([]);
  });

  it('on a local terminal order: no status events, progress still recorded, mismatches flagged', () => {
    const filled = localOrder(1, { status: 'filled', orderId: X1, filledQty: dec('1') });
    const canceled = localOrder(1, { status: 'canceled', orderId: X1, filledQty: dec('0.25') });
    expect(settle(filled, row(1, { status: 'filled', filledQty: dec('1') }))).toEqual([]);
    const c = run({ orders: [canceled], reports: [row(1, { status: 'filled', filledQty: dec('1') })] });
    expect(kinds(c.events)).toEqual(['OrderProgress']);
    expect(c.warnings).toEqual([
      { code: 'terminal-mismatch', clientOid: OID1, orderId: X1, message: expect.any(String) as unknown },
    ]);
    expect(
      codes(run({ orders: [canceled], reports: [row(1, { status: 'canceled', filledQty: dec('0.25') })] })),
    ).toEqual([]);
    // A live row on a terminal order is stale: no warning, no event.
    const stale = run({ orders: [canceled], reports: [row(1, { status: 'open' })] });
    expect(stale.events).toEqual([]);
    expect(stale.warnings).toEqual([]);
  });

  it('a rejected (lost) order found at the exchange is flagged, linked, and not moved', () => {
    const lost = localOrder(1, { status: 'rejected' });
    const out = run({ orders: [lost], reports: [row(1, { status: 'filled', filledQty: dec('1') })] });
    expect(out.warnings).toEqual([
      { code: 'lost-order-found', clientOid: OID1, orderId: X1, message: expect.any(String) as unknown },
    ]);
    expect(kinds(out.events)).toEqual(['OrderAccepted', 'OrderProgress']);
  });
});

describe('reconcile kernel: fills (K5)', () => {
  it('orders fills by time, then by tradeId, and gives each its event', () => {
    const o = localOrder(1, { status: 'open', orderId: X1 });
    const at = T0 + 5;
    const fills = [
      fillOf(1, '9', { createdTime: at }),
      fillOf(1, '3', { createdTime: at + 1 }),
      fillOf(1, '7', { createdTime: at }),
      fillOf(1, '8', { createdTime: at }),
    ];
    fc.assert(
      fc.property(fc.shuffledSubarray(fills, { minLength: 4, maxLength: 4 }), (shuffled) => {
        const out = run({ orders: [o], fills: shuffled });
        expect(out.newFills.map((f) => f.tradeId)).toEqual(['7', '8', '9', '3']);
        expect(out.events.map((e) => (e.kind === 'OrderFilled' ? e.tradeId : ''))).toEqual([
          '7',
          '8',
          '9',
          '3',
        ]);
      }),
    );
    const out = run({ orders: [o], fills: [fills[0]!] });
    expect(out.events).toEqual([
      { kind: 'OrderFilled', clientOid: OID1, at: NOW, orderId: X1, tradeId: tradeId('9'), fill: fills[0] },
    ]);
    expect(out.newFills).toEqual([{ ...fills[0], clientOid: OID1 }]);
  });

  it('skips fills already stored, and fills seen earlier in the batch', () => {
    const o = localOrder(1, { status: 'open', orderId: X1 });
    const out = run({
      orders: [o],
      fills: [fillOf(1, '1'), fillOf(1, '2'), fillOf(1, '1')],
      knownTradeIds: (id) => id === '2',
    });
    expect(out.newFills.map((f) => f.tradeId)).toEqual(['1']);
    expect(kinds(out.events)).toEqual(['OrderFilled']);
  });

  it('links a fill through the store lookup only when the stored order carries that order id', () => {
    const ended = localOrder(1, { status: 'filled', orderId: X1, filledQty: dec('1') });
    const linked = run({ fills: [fillOf(1, '1')], orderOf: (id) => (id === X1 ? ended : undefined) });
    expect(linked.newFills[0]!.clientOid).toBe(OID1);
    expect(kinds(linked.events)).toEqual(['OrderFilled']);
    const wrong = run({ fills: [fillOf(1, '1')], orderOf: () => ({ ...ended, orderId: X2 }) });
    expect(wrong.newFills).toStrictEqual([fillOf(1, '1')]);
    expect(wrong.events).toEqual([]);
    // A local order is not replaced by the stored copy.
    const local = localOrder(1, { status: 'open', orderId: X2 });
    const both = run({ orders: [local], fills: [fillOf(1, '1')], orderOf: () => ended });
    expect(both.events).toEqual([
      expect.objectContaining({ kind: 'OrderFilled', clientOid: OID1, orderId: X2 }) as unknown,
    ]);
  });

  it('attributes stored unattributed fills once their order is known, oldest first, skipping duplicates', () => {
    const o = localOrder(1, { status: 'open', orderId: X1 });
    const older = { ...fillOf(1, '1'), createdTime: T0 };
    const newer = { ...fillOf(1, '2'), createdTime: T0 + 1 };
    const out = run({
      orders: [o],
      fills: [fillOf(1, '3')],
      unattributedFills: [
        newer,
        older,
        fillOf(1, '3'),
        { ...fillOf(1, '4'), clientOid: OID1 },
        fillOf(2, '5'),
      ],
    });
    expect(out.attributed).toEqual([
      { tradeId: '1', clientOid: OID1 },
      { tradeId: '2', clientOid: OID1 },
    ]);
    expect(out.events.map((e) => (e.kind === 'OrderFilled' ? e.tradeId : e.kind))).toEqual(['1', '2', '3']);
  });
});

describe('reconcile kernel: adoption and foreign rows (K6)', () => {
  it('builds the adopted record from the row', () => {
    const out = run({
      reports: [
        row(7, {
          clientOid: clientOid('cb-grid-7'),
          type: 'close_short',
          orderType: 'ioc',
          status: 'open',
          filledQty: dec('0.25'),
          priceAvg: dec('60001'),
          createTime: T0 - 5,
        }),
      ],
    });
    expect(out.adopted).toEqual([
      {
        clientOid: 'cb-grid-7',
        orderId: '700000000000000007',
        strategy: GRID,
        symbol: BTC,
        side: 'close_short',
        orderType: 'ioc',
        price: dec('60000'),
        size: dec('1'),
        status: 'open',
        filledQty: dec('0.25'),
        avgPrice: dec('60001'),
        createdAt: T0 - 5,
        updatedAt: NOW,
        reason: expect.any(String) as unknown,
      },
    ]);
  });

  it('a market row (price 0), an unknown order type, quantities out of range', () => {
    const adopt = (over: Parameters<typeof row>[1]) => run({ reports: [row(7, over)] }).adopted[0]!;
    const m = adopt({ clientOid: clientOid('cb-grid-7'), price: ZERO, orderType: 'plan' });
    expect('price' in m).toBe(false);
    expect(m.orderType).toBe('normal');
    expect('avgPrice' in m).toBe(false);
    expect(adopt({ clientOid: clientOid('cb-grid-7'), filledQty: dec('3') }).filledQty).toEqual(dec('1'));
    expect(adopt({ clientOid: clientOid('cb-grid-7'), filledQty: dec('-1') }).filledQty).toEqual(ZERO);
    expect(adopt({ clientOid: clientOid('cb-grid-7'), filledQty: dec('1') }).filledQty).toEqual(dec('1'));
    const noAvg = adopt({ clientOid: clientOid('cb-grid-7'), filledQty: dec('0.5'), priceAvg: ZERO });
    expect('avgPrice' in noAvg).toBe(false);
    expect(adopt({ clientOid: clientOid('cb-grid-7'), status: 'filled', filledQty: dec('1') }).status).toBe(
      'filled',
    );
  });

  it('an unadoptable row and a second row for an adopted client_oid are flagged with their ids', () => {
    const bad = run({
      reports: [row(5, { clientOid: clientOid('cb-grid-5'), type: 'burst_liquidate_long' })],
    });
    expect(bad.warnings).toEqual([
      {
        code: 'unadoptable',
        clientOid: 'cb-grid-5',
        orderId: '700000000000000005',
        message: expect.any(String) as unknown,
      },
    ]);
    const twice = run({
      reports: [row(5, { clientOid: clientOid('cb-grid-5') }), row(6, { clientOid: clientOid('cb-grid-5') })],
    });
    expect(twice.adopted.map((a) => a.orderId)).toEqual(['700000000000000005']);
    expect(twice.warnings).toEqual([
      {
        code: 'duplicate-client-oid',
        clientOid: 'cb-grid-5',
        orderId: '700000000000000006',
        message: expect.any(String) as unknown,
      },
    ]);
  });

  it('an order known to the store (outside the window) is neither adopted nor foreign', () => {
    const out = run({ reports: [row(5, { clientOid: clientOid('cb-grid-5') })], isKnownOrder: () => true });
    expect(out.adopted).toEqual([]);
    expect(out.foreign).toEqual([]);
    expect(
      run({ reports: [row(5, { clientOid: clientOid('cb-grid-5') })], isKnownOrder: () => false }).adopted,
    ).toHaveLength(1);
  });

  it('sorts adopted orders by client_oid and foreign rows by creation time, then order id', () => {
    const out = run({
      reports: [
        row(2, { clientOid: clientOid('cb-grid-b') }),
        row(1, { clientOid: clientOid('cb-grid-a') }),
        row(5, { clientOid: clientOid('hb-5'), createTime: T0 + 2 }),
        row(4, { clientOid: clientOid('hb-4'), createTime: T0 + 1 }),
        row(3, { clientOid: clientOid('hb-3'), createTime: T0 + 2 }),
      ],
    });
    expect(out.adopted.map((a) => a.clientOid)).toEqual(['cb-grid-a', 'cb-grid-b']);
    expect(out.foreign.map((r) => r.orderId)).toEqual([
      '700000000000000004',
      '700000000000000003',
      '700000000000000005',
    ]);
  });

  it('sorts adopted orders by client_oid whatever order the rows come in', () => {
    const oids = ['cb-grid-a', 'cb-grid-c', 'cb-grid-b'].map(clientOid);
    const out = run({ reports: oids.map((oid, i) => row(i + 1, { clientOid: oid })) });
    expect(out.adopted.map((a) => a.clientOid)).toEqual(['cb-grid-a', 'cb-grid-b', 'cb-grid-c']);
  });
});

describe('reconcile kernel: linking fills, edge cases', () => {
  it('a fill of a linked order keeps its link even when the store lookup knows nothing', () => {
    const o = localOrder(1, { status: 'open', orderId: X1 });
    const out = run({ orders: [o], fills: [fillOf(1, '1')], orderOf: () => undefined });
    expect(out.newFills[0]!.clientOid).toBe(OID1);
    expect(kinds(out.events)).toEqual(['OrderFilled']);
  });

  it('a fill the store lookup does not know stays unattributed', () => {
    const out = run({ fills: [fillOf(1, '1')], orderOf: () => undefined });
    expect(out.newFills).toStrictEqual([fillOf(1, '1')]);
    expect(out.events).toEqual([]);
  });

  it('an order without an exchange id is never linked to anything, with or without stored fills', () => {
    const noId = localOrder(1, { status: 'unknown' });
    const out = run({ orderOf: () => noId });
    expect(out.attributed).toEqual([]);
    expect(out.events).toEqual([]);
  });

  it('of two copies of one trade delivered at the same time, the first delivered is recorded', () => {
    const o = localOrder(1, { status: 'open', orderId: X1 });
    const first = fillOf(1, '1', { fee: dec('0.1') });
    const second = fillOf(1, '1', { fee: dec('0.2') });
    const out = run({ orders: [o], fills: [first, second] });
    expect(out.newFills).toStrictEqual([{ ...first, clientOid: OID1 }]);
  });
});
