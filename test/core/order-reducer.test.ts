import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZERO, dec, decMax, decMin, type Dec } from '../../src/core/decimal.ts';
import { InvariantViolation } from '../../src/core/errors.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId, type OrderId } from '../../src/core/ids.ts';
import { applyOrderEvent, newOrder } from '../../src/core/order-reducer.ts';
import { STATUS_RANK } from '../../src/core/order-transitions.ts';
import { isTerminal, type Order } from '../../src/core/orders.ts';

const OID = clientOid('cb-grid-1');
const XID = orderId('700000000000000001');
const SIZE = dec('2');

function order(overrides: Partial<Order> = {}): Order {
  return {
    ...newOrder({
      clientOid: OID,
      strategy: strategyId('grid'),
      symbol: symbolId('cmt_btcusdt'),
      side: 'open_long',
      orderType: 'normal',
      size: SIZE,
      price: dec('100'),
      at: 1_000,
    }),
    ...overrides,
  };
}

let trade = 0;
function filled(size: string | Dec, price = '100', at = 2_000, id: OrderId = XID): OrderEvent {
  const s = dec(size);
  return {
    kind: 'OrderFilled',
    clientOid: OID,
    at,
    orderId: id,
    tradeId: tradeId(`t${++trade}`),
    fill: {
      tradeId: tradeId(`t${trade}`),
      orderId: id,
      symbol: symbolId('cmt_btcusdt'),
      positionSide: 'LONG',
      orderSide: 'BUY',
      direction: 'OPEN_LONG',
      size: s,
      value: s.times(price),
      fee: ZERO,
      realizedPnl: ZERO,
      createdTime: at,
    },
  };
}

const at = (t: number) => ({ clientOid: OID, at: t });

/** Applies events in turn, returning every intermediate result. */
function run(o: Order, events: readonly OrderEvent[]) {
  const results = [];
  let cur = o;
  for (const e of events) {
    const r = applyOrderEvent(cur, e);
    results.push(r);
    cur = r.order;
  }
  return { final: cur, results };
}

// ---- random event sequences -------------------------------------------------------------------

/** Quantities in quarters, so sums stay exact and overfills happen often enough. */
const arbQty = fc.integer({ min: 0, max: 12 }).map((n) => dec(n).div(4));
const arbPosQty = fc.integer({ min: 1, max: 6 }).map((n) => dec(n).div(4));
const arbPrice = fc.integer({ min: 90, max: 110 }).map((n) => dec(n));

const arbEvent: fc.Arbitrary<OrderEvent> = fc.integer({ min: 0, max: 10_000 }).chain((t) =>
  fc.oneof(
    fc.constant<OrderEvent>({ ...at(t), kind: 'OrderSubmitted' }),
    fc.constant<OrderEvent>({ ...at(t), kind: 'OrderAccepted', orderId: XID }),
    fc.constant<OrderEvent>({ ...at(t), kind: 'OrderRejected', code: '40015', reason: 'refused' }),
    fc.constant<OrderEvent>({ ...at(t), kind: 'OrderOutcomeUnknown', reason: 'timeout' }),
    fc.boolean().map<OrderEvent>((pending) => ({ ...at(t), kind: 'OrderOpen', orderId: XID, pending })),
    fc.tuple(arbPosQty, arbPrice).map(([q, p]) => filled(q, p.toFixed(), t)),
    fc.tuple(arbPosQty, arbPrice).map(([q, p]) => filled(q, p.toFixed(), t)),
    fc
      .tuple(arbQty, fc.option(arbPrice, { nil: undefined }))
      .map<OrderEvent>(([q, avg]) => ({
        ...at(t),
        kind: 'OrderProgress',
        orderId: XID,
        filledQty: q,
        ...(avg ? { avgPrice: avg } : {}),
      })),
    fc.constant<OrderEvent>({ ...at(t), kind: 'CancelRequested' }),
    fc.constant<OrderEvent>({ ...at(t), kind: 'CancelRejected', code: '50005', reason: 'no such order' }),
    fc
      .option(arbQty, { nil: undefined })
      .map<OrderEvent>((q) => ({ ...at(t), kind: 'OrderCanceled', ...(q ? { filledQty: q } : {}) })),
    arbQty.map<OrderEvent>((q) => ({ ...at(t), kind: 'OrderCompleted', filledQty: q })),
    fc.constant<OrderEvent>({ ...at(t), kind: 'OrderLost', reason: 'no trace' }),
  ),
);

