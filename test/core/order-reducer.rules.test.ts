// The reducer's rules one by one: refused inputs (bad sizes, prices and quantities, foreign ids), the
// facts it hands the transition table, which average price wins, when a result counts as changed, and
// which anomalies and notes come back. Complements the properties of order-reducer.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZERO, dec, type Dec } from '../../src/core/decimal.ts';
import { InvariantViolation } from '../../src/core/errors.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../../src/core/ids.ts';
import { applyOrderEvent, newOrder, type NewOrderInput } from '../../src/core/order-reducer.ts';
import type { Order, OrderStatus } from '../../src/core/orders.ts';

const OID = clientOid('cb-grid-1');
const XID = orderId('700000000000000001');
const SIZE = dec('2');

const INPUT: NewOrderInput = {
  clientOid: OID,
  strategy: strategyId('grid'),
  symbol: symbolId('cmt_btcusdt'),
  side: 'open_long',
  orderType: 'normal',
  size: SIZE,
  price: dec('100'),
  at: 1_000,
};

const order = (over: Partial<Order> = {}): Order => ({ ...newOrder(INPUT), ...over });
const acked = (status: OrderStatus, over: Partial<Order> = {}): Order =>
  order({ status, orderId: XID, ...over });

const T = 2_000;
const ev = { clientOid: OID, at: T };
let trade = 0;
function fill(size: string, value?: string, id = XID): OrderEvent {
  const t = tradeId(`r${++trade}`);
  return {
    ...ev,
    kind: 'OrderFilled',
    orderId: id,
    tradeId: t,
    fill: {
      tradeId: t,
      orderId: id,
      symbol: symbolId('cmt_btcusdt'),
      positionSide: 'LONG',
      orderSide: 'BUY',
      direction: 'OPEN_LONG',
      size: dec(size),
      value: value !== undefined ? dec(value) : dec(size).times(100),
      fee: ZERO,
      realizedPnl: ZERO,
      createdTime: T,
    },
  };
}
const progress = (qty: string, avg?: string): OrderEvent => ({
  ...ev,
  kind: 'OrderProgress',
  orderId: XID,
  filledQty: dec(qty),
  ...(avg !== undefined ? { avgPrice: dec(avg) } : {}),
});
const completed = (qty: string, avg?: string): OrderEvent => ({
  ...ev,
  kind: 'OrderCompleted',
  filledQty: dec(qty),
  ...(avg !== undefined ? { avgPrice: dec(avg) } : {}),
});
const canceled = (qty?: string, reason?: string): OrderEvent => ({
  ...ev,
  kind: 'OrderCanceled',
  ...(qty !== undefined ? { filledQty: dec(qty) } : {}),
  ...(reason !== undefined ? { reason } : {}),
});
const accepted = (id = XID): OrderEvent => ({ ...ev, kind: 'OrderAccepted', orderId: id });
const opened = (pending = false): OrderEvent => ({ ...ev, kind: 'OrderOpen', orderId: XID, pending });
const rejected = (code: string, reason: string): OrderEvent => ({
  ...ev,
  kind: 'OrderRejected',
  code,
  reason,
});
const lost: OrderEvent = { ...ev, kind: 'OrderLost', reason: 'no trace' };
const eq = (a: Dec | undefined, b: string): boolean => a !== undefined && a.eq(b);

