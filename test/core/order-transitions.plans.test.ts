// Plan (trigger) orders in the transition table and the reducer: one local order carries the plan
// and, once triggered, its child order (same client_oid, an order id of its own).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZERO, dec } from '../../src/core/decimal.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId, type OrderId } from '../../src/core/ids.ts';
import { applyOrderEvent, newOrder } from '../../src/core/order-reducer.ts';
import { STATUS_RANK, transition } from '../../src/core/order-transitions.ts';
import { isTerminal, isUntriggeredPlan, type Order } from '../../src/core/orders.ts';

const OID = clientOid('cb-ema-7');
const PLAN = orderId('710000000000000001');
const CHILD = orderId('720000000000000002');
const SIZE = dec('0.5');

function plan(): Order {
  return newOrder({
    clientOid: OID,
    strategy: strategyId('ema'),
    symbol: symbolId('cmt_btcusdt'),
    side: 'close_long',
    orderType: 'normal',
    size: SIZE,
    triggerPrice: dec('95'),
    at: 1_000,
  });
}

const base = (t: number) => ({ clientOid: OID, at: t });
let trade = 0;
function fill(size: string, id: OrderId = CHILD, t = 3_000): OrderEvent {
  const s = dec(size);
  return {
    ...base(t),
    kind: 'OrderFilled',
    orderId: id,
    tradeId: tradeId(`p${++trade}`),
    fill: {
      tradeId: tradeId(`p${trade}`),
      orderId: id,
      symbol: symbolId('cmt_btcusdt'),
      positionSide: 'LONG',
      orderSide: 'SELL',
      direction: 'CLOSE_LONG',
      size: s,
      value: s.times(95),
      fee: ZERO,
      realizedPnl: ZERO,
      createdTime: t,
    },
  };
}

function run(o: Order, events: readonly OrderEvent[]): Order {
  let cur = o;
  for (const e of events) {
    const r = applyOrderEvent(cur, e);
    expect(r.anomaly, `${e.kind}: ${r.anomaly?.detail}`).toBeUndefined();
    cur = r.order;
  }
  return cur;
}

const accepted = (t = 2_000): OrderEvent => ({ ...base(t), kind: 'OrderAccepted', orderId: PLAN });
const submitted: OrderEvent = { ...base(1_500), kind: 'OrderSubmitted' };