const arbStart = fc.constantFrom<Partial<Order>>(
  {},
  { status: 'submitted' },
  { status: 'unknown' },
  { status: 'open', orderId: XID },
  { status: 'canceling', orderId: XID },
  { status: 'canceling' },
);

describe('applyOrderEvent: invariants under random event sequences', () => {
  it('never moves backwards, terminal absorbs, filledQty grows monotonically and never exceeds the size', () => {
    fc.assert(
      fc.property(arbStart, fc.array(arbEvent, { maxLength: 40 }), (start, events) => {
        let cur = order(start);
        for (const e of events) {
          const { order: next, changed } = applyOrderEvent(cur, e);
          // Never backwards (the answer to our own cancel is the one exception).
          if (!(cur.status === 'canceling' && e.kind === 'CancelRejected')) {
            expect(STATUS_RANK[next.status]).toBeGreaterThanOrEqual(STATUS_RANK[cur.status]);
          }
          if (isTerminal(cur.status)) expect(next.status).toBe(cur.status);
          expect(next.filledQty.gte(cur.filledQty)).toBe(true);
          expect(next.filledQty.lte(next.size)).toBe(true);
          expect(next.updatedAt).toBeGreaterThanOrEqual(cur.updatedAt);
          if (!changed) expect(next).toBe(cur);
          if (cur.orderId !== undefined) expect(next.orderId).toBe(cur.orderId);
          cur = next;
        }
      }),
      { numRuns: 400 },
    );
  });

  it('records every fill, also after a cancel, and counts reported progress and fills once', () => {
    fc.assert(
      fc.property(arbStart, fc.array(arbEvent, { maxLength: 40 }), (start, events) => {
        let cur = order(start);
        let fills = ZERO;
        let reported = ZERO;
        for (const e of events) {
          const before = cur;
          cur = applyOrderEvent(cur, e).order;
          if (e.kind === 'OrderFilled') {
            fills = fills.plus(e.fill.size);
            // A late fill after cancel is recorded and the status stays canceled.
            if (before.status === 'canceled') {
              expect(cur.status).toBe('canceled');
              expect(cur.fillsQty?.eq((before.fillsQty ?? ZERO).plus(e.fill.size))).toBe(true);
            }
          }
          if (e.kind === 'OrderProgress' || e.kind === 'OrderCompleted')
            reported = decMax(reported, e.filledQty);
          if (e.kind === 'OrderCanceled' && e.filledQty) reported = decMax(reported, e.filledQty);
          expect((cur.fillsQty ?? ZERO).eq(fills)).toBe(true);
          expect(cur.filledQty.eq(decMin(SIZE, decMax(fills, reported)))).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('keeps avgPrice = fill value ÷ fill size when only fills arrive', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(arbPosQty, arbPrice), { minLength: 1, maxLength: 10 }), (fs) => {
        const { final } = run(
          order({ status: 'open', orderId: XID }),
          fs.map(([q, p]) => filled(q, p.toFixed())),
        );
        const value = fs.reduce((s, [q, p]) => s.plus(q.times(p)), ZERO);
        const size = fs.reduce((s, [q]) => s.plus(q), ZERO);
        expect(final.avgPrice?.eq(value.div(size))).toBe(true);
      }),
    );
  });
});

describe('applyOrderEvent: readable cases', () => {
  it('newOrder starts as created with nothing filled', () => {
    const o = order();
    expect(o.status).toBe('created');
    expect(o.filledQty.eq(0)).toBe(true);
    expect(o.createdAt).toBe(1_000);
    expect(o.updatedAt).toBe(1_000);
    expect(() => newOrder({ ...o, size: dec('0'), at: 0 })).toThrow(InvariantViolation);
  });

  it('walks the happy path: submitted, accepted, partly filled, filled', () => {
    const { final, results } = run(order(), [
      { ...at(1_100), kind: 'OrderSubmitted' },
      { ...at(1_200), kind: 'OrderAccepted', orderId: XID },
      filled('0.5', '100', 1_300),
      filled('1.5', '104', 1_400),
    ]);
    expect(results.map((r) => r.order.status)).toEqual(['submitted', 'pending', 'open', 'filled']);
    expect(final.orderId).toBe(XID);
    expect(final.filledQty.eq(SIZE)).toBe(true);
    expect(final.avgPrice?.eq('103')).toBe(true);
    expect(final.updatedAt).toBe(1_400);
  });

  it('cancel-then-fill race: fills during the cancel grow the quantity, a late fill after cancel is recorded', () => {
    const { final, results } = run(order({ status: 'open', orderId: XID }), [
      { ...at(2_000), kind: 'CancelRequested' },
      filled('0.5', '100', 2_010),
      { ...at(2_020), kind: 'OrderCanceled', reason: 'user cancel' },
      filled('0.25', '100', 2_030),
    ]);
    expect(results.map((r) => r.order.status)).toEqual(['canceling', 'canceling', 'canceled', 'canceled']);
    expect(results[3]?.changed).toBe(true);
    expect(results[3]?.note).toMatch(/late fill/);
    expect(final.filledQty.eq('0.75')).toBe(true);
    expect(final.reason).toBe('user cancel');
  });

  it('a fill that completes the order during the cancel wins the race; the refused cancel changes nothing', () => {
    const { final, results } = run(order({ status: 'canceling', orderId: XID }), [
      filled('2', '100', 2_010),
      { ...at(2_020), kind: 'CancelRejected', code: '50005', reason: 'Order does not exist' },
    ]);
    expect(results.map((r) => r.order.status)).toEqual(['filled', 'filled']);
    expect(results[1]?.changed).toBe(false);
    expect(final.status).toBe('filled');
  });

  it('a refused cancel of an order never acknowledged sends it back to unknown for reconciliation', () => {
    const r = applyOrderEvent(order({ status: 'canceling' }), {
      ...at(2_000),
      kind: 'CancelRejected',
      code: '50005',
      reason: 'Order does not exist',
    });
    expect(r.order.status).toBe('unknown');
  });

  it('ignores OrderOpen after canceling and OrderAccepted after filled, without error', () => {
    const a = applyOrderEvent(order({ status: 'canceling', orderId: XID }), {
      ...at(3_000),
      kind: 'OrderOpen',
      orderId: XID,
      pending: false,
    });
    expect(a.order.status).toBe('canceling');
    expect(a.changed).toBe(false);
    expect(a.anomaly).toBeUndefined();
    const b = applyOrderEvent(order({ status: 'filled', orderId: XID, filledQty: SIZE }), {
      ...at(3_000),
      kind: 'OrderAccepted',
      orderId: XID,
    });
    expect(b.order.status).toBe('filled');
    expect(b.changed).toBe(false);
    expect(b.anomaly).toBeUndefined();
  });

  it('clamps an overfill to the size and reports it', () => {
    const r1 = applyOrderEvent(order({ status: 'open', orderId: XID }), filled('1.5'));
    const r2 = applyOrderEvent(r1.order, filled('1'));
    expect(r2.order.filledQty.eq(SIZE)).toBe(true);
    expect(r2.order.fillsQty?.eq('2.5')).toBe(true);
    expect(r2.order.status).toBe('filled');
    expect(r2.anomaly?.kind).toBe('overfill');
  });

  it('does not count a fill twice when the exchange reported the progress first', () => {
    const { final } = run(order({ status: 'open', orderId: XID }), [
      { ...at(2_000), kind: 'OrderProgress', orderId: XID, filledQty: dec('1'), avgPrice: dec('101') },
      filled('1', '101', 2_100),
    ]);
    expect(final.filledQty.eq('1')).toBe(true);
    expect(final.status).toBe('open');
    expect(final.avgPrice?.eq('101')).toBe(true);
  });

  it('takes the exchange average while it covers more than the fills seen', () => {
    const { final } = run(order({ status: 'open', orderId: XID }), [
      filled('0.5', '100'),
      { ...at(2_100), kind: 'OrderProgress', orderId: XID, filledQty: dec('1.5'), avgPrice: dec('102') },
    ]);
    expect(final.filledQty.eq('1.5')).toBe(true);
    expect(final.avgPrice?.eq('102')).toBe(true);
  });

  it('settles an unknown order from a complete fill', () => {
    const r = applyOrderEvent(order({ status: 'unknown' }), filled('2'));
    expect(r.order.status).toBe('filled');
    expect(r.order.orderId).toBe(XID);
  });

  it('returns an anomaly, not a change, for OrderLost on an acknowledged order and for a double submit', () => {
    const lost = applyOrderEvent(order({ status: 'open', orderId: XID }), {
      ...at(5_000),
      kind: 'OrderLost',
      reason: 'grace',
    });
    expect(lost.changed).toBe(false);
    expect(lost.anomaly?.kind).toBe('invalid_transition');
    const twice = applyOrderEvent(order({ status: 'submitted' }), { ...at(5_000), kind: 'OrderSubmitted' });
    expect(twice.changed).toBe(false);
    expect(twice.anomaly?.kind).toBe('invalid_transition');
  });

  it('declares a lost order rejected, and flags it when the exchange later shows it (quantity still recorded)', () => {
    const lost = applyOrderEvent(order({ status: 'unknown' }), {
      ...at(60_000),
      kind: 'OrderLost',
      reason: 'no trace after 60 s',
    });
    expect(lost.order.status).toBe('rejected');
    expect(lost.order.reason).toBe('no trace after 60 s');
    const late = applyOrderEvent(lost.order, filled('1', '100', 61_000));
    expect(late.order.status).toBe('rejected');
    expect(late.order.filledQty.eq('1')).toBe(true);
    expect(late.anomaly?.kind).toBe('contradiction');
  });

  it('flags a rejection that contradicts an acknowledged order and keeps the order', () => {
    const r = applyOrderEvent(order({ status: 'open', orderId: XID }), {
      ...at(3_000),
      kind: 'OrderRejected',
      code: '40015',
      reason: 'x',
    });
    expect(r.order.status).toBe('open');
    expect(r.anomaly?.kind).toBe('contradiction');
  });

  it('refuses events naming another exchange order id', () => {
    const r = applyOrderEvent(
      order({ status: 'open', orderId: XID }),
      filled('1', '100', 2_000, orderId('999')),
    );
    expect(r.changed).toBe(false);
    expect(r.anomaly?.kind).toBe('id_mismatch');
  });

  it('records the code and reason of a rejection', () => {
    const r = applyOrderEvent(order({ status: 'submitted' }), {
      ...at(3_000),
      kind: 'OrderRejected',
      code: '40015',
      reason: 'price out of range',
    });
    expect(r.order.status).toBe('rejected');
    expect(r.order.reason).toBe('40015: price out of range');
  });

  it('never moves updatedAt back for an out-of-order event', () => {
    const a = applyOrderEvent(
      order({ status: 'open', orderId: XID, updatedAt: 5_000 }),
      filled('1', '100', 4_000),
    );
    expect(a.changed).toBe(true);
    expect(a.order.updatedAt).toBe(5_000);
  });
});