describe('newOrder: refused inputs', () => {
  it('refuses a size or a price that is not above zero', () => {
    for (const size of ['0', '-1', '-0.0001'])
      expect(() => newOrder({ ...INPUT, size: dec(size) })).toThrow(InvariantViolation);
    for (const price of ['0', '-1', '-0.0001'])
      expect(() => newOrder({ ...INPUT, price: dec(price) })).toThrow(InvariantViolation);
  });

  it('accepts the smallest positive size and price, and a market order without a price', () => {
    const o = newOrder({ ...INPUT, size: dec('0.0001'), price: dec('0.0001') });
    expect(eq(o.size, '0.0001') && eq(o.price, '0.0001')).toBe(true);
    const { price: _price, ...market } = INPUT;
    const m = newOrder({ ...market, orderType: 'normal' });
    expect('price' in m).toBe(false);
  });

  it('copies every input field, the tag only when given', () => {
    expect(newOrder({ ...INPUT, tag: 'bid-1' })).toEqual({
      clientOid: OID,
      strategy: INPUT.strategy,
      symbol: INPUT.symbol,
      side: 'open_long',
      orderType: 'normal',
      price: INPUT.price,
      size: SIZE,
      status: 'created',
      filledQty: ZERO,
      tag: 'bid-1',
      createdAt: 1_000,
      updatedAt: 1_000,
    });
    expect('tag' in newOrder(INPUT)).toBe(false);
  });
});

describe('applyOrderEvent: refused events change nothing', () => {
  it('an event for another client_oid', () => {
    const o = acked('open');
    const r = applyOrderEvent(o, { ...fill('1'), clientOid: clientOid('cb-grid-2') });
    expect(r).toStrictEqual({
      order: o,
      changed: false,
      anomaly: { kind: 'id_mismatch', detail: expect.any(String) },
    });
    expect(r.order).toBe(o);
  });

  it('an event naming another exchange order id; events without an id, or on an order without one, pass', () => {
    const other = orderId('999');
    const foreignOpen: OrderEvent = { ...ev, kind: 'OrderOpen', orderId: other, pending: false };
    for (const e of [accepted(other), foreignOpen, fill('1', undefined, other)]) {
      const r = applyOrderEvent(acked('open'), e);
      expect(r.changed).toBe(false);
      expect(r.anomaly?.kind).toBe('id_mismatch');
    }
    const foreignProgress: OrderEvent = { ...ev, kind: 'OrderProgress', orderId: other, filledQty: dec('1') };
    expect(applyOrderEvent(acked('open'), foreignProgress).anomaly?.kind).toBe('id_mismatch');
    expect(applyOrderEvent(acked('open'), canceled()).order.status).toBe('canceled');
    const adopted = applyOrderEvent(order({ status: 'submitted' }), accepted(other));
    expect(adopted.order.orderId).toBe(other);
    expect(adopted.anomaly).toBeUndefined();
  });

  it('a fill with a size ≤ 0 or a negative value', () => {
    for (const [size, value] of [
      ['0', '0'],
      ['-1', '100'],
      ['1', '-0.01'],
    ] as const) {
      const o = acked('open');
      const r = applyOrderEvent(o, fill(size, value));
      expect(r).toStrictEqual({
        order: o,
        changed: false,
        anomaly: { kind: 'bad_quantity', detail: expect.any(String) },
      });
    }
  });

  it('accepts a fill of value zero (a free fill) and records it', () => {
    const r = applyOrderEvent(acked('open'), fill('1', '0'));
    expect(r.changed).toBe(true);
    expect(r.anomaly).toBeUndefined();
    expect(eq(r.order.fillsQty, '1') && eq(r.order.fillsValue, '0') && eq(r.order.avgPrice, '0')).toBe(true);
  });

  it('a negative reported quantity, in progress, completion or cancel; zero passes', () => {
    for (const e of [progress('-1'), completed('-0.5'), canceled('-1')]) {
      const o = acked('open');
      const r = applyOrderEvent(o, e);
      expect(r).toStrictEqual({
        order: o,
        changed: false,
        anomaly: { kind: 'bad_quantity', detail: expect.any(String) },
      });
    }
    expect(applyOrderEvent(acked('open'), canceled('0')).order.status).toBe('canceled');
    expect(applyOrderEvent(order({ status: 'submitted' }), progress('0')).order.status).toBe('pending');
  });

  it('an invalid transition, reported with its details', () => {
    const o = acked('open');
    const r = applyOrderEvent(o, lost);
    expect(r).toStrictEqual({
      order: o,
      changed: false,
      anomaly: { kind: 'invalid_transition', detail: expect.stringMatching(/OrderLost/) as unknown },
    });
  });
});