describe('plan orders: the untriggered state', () => {
  it('an accepted plan rests untriggered; an accepted regular order is pending', () => {
    const p = run(plan(), [submitted, accepted()]);
    expect(p).toMatchObject({ status: 'untriggered', orderId: PLAN });
    expect(p.planOrderId).toBeUndefined();
    expect(isUntriggeredPlan(p)).toBe(true);
    const { triggerPrice: _t, ...regular } = plan();
    expect(run(regular, [submitted, accepted()]).status).toBe('pending');
  });

  it('a late acceptance after a lost reply leaves an unknown plan untriggered', () => {
    const lost: OrderEvent = { ...base(1_600), kind: 'OrderOutcomeUnknown', reason: 'timeout' };
    expect(run(plan(), [submitted, lost, accepted()]).status).toBe('untriggered');
  });

  it('the first report of the child links it: the child id becomes the order id, the plan id is kept', () => {
    const p = run(plan(), [
      submitted,
      accepted(),
      { ...base(2_500), kind: 'OrderOpen', orderId: CHILD, pending: true },
    ]);
    expect(p).toMatchObject({ status: 'pending', orderId: CHILD, planOrderId: PLAN });
    expect(isUntriggeredPlan(p)).toBe(false);
    // The plan's own id is still this order, and a duplicate acceptance naming it changes nothing.
    const again = applyOrderEvent(p, accepted(2_600));
    expect(again.anomaly).toBeUndefined();
    expect(again.changed).toBe(false);
  });

  it('a market stop fills through its child: filled, quantities from the fills', () => {
    const p = run(plan(), [submitted, accepted(), fill('0.2'), fill('0.3')]);
    expect(p).toMatchObject({ status: 'filled', orderId: CHILD, planOrderId: PLAN });
    expect(p.filledQty.eq(SIZE)).toBe(true);
    expect(p.avgPrice?.eq(95)).toBe(true);
  });

  it('a partial child fill leaves it open (triggered, resting)', () => {
    expect(run(plan(), [submitted, accepted(), fill('0.2')]).status).toBe('open');
  });

  it('canceled (or expired) while untriggered', () => {
    const p = run(plan(), [
      submitted,
      accepted(),
      { ...base(4_000), kind: 'OrderCanceled', reason: 'expired' },
    ]);
    expect(p).toMatchObject({ status: 'canceled', reason: 'expired' });
  });

  it('a refused cancel takes an untriggered plan back to untriggered, a triggered one to open', () => {
    const cancel: OrderEvent = { ...base(3_000), kind: 'CancelRequested' };
    const refused: OrderEvent = { ...base(3_100), kind: 'CancelRejected', code: '50005', reason: 'no' };
    expect(run(plan(), [submitted, accepted(), cancel, refused]).status).toBe('untriggered');
    const triggered = run(plan(), [submitted, accepted(), fill('0.1'), cancel, refused]);
    expect(triggered.status).toBe('open');
  });

  it('a fill of the child racing our cancel of the plan is recorded and can complete it', () => {
    const cancel: OrderEvent = { ...base(3_000), kind: 'CancelRequested' };
    const p = run(plan(), [submitted, accepted(), cancel, fill('0.5', CHILD, 3_050)]);
    expect(p).toMatchObject({ status: 'filled', orderId: CHILD, planOrderId: PLAN });
  });

  it('a third order id is a mismatch, for a plan and a regular order alike', () => {
    const linked = run(plan(), [submitted, accepted(), fill('0.1')]);
    const third = applyOrderEvent(linked, fill('0.1', orderId('730000000000000003')));
    expect(third.anomaly?.kind).toBe('id_mismatch');
    expect(third.changed).toBe(false);
    const { triggerPrice: _t, ...regular } = plan();
    const r = applyOrderEvent(run(regular, [submitted, accepted()]), fill('0.1', CHILD));
    expect(r.anomaly?.kind).toBe('id_mismatch');
  });

  it('an acceptance naming another id never links a child (only reports of the order do)', () => {
    const p = run(plan(), [submitted, accepted()]);
    const r = applyOrderEvent(p, { ...base(2_100), kind: 'OrderAccepted', orderId: CHILD });
    expect(r.anomaly?.kind).toBe('id_mismatch');
  });

  it('a refusal reported after the acceptance contradicts the exchange, for an untriggered plan too', () => {
    const p = run(plan(), [submitted, accepted()]);
    const r = applyOrderEvent(p, { ...base(2_200), kind: 'OrderRejected', code: '40015', reason: 'x' });
    expect(r.anomaly?.kind).toBe('contradiction');
    expect(r.order.status).toBe('untriggered');
  });

  it('a regular order carries no trigger price at all', () => {
    const { triggerPrice: _t, ...regular } = plan();
    expect('triggerPrice' in newOrder({ ...regular, at: 1 })).toBe(false);
  });

  it('refuses a non-positive trigger price', () => {
    expect(() => newOrder({ ...plan(), at: 1, triggerPrice: dec('0') })).toThrow(/trigger price/);
  });
});

