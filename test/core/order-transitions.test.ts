import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import type { OrderEvent, OrderEventKind } from '../../src/core/events.ts';
import { clientOid, orderId, symbolId, tradeId } from '../../src/core/ids.ts';
import {
  STATUS_RANK,
  isInvalidTransition,
  transition,
  type TransitionFacts,
} from '../../src/core/order-transitions.ts';
import { ORDER_STATUSES, isTerminal, type OrderStatus } from '../../src/core/orders.ts';

const oid = clientOid('cb-t-1');
const base = { clientOid: oid, at: 0 };
const fill = {
  tradeId: tradeId('t1'),
  orderId: orderId('1'),
  symbol: symbolId('cmt_btcusdt'),
  positionSide: 'LONG',
  orderSide: 'BUY',
  direction: 'OPEN_LONG',
  size: dec('1'),
  value: dec('100'),
  fee: dec('0'),
  realizedPnl: dec('0'),
  createdTime: 0,
};

/** One representative event per kind (two for the kinds whose payload changes the answer). */
const SAMPLE_EVENTS: readonly OrderEvent[] = [
  { ...base, kind: 'OrderSubmitted' },
  { ...base, kind: 'OrderAccepted', orderId: orderId('1') },
  { ...base, kind: 'OrderRejected', code: '40015', reason: 'bad price' },
  { ...base, kind: 'OrderOutcomeUnknown', reason: 'timeout' },
  { ...base, kind: 'OrderOpen', orderId: orderId('1'), pending: true },
  { ...base, kind: 'OrderOpen', orderId: orderId('1'), pending: false },
  { ...base, kind: 'OrderFilled', orderId: orderId('1'), tradeId: tradeId('t1'), fill },
  { ...base, kind: 'OrderProgress', orderId: orderId('1'), filledQty: dec('0') },
  { ...base, kind: 'OrderProgress', orderId: orderId('1'), filledQty: dec('0.5') },
  { ...base, kind: 'CancelRequested' },
  { ...base, kind: 'CancelRejected', code: '50005', reason: 'Order does not exist' },
  { ...base, kind: 'CancelAccepted' },
  { ...base, kind: 'CancelAccepted', orderId: orderId('1') },
  { ...base, kind: 'OrderCanceled' },
  { ...base, kind: 'OrderCompleted', filledQty: dec('1') },
  { ...base, kind: 'OrderLost', reason: 'no trace' },
];

const FACTS: readonly TransitionFacts[] = [
  { acknowledged: false, complete: false },
  { acknowledged: true, complete: false },
  { acknowledged: false, complete: true },
  { acknowledged: true, complete: true },
];

const LOCAL_SENDING_EVENTS: ReadonlySet<OrderEventKind> = new Set([
  'OrderSubmitted',
  'CancelRequested',
  'OrderLost',
]);

const arbStatus = fc.constantFrom(...ORDER_STATUSES);
const arbEvent = fc.constantFrom(...SAMPLE_EVENTS);
const arbFacts = fc.constantFrom(...FACTS);

function next(status: OrderStatus, e: OrderEvent, facts: TransitionFacts): OrderStatus | 'INVALID' {
  const r = transition(status, e, facts);
  return isInvalidTransition(r) ? 'INVALID' : r;
}