describe('applyOrderEvent: facts for the transition table', () => {
  it('acknowledged means the order had an exchange id before this event', () => {
    const refused: OrderEvent = { ...ev, kind: 'CancelRejected', code: '1', reason: 'no' };
    expect(applyOrderEvent(acked('canceling'), refused).order.status).toBe('open');
    expect(applyOrderEvent(order({ status: 'canceling' }), refused).order.status).toBe('unknown');
  });

  it('complete means the filled quantity reaches the size (exactly, or by clamping)', () => {
    expect(applyOrderEvent(acked('open'), fill('2')).order.status).toBe('filled');
    expect(applyOrderEvent(acked('open'), fill('1.9999')).order.status).toBe('open');
    expect(applyOrderEvent(acked('open'), progress('2')).order.status).toBe('filled');
    expect(applyOrderEvent(acked('canceling'), progress('3')).order.status).toBe('filled');
    expect(applyOrderEvent(acked('canceling'), progress('1.5')).order.status).toBe('canceling');
  });
});

describe('applyOrderEvent: quantities and average price', () => {
  it('sums fills from nothing and takes their average while they cover the filled quantity', () => {
    const a = applyOrderEvent(acked('open'), fill('0.5', '50'));
    expect(eq(a.order.fillsQty, '0.5') && eq(a.order.fillsValue, '50') && eq(a.order.filledQty, '0.5')).toBe(
      true,
    );
    expect(eq(a.order.avgPrice, '100')).toBe(true);
    const b = applyOrderEvent(a.order, fill('0.5', '60'));
    expect(eq(b.order.fillsQty, '1') && eq(b.order.fillsValue, '110') && eq(b.order.avgPrice, '110')).toBe(
      true,
    );
  });

  it('keeps the exchange average while the fills cover less than the reported progress', () => {
    const a = applyOrderEvent(acked('open'), progress('1.5', '102'));
    expect(eq(a.order.avgPrice, '102') && eq(a.order.filledQty, '1.5')).toBe(true);
    const b = applyOrderEvent(a.order, fill('1', '90'));
    expect(eq(b.order.avgPrice, '102') && eq(b.order.filledQty, '1.5')).toBe(true);
    // Once the fills cover exactly the reported quantity, their own average is used.
    const c = applyOrderEvent(b.order, fill('0.5', '60'));
    expect(eq(c.order.fillsQty, '1.5') && eq(c.order.avgPrice, '100')).toBe(true);
  });

  it('adopts a reported average only for progress above zero, not behind the filled quantity, beyond the fills', () => {
    // Zero progress carries no average.
    expect(applyOrderEvent(acked('open'), progress('0', '101')).order.avgPrice).toBeUndefined();
    // Progress behind what is already filled: the average of what is filled stays.
    const a = applyOrderEvent(acked('open'), progress('1.5', '102'));
    expect(eq(applyOrderEvent(a.order, progress('1', '99')).order.avgPrice, '102')).toBe(true);
    // Progress equal to the filled quantity, beyond the fills: the exchange's figure is newer.
    expect(eq(applyOrderEvent(a.order, progress('1.5', '103')).order.avgPrice, '103')).toBe(true);
    // Progress equal to the fills: the fills' average stays.
    const f = applyOrderEvent(acked('open'), fill('1', '100'));
    expect(eq(applyOrderEvent(f.order, progress('1', '120')).order.avgPrice, '100')).toBe(true);
    // Progress beyond the fills: adopted.
    expect(eq(applyOrderEvent(f.order, progress('1.25', '120')).order.avgPrice, '120')).toBe(true);
    // Completion carries its average too.
    expect(eq(applyOrderEvent(acked('open'), completed('2', '101')).order.avgPrice, '101')).toBe(true);
  });

  it('filled quantity = min(size, max(fills, reported)) for any fills and reports', () => {
    const arbQ = fc.integer({ min: 0, max: 12 }).map((n) => (n / 4).toString());
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            arbQ.filter((q) => q !== '0').map((q) => fill(q)),
            arbQ.map((q) => progress(q)),
          ),
          {
            maxLength: 8,
          },
        ),
        (events) => {
          let o = acked('open');
          let fills = ZERO;
          let reported = ZERO;
          for (const e of events) {
            o = applyOrderEvent(o, e).order;
            if (e.kind === 'OrderFilled') fills = fills.plus(e.fill.size);
            if (e.kind === 'OrderProgress' && e.filledQty.gt(reported)) reported = e.filledQty;
            const raw = fills.gt(reported) ? fills : reported;
            expect(o.filledQty.eq(raw.gt(SIZE) ? SIZE : raw)).toBe(true);
          }
        },
      ),
    );
  });
});