describe('plan orders: table rules', () => {
  const facts = { acknowledged: true, complete: false, untriggeredPlan: true };
  it('a report of the child moves an untriggered plan on: pending, open, or by quantity', () => {
    expect(
      transition('untriggered', { ...base(1), kind: 'OrderOpen', orderId: CHILD, pending: true }, facts),
    ).toBe('pending');
    expect(
      transition('untriggered', { ...base(1), kind: 'OrderOpen', orderId: CHILD, pending: false }, facts),
    ).toBe('open');
    const progress = (q: string): OrderEvent => ({
      ...base(1),
      kind: 'OrderProgress',
      orderId: CHILD,
      filledQty: dec(q),
    });
    expect(transition('untriggered', progress('0'), facts)).toBe('pending');
    expect(transition('untriggered', progress('0.1'), facts)).toBe('open');
    expect(transition('untriggered', progress('0.5'), { ...facts, complete: true })).toBe('filled');
    expect(transition('untriggered', { ...base(1), kind: 'CancelAccepted' }, facts)).toBe('canceling');
  });

  it('the rows before acceptance: a lost reply is unknown, a cancel of an unknown plan is in flight', () => {
    expect(transition('created', { ...base(1), kind: 'OrderOutcomeUnknown', reason: 'x' })).toBe('unknown');
    expect(transition('unknown', { ...base(1), kind: 'CancelRequested' })).toBe('canceling');
    expect(transition('unknown', { ...base(1), kind: 'OrderAccepted', orderId: PLAN }, facts)).toBe(
      'untriggered',
    );
    expect(transition('unknown', { ...base(1), kind: 'OrderAccepted', orderId: PLAN })).toBe('pending');
  });

  it('untriggered ranks after unknown and before pending', () => {
    expect(STATUS_RANK.untriggered).toBeGreaterThan(STATUS_RANK.unknown);
    expect(STATUS_RANK.untriggered).toBeLessThan(STATUS_RANK.pending);
  });

  it('OrderLost is invalid once the plan was acknowledged', () => {
    const next = transition(
      'untriggered',
      { ...base(1), kind: 'OrderLost', reason: 'x' },
      {
        acknowledged: true,
        complete: false,
        untriggeredPlan: true,
      },
    );
    expect(typeof next).not.toBe('string');
  });

  it('property: any mix of plan and child reports never moves the order backwards, nor mismatches ids', () => {
    const arbEvent = fc.integer({ min: 2_000, max: 9_000 }).chain((t) =>
      fc.oneof(
        fc.constant<OrderEvent>({ ...base(t), kind: 'OrderAccepted', orderId: PLAN }),
        fc.constant<OrderEvent>({ ...base(t), kind: 'OrderOpen', orderId: CHILD, pending: false }),
        fc.constant<OrderEvent>({ ...base(t), kind: 'OrderOpen', orderId: CHILD, pending: true }),
        fc.integer({ min: 0, max: 4 }).map((n): OrderEvent => ({
          ...base(t),
          kind: 'OrderProgress',
          orderId: CHILD,
          filledQty: dec(n).div(10),
        })),
        fc.integer({ min: 1, max: 3 }).map((n) => fill(dec(n).div(10).toFixed(), CHILD, t)),
        fc.constant<OrderEvent>({ ...base(t), kind: 'OrderCanceled' }),
        fc.constant<OrderEvent>({ ...base(t), kind: 'OrderCompleted', filledQty: SIZE }),
      ),
    );
    fc.assert(
      fc.property(fc.array(arbEvent, { maxLength: 25 }), (events) => {
        let cur = applyOrderEvent(applyOrderEvent(plan(), submitted).order, accepted()).order;
        for (const e of events) {
          const r = applyOrderEvent(cur, e);
          expect(r.anomaly?.kind).not.toBe('id_mismatch');
          expect(r.anomaly?.kind).not.toBe('invalid_transition');
          expect(STATUS_RANK[r.order.status]).toBeGreaterThanOrEqual(STATUS_RANK[cur.status]);
          // Once a child report was applied, the ids are linked for good.
          if (cur.planOrderId !== undefined) expect(r.order.planOrderId).toBe(PLAN);
          cur = r.order;
        }
        if (cur.planOrderId !== undefined) expect(cur.orderId).toBe(CHILD);
        else expect(cur.orderId).toBe(PLAN);
        if (isTerminal(cur.status)) expect(cur.filledQty.lte(SIZE)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