describe('transition table: properties over every (status, event, facts)', () => {
  it('never moves an order backwards, except the answer to our own cancel', () => {
    fc.assert(
      fc.property(arbStatus, arbEvent, arbFacts, (status, e, facts) => {
        const to = next(status, e, facts);
        if (to === 'INVALID') return;
        if (status === 'canceling' && e.kind === 'CancelRejected') {
          expect(['open', 'unknown']).toContain(to);
          return;
        }
        expect(STATUS_RANK[to]).toBeGreaterThanOrEqual(STATUS_RANK[status]);
      }),
      { numRuns: 500 },
    );
  });

  it('terminal states absorb every event', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<OrderStatus>('filled', 'canceled', 'rejected'),
        arbEvent,
        arbFacts,
        (status, e, facts) => {
          const to = next(status, e, facts);
          expect(to === status || (to === 'INVALID' && e.kind === 'OrderSubmitted')).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('only our own sending events can be invalid (exchange facts are never errors)', () => {
    fc.assert(
      fc.property(arbStatus, arbEvent, arbFacts, (status, e, facts) => {
        if (next(status, e, facts) === 'INVALID') expect(LOCAL_SENDING_EVENTS.has(e.kind)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('is total: every pair answers', () => {
    for (const s of ORDER_STATUSES) {
      for (const e of SAMPLE_EVENTS) {
        for (const f of FACTS) expect(transition(s, e, f)).toBeDefined();
      }
    }
  });

  it('a complete fill on a live order always ends it as filled', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<OrderStatus>('created', 'submitted', 'unknown', 'pending', 'open', 'canceling'),
        fc.constantFrom(
          ...SAMPLE_EVENTS.filter((e) => e.kind === 'OrderFilled' || e.kind === 'OrderProgress'),
        ),
        fc.boolean(),
        (status, e, acknowledged) => {
          expect(next(status, e, { acknowledged, complete: true })).toBe('filled');
        },
      ),
    );
  });
});

const ev = <K extends OrderEventKind>(kind: K): OrderEvent => {
  const e = SAMPLE_EVENTS.find((x) => x.kind === kind);
  if (e === undefined) throw new Error(kind);
  return e;
};
const open = (pending: boolean): OrderEvent => ({
  ...base,
  kind: 'OrderOpen',
  orderId: orderId('1'),
  pending,
});
const ACK: TransitionFacts = { acknowledged: true, complete: false };
const NO_ACK: TransitionFacts = { acknowledged: false, complete: false };

describe('transition table: the surprising pairs', () => {
  it('ignores OrderOpen after canceling (the report predates our cancel)', () => {
    expect(transition('canceling', open(false), ACK)).toBe('canceling');
    expect(transition('canceling', open(true), ACK)).toBe('canceling');
  });

  it('ignores OrderAccepted after filled (a late reply)', () => {
    expect(transition('filled', ev('OrderAccepted'), ACK)).toBe('filled');
  });

  it('ignores OrderOpen(pending) once open', () => {
    expect(transition('open', open(true), ACK)).toBe('open');
    expect(transition('pending', open(false), ACK)).toBe('open');
  });

  it('keeps canceled on a late fill (the reducer records the quantity)', () => {
    expect(transition('canceled', ev('OrderFilled'), { acknowledged: true, complete: true })).toBe(
      'canceled',
    );
  });

  it('lets a fill win the cancel race only when it completes the order', () => {
    expect(transition('canceling', ev('OrderFilled'), ACK)).toBe('canceling');
    expect(transition('canceling', ev('OrderFilled'), { acknowledged: true, complete: true })).toBe('filled');
    expect(transition('canceling', ev('OrderCompleted'), ACK)).toBe('filled');
  });

  it('keeps an order canceling when the venue takes the cancel: only history or a completing fill ends it', () => {
    // `result: true` is not the end: the order may still fill before the cancel takes effect.
    for (const f of FACTS) expect(transition('canceling', ev('CancelAccepted'), f)).toBe('canceling');
    expect(transition('canceling', ev('OrderFilled'), ACK)).toBe('canceling');
    expect(transition('canceling', ev('OrderCanceled'), ACK)).toBe('canceled');
    expect(transition('canceling', ev('OrderCompleted'), ACK)).toBe('filled');
    // A live order whose cancel the venue took (after a refused cancel crossed a repeated one, or in
    // the crash window) is canceling; a terminal one stays as it is.
    for (const s of ['created', 'submitted', 'unknown', 'pending', 'open'] as const) {
      expect(transition(s, ev('CancelAccepted'), NO_ACK)).toBe('canceling');
      expect(transition(s, ev('CancelAccepted'), ACK)).toBe('canceling');
    }
    for (const s of ['filled', 'canceled', 'rejected'] as const)
      expect(transition(s, ev('CancelAccepted'), ACK)).toBe(s);
  });

  it('takes a refused cancel back to open, or to unknown when the exchange never acknowledged the order', () => {
    expect(transition('canceling', ev('CancelRejected'), ACK)).toBe('open');
    expect(transition('canceling', ev('CancelRejected'), NO_ACK)).toBe('unknown');
  });

  it('resolves unknown to whatever the exchange reports', () => {
    expect(transition('unknown', ev('OrderAccepted'))).toBe('pending');
    expect(transition('unknown', open(true))).toBe('pending');
    expect(transition('unknown', open(false))).toBe('open');
    expect(transition('unknown', ev('OrderFilled'))).toBe('open');
    expect(transition('unknown', ev('OrderCanceled'))).toBe('canceled');
    expect(transition('unknown', ev('OrderCompleted'))).toBe('filled');
    expect(transition('unknown', ev('OrderRejected'))).toBe('rejected');
  });

  it('accepts OrderLost only from submitted and unknown (and an unacknowledged cancel)', () => {
    expect(transition('submitted', ev('OrderLost'))).toBe('rejected');
    expect(transition('unknown', ev('OrderLost'))).toBe('rejected');
    expect(transition('canceling', ev('OrderLost'), NO_ACK)).toBe('rejected');
    for (const s of ['created', 'pending', 'open'] as const)
      expect(isInvalidTransition(transition(s, ev('OrderLost'), ACK))).toBe(true);
    expect(isInvalidTransition(transition('canceling', ev('OrderLost'), ACK))).toBe(true);
    // A grace timer firing after reconciliation settled the order is a race, not a bug.
    expect(transition('filled', ev('OrderLost'))).toBe('filled');
  });

  it('refuses a second submission and a cancel of an order that was never sent', () => {
    expect(isInvalidTransition(transition('submitted', ev('OrderSubmitted')))).toBe(true);
    expect(isInvalidTransition(transition('canceled', ev('OrderSubmitted')))).toBe(true);
    expect(isInvalidTransition(transition('created', ev('CancelRequested')))).toBe(true);
  });

  it('rejects an unacknowledged canceling order whose placement is refused, but not an acknowledged one', () => {
    expect(transition('canceling', ev('OrderRejected'), NO_ACK)).toBe('rejected');
    expect(transition('canceling', ev('OrderRejected'), ACK)).toBe('canceling');
    expect(transition('open', ev('OrderRejected'), ACK)).toBe('open');
  });

  it('adopts exchange facts on a created order (crash between sending and committing `submitted`)', () => {
    expect(transition('created', ev('OrderAccepted'))).toBe('pending');
    expect(transition('created', ev('OrderCanceled'))).toBe('canceled');
  });

  it('never marks a terminal status as live again', () => {
    for (const s of ORDER_STATUSES.filter(isTerminal)) {
      for (const e of SAMPLE_EVENTS) {
        const to = next(s, e, ACK);
        if (to !== 'INVALID') expect(to).toBe(s);
      }
    }
  });
});