describe('applyOrderEvent: changed, updatedAt and reason', () => {
  it('an event that only brings the exchange order id is a change', () => {
    const r = applyOrderEvent(order({ status: 'canceling' }), accepted());
    expect(r.order.status).toBe('canceling');
    expect(r.changed).toBe(true);
    expect(r.order.orderId).toBe(XID);
    expect(r.order.updatedAt).toBe(T);
  });

  it('a fill already counted by reported progress is a change (fills grow), the filled quantity is not', () => {
    const a = applyOrderEvent(acked('open'), progress('1', '100')).order;
    const r = applyOrderEvent(a, fill('0.5'));
    expect(r.changed).toBe(true);
    expect(eq(r.order.filledQty, '1') && eq(r.order.fillsQty, '0.5')).toBe(true);
  });

  it('a newer average alone is a change', () => {
    const a = applyOrderEvent(acked('open'), progress('1', '100')).order;
    const r = applyOrderEvent(a, progress('1', '101'));
    expect(r.changed).toBe(true);
    expect(eq(r.order.avgPrice, '101')).toBe(true);
  });

  it('a duplicate report is no change: the same order object, updatedAt kept', () => {
    const a = applyOrderEvent(acked('open', { updatedAt: 1_500 }), progress('1', '100')).order;
    const r = applyOrderEvent(a, { ...progress('1', '100'), at: 9_000 });
    expect(r.changed).toBe(false);
    expect(r.order).toBe(a);
    expect(r.order.updatedAt).toBe(T);
  });

  it('updatedAt is the event time, never earlier than before', () => {
    expect(applyOrderEvent(acked('open', { updatedAt: 1_500 }), fill('1')).order.updatedAt).toBe(T);
    expect(applyOrderEvent(acked('open', { updatedAt: 2_500 }), fill('1')).order.updatedAt).toBe(2_500);
  });

  it('a reason is recorded only when the status moves', () => {
    const c = applyOrderEvent(acked('open'), canceled(undefined, 'user cancel')).order;
    expect(c.reason).toBe('user cancel');
    expect(applyOrderEvent(c, canceled(undefined, 'again')).order.reason).toBe('user cancel');
    expect('reason' in applyOrderEvent(acked('open'), canceled()).order).toBe(false);
    expect('reason' in applyOrderEvent(acked('open'), completed('2')).order).toBe(false);
    expect(applyOrderEvent(order({ status: 'unknown' }), lost).order.reason).toBe('no trace');
  });

  it('a rejection reason carries the code unless it is empty or the same text', () => {
    const sub = order({ status: 'submitted' });
    expect(applyOrderEvent(sub, rejected('40015', 'bad price')).order.reason).toBe('40015: bad price');
    expect(applyOrderEvent(sub, rejected('', 'superseded')).order.reason).toBe('superseded');
    expect(applyOrderEvent(sub, rejected('superseded', 'superseded')).order.reason).toBe('superseded');
  });
});

describe('applyOrderEvent: anomalies', () => {
  it('overfill: only when this event takes the quantity above the size', () => {
    expect(applyOrderEvent(acked('open'), fill('2.5')).anomaly?.kind).toBe('overfill');
    expect(applyOrderEvent(acked('open'), progress('2.5')).anomaly?.kind).toBe('overfill');
    expect(applyOrderEvent(acked('open'), canceled('2.5')).anomaly?.kind).toBe('overfill');
    expect(applyOrderEvent(acked('open'), fill('2')).anomaly).toBeUndefined();
    expect(applyOrderEvent(acked('open'), progress('2')).anomaly).toBeUndefined();
    // Already overfilled by fills; progress within the size says nothing new.
    const over = applyOrderEvent(acked('open'), fill('3')).order;
    expect(over.status).toBe('filled');
    expect(applyOrderEvent(over, progress('1')).anomaly).toBeUndefined();
    expect(
      applyOrderEvent(acked('open', { fillsQty: dec('3'), filledQty: SIZE }), progress('1')).anomaly,
    ).toBeUndefined();
  });

  it('contradiction: a rejection after the exchange acknowledged the order', () => {
    for (const s of ['pending', 'open', 'canceling'] as const) {
      const r = applyOrderEvent(acked(s), rejected('1', 'no'));
      expect(r.order.status).toBe(s);
      expect(r.anomaly?.kind).toBe('contradiction');
    }
    // Refused while an unacknowledged cancel is in flight: rejected, no contradiction.
    const r = applyOrderEvent(order({ status: 'canceling' }), rejected('1', 'no'));
    expect(r.order.status).toBe('rejected');
    expect(r.anomaly).toBeUndefined();
    expect(applyOrderEvent(order({ status: 'submitted' }), rejected('1', 'no')).anomaly).toBeUndefined();
    expect(applyOrderEvent(order({ status: 'unknown' }), rejected('1', 'no')).anomaly).toBeUndefined();
  });

  it('contradiction: exchange facts about an order recorded as rejected, but not our own doings', () => {
    const rej = order({ status: 'rejected', reason: 'no trace' });
    for (const e of [accepted(), opened(), fill('1'), progress('1'), canceled(), completed('2')]) {
      const r = applyOrderEvent(rej, e);
      expect(r.order.status).toBe('rejected');
      expect(r.anomaly?.kind).toBe('contradiction');
    }
    const noReason = order({ status: 'rejected' });
    expect(applyOrderEvent(noReason, opened()).anomaly?.kind).toBe('contradiction');
    for (const e of [
      rejected('1', 'again'),
      lost,
      { ...ev, kind: 'OrderOutcomeUnknown', reason: 'timeout' },
      { ...ev, kind: 'CancelRequested' },
      { ...ev, kind: 'CancelRejected', code: '1', reason: 'no' },
    ] satisfies OrderEvent[]) {
      expect(applyOrderEvent(rej, e).anomaly).toBeUndefined();
    }
  });

  it('contradiction: canceled for a filled order, filled for a canceled one, filled short of the size', () => {
    const f = acked('filled', { filledQty: SIZE });
    expect(applyOrderEvent(f, canceled()).anomaly?.kind).toBe('contradiction');
    expect(applyOrderEvent(f, completed('2')).anomaly).toBeUndefined();
    const c = acked('canceled');
    expect(applyOrderEvent(c, completed('2')).anomaly?.kind).toBe('contradiction');
    expect(applyOrderEvent(c, canceled()).anomaly).toBeUndefined();
    const short = applyOrderEvent(acked('open'), completed('1.5'));
    expect(short.anomaly?.kind).toBe('contradiction');
    expect(short.order.status).toBe('filled');
    expect(applyOrderEvent(acked('open'), completed('2')).anomaly).toBeUndefined();
  });
});

describe('applyOrderEvent: notes', () => {
  it('a late fill on a canceled order, a fill while canceling that does not complete it', () => {
    const late = applyOrderEvent(acked('canceled'), fill('1'));
    expect(late.changed).toBe(true);
    expect(late.note).toMatch(/late fill/);
    expect(applyOrderEvent(acked('canceling'), fill('1')).note).toMatch(/cancel is in flight/);
    expect(applyOrderEvent(acked('canceling'), fill('2')).note).toBeUndefined();
    expect(applyOrderEvent(acked('open'), fill('1')).note).toBeUndefined();
  });

  it('an absorbed event says so; a stale report that changes something else is noted as stale', () => {
    const absorbed = applyOrderEvent(acked('open'), opened());
    expect(absorbed.changed).toBe(false);
    expect(absorbed.note).toMatch(/absorbed/);
    const stale = applyOrderEvent(order({ status: 'canceling' }), accepted());
    expect(stale.changed).toBe(true);
    expect(stale.note).toMatch(/stale OrderAccepted/);
    // Progress or fills that keep the status are not stale; nor is our own event.
    expect(applyOrderEvent(acked('open'), progress('1')).note).toBeUndefined();
    expect(
      applyOrderEvent(acked('canceling', { filledQty: dec('1') }), progress('1.5')).note,
    ).toBeUndefined();
    expect(applyOrderEvent(acked('open'), { ...ev, kind: 'CancelRequested' }).note).toBeUndefined();
    // A status move is not stale.
    expect(applyOrderEvent(order({ status: 'submitted' }), accepted()).note).toBeUndefined();
  });

  it('a result without note or anomaly carries neither key', () => {
    const r = applyOrderEvent(acked('open'), fill('1'));
    expect(Object.keys(r).sort()).toEqual(['changed', 'order']);
  });
});

describe('applyOrderEvent: the exact record', () => {
  it('adds no key for what the order does not have (order id, fills, average)', () => {
    const o = order();
    const r = applyOrderEvent(o, { ...ev, kind: 'OrderSubmitted' });
    expect(r.order).toStrictEqual({ ...o, status: 'submitted', updatedAt: T });
    const p = applyOrderEvent(acked('open'), progress('0.5'));
    expect(p.order).toStrictEqual({ ...acked('open'), filledQty: dec('0.5'), updatedAt: T });
  });

  it('a repeated report without an average changes nothing, and keeps the average', () => {
    const a = applyOrderEvent(acked('open'), progress('1.5', '102')).order;
    const r = applyOrderEvent(a, progress('1.5'));
    expect(r.changed).toBe(false);
    expect(r.order).toBe(a);
    const b = applyOrderEvent(a, progress('1.75'));
    expect(eq(b.order.avgPrice, '102') && eq(b.order.filledQty, '1.75')).toBe(true);
  });

  it('a rejection on a terminal order is absorbed without a contradiction', () => {
    for (const s of ['filled', 'canceled'] as const) {
      const r = applyOrderEvent(acked(s), rejected('1', 'late'));
      expect(r.changed).toBe(false);
      expect(r.anomaly).toBeUndefined();
    }
  });

  it('an overfill names what caused it: the fill, or the reporting event', () => {
    const f = fill('2.5');
    const byFill = applyOrderEvent(acked('open'), f).anomaly;
    expect(byFill?.detail).toContain(f.kind === 'OrderFilled' ? f.tradeId : '');
    expect(byFill?.detail).not.toContain('OrderFilled');
    expect(applyOrderEvent(acked('open'), progress('2.5')).anomaly?.detail).toContain('OrderProgress');
  });

  it('only a fill gets the late-fill note on a canceled order', () => {
    const r = applyOrderEvent(acked('canceled'), progress('1'));
    expect(r.changed).toBe(true);
    expect(r.note).toBeUndefined();
  });
});
