// The closable-size cap (src/risk/closable.ts): properties of the pure functions, and the order
// statuses each one counts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZERO, dec, isMultipleOf, type Dec } from '../../src/core/decimal.ts';
import { orderId } from '../../src/core/ids.ts';
import { ORDER_SIDES, ORDER_STATUSES, type OrderSide, type OrderStatus } from '../../src/core/orders.ts';
import {
  capClose,
  closableSize,
  closedLeg,
  pendingCloseOf,
  pendingCloses,
  type CloseOrderView,
} from '../../src/risk/closable.ts';

/** Sizes in units of 0.001 (the tests' size step) or off-step by a ten-thousandth. */
const arbSize = (max = 5_000): fc.Arbitrary<Dec> => fc.integer({ min: 0, max }).map((n) => dec(n).div(1000));
const arbAnyQty = fc.integer({ min: -2_000, max: 50_000 }).map((n) => dec(n).div(10_000));
const arbRules = fc
  .record({
    step: fc.constantFrom('0.001', '0.01', '0.1', '1', '0.0001', '0.005'),
    minMult: fc.integer({ min: 1, max: 20 }),
  })
  .map(({ step, minMult }) => ({ sizeStep: dec(step), minSize: dec(step).times(minMult) }));

describe('closableSize', () => {
  it('is the position less the pending closes, never negative', () => {
    // Pending closes are never negative (pendingCloseOf); the position may read anything.
    const arbPending = arbAnyQty.map((q) => q.abs());
    fc.assert(
      fc.property(arbAnyQty, arbPending, (position, pending) => {
        const c = closableSize(position, pending);
        expect(c.gte(0)).toBe(true);
        expect(c.lte(position.gt(0) ? position : ZERO)).toBe(true);
        if (position.minus(pending).gt(0)) expect(c.eq(position.minus(pending))).toBe(true);
        else expect(c.eq(0)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('at the boundary: nothing left is zero, one step left is one step', () => {
    expect(closableSize(dec('0.058'), dec('0.058')).toFixed()).toBe('0');
    expect(closableSize(dec('0.058'), dec('0.057')).toFixed()).toBe('0.001');
    expect(closableSize(dec('0.058'), dec('0.059')).toFixed()).toBe('0');
    expect(closableSize(dec('0.058'), ZERO).toFixed()).toBe('0.058');
  });
});

describe('capClose', () => {
  it('never exceeds the closable size, never goes negative, never grows the intent, and respects the step', () => {
    fc.assert(
      fc.property(arbSize(), arbAnyQty, arbRules, (wanted, closable, rules) => {
        const c = capClose(wanted, closable, rules);
        expect(c.size.gte(0)).toBe(true);
        expect(c.size.lte(wanted)).toBe(true);
        expect(c.size.lte(closable.gt(0) ? closable : ZERO)).toBe(true);
        switch (c.kind) {
          case 'full':
            expect(c.size.eq(wanted)).toBe(true);
            expect(wanted.lte(closable)).toBe(true);
            break;
          case 'shrunk':
            // The largest step multiple that fits, and at least the minimum size.
            expect(wanted.gt(closable)).toBe(true);
            expect(isMultipleOf(c.size, rules.sizeStep)).toBe(true);
            expect(c.size.gte(rules.minSize)).toBe(true);
            expect(c.size.plus(rules.sizeStep).gt(closable)).toBe(true);
            break;
          case 'dropped':
            expect(c.size.eq(0)).toBe(true);
            expect(wanted.gt(closable)).toBe(true);
            // Nothing placeable was left: under one minimum size after rounding down to the step.
            expect(closable.lt(rules.minSize) || closable.lte(0)).toBe(true);
            break;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps an intent that fits as it is, shrinks to the step below, drops under the minimum', () => {
    const rules = { sizeStep: dec('0.001'), minSize: dec('0.01') };
    expect(capClose(dec('0.058'), dec('0.058'), rules)).toStrictEqual({ kind: 'full', size: dec('0.058') });
    expect(capClose(dec('0.0585'), dec('0.06'), rules)).toStrictEqual({ kind: 'full', size: dec('0.0585') });
    const shrunk = capClose(dec('0.058'), dec('0.0305'), rules);
    expect(shrunk.kind).toBe('shrunk');
    expect(shrunk.size.toFixed()).toBe('0.03');
    const atMin = capClose(dec('0.058'), dec('0.01'), rules);
    expect(atMin.kind).toBe('shrunk');
    expect(atMin.size.toFixed()).toBe('0.01');
    expect(capClose(dec('0.058'), dec('0.0099'), rules)).toStrictEqual({ kind: 'dropped', size: ZERO });
    expect(capClose(dec('0.058'), ZERO, rules)).toStrictEqual({ kind: 'dropped', size: ZERO });
    expect(capClose(dec('0.058'), dec('-1'), rules)).toStrictEqual({ kind: 'dropped', size: ZERO });
    // A step smaller than the minimum: what is left rounds to zero steps.
    expect(capClose(dec('1'), dec('0.0004'), { sizeStep: dec('0.001'), minSize: dec('0.0001') }).kind).toBe(
      'dropped',
    );
  });
});

describe('pendingCloseOf / pendingCloses', () => {
  const order = (o: Partial<CloseOrderView> & { status: OrderStatus; side: OrderSide }): CloseOrderView => ({
    size: dec('1'),
    filledQty: ZERO,
    ...o,
  });

  it('names the leg a side closes', () => {
    expect(ORDER_SIDES.map((s) => closedLeg(s))).toEqual([undefined, undefined, 'long', 'short']);
  });

  it('a working close holds its size less the fills applied; a canceling or finished one only its fills not seen yet', () => {
    const partly = { filledQty: dec('0.6'), fillsQty: dec('0.25') };
    const expected: Record<OrderStatus, string> = {
      created: '0.75',
      submitted: '0.75',
      unknown: '0.75',
      untriggered: '0.75', // a regular order never is; a plan's is below
      pending: '0.75',
      open: '0.75',
      canceling: '0.35',
      filled: '0.35',
      canceled: '0.35',
      rejected: '0.35',
    };
    for (const status of ORDER_STATUSES) {
      expect(pendingCloseOf(order({ status, side: 'close_long', ...partly }), 'long').toFixed(), status).toBe(
        expected[status],
      );
      // Other leg, opening side: nothing.
      expect(pendingCloseOf(order({ status, side: 'close_long', ...partly }), 'short').toFixed()).toBe('0');
      expect(pendingCloseOf(order({ status, side: 'open_short', ...partly }), 'short').toFixed()).toBe('0');
    }
    // Without any fill applied the whole size (working) or the whole filled quantity (finished) counts.
    expect(pendingCloseOf(order({ status: 'open', side: 'close_short' }), 'short').toFixed()).toBe('1');
    expect(
      pendingCloseOf(
        order({ status: 'filled', side: 'close_short', filledQty: dec('1') }),
        'short',
      ).toFixed(),
    ).toBe('1');
    // Every fill seen (or more, an overfill): nothing pending, never negative.
    expect(
      pendingCloseOf(order({ status: 'open', side: 'close_short', fillsQty: dec('1.5') }), 'short').toFixed(),
    ).toBe('0');
    expect(
      pendingCloseOf(
        order({ status: 'canceled', side: 'close_short', filledQty: dec('0.5'), fillsQty: dec('0.5') }),
        'short',
      ).toFixed(),
    ).toBe('0');
  });

  it('sums per leg, never negative, and a cap by it never lets the closes exceed the position', () => {
    const arbOrder: fc.Arbitrary<CloseOrderView> = fc
      .record({
        side: fc.constantFrom(...ORDER_SIDES),
        status: fc.constantFrom(...ORDER_STATUSES),
        size: arbSize(2_000).map((s) => s.plus('0.001')),
        filled: fc.integer({ min: 0, max: 100 }),
        applied: fc.integer({ min: 0, max: 120 }),
      })
      .map(({ side, status, size, filled, applied }) => ({
        side,
        status,
        size,
        filledQty: size.times(filled).div(100),
        fillsQty: size.times(applied).div(100),
      }));
    fc.assert(
      fc.property(fc.array(arbOrder, { maxLength: 8 }), arbSize(), arbSize(), (orders, position, wanted) => {
        for (const leg of ['long', 'short'] as const) {
          const pending = pendingCloses(orders, leg);
          let sum = ZERO;
          for (const o of orders) sum = sum.plus(pendingCloseOf(o, leg));
          expect(pending.eq(sum)).toBe(true);
          expect(pending.gte(0)).toBe(true);
          const closable = closableSize(position, pending);
          const c = capClose(wanted, closable, { sizeStep: dec('0.001'), minSize: dec('0.001') });
          // What the venue would count after this close: never above the position.
          if (pending.lte(position)) expect(pending.plus(c.size).lte(position)).toBe(true);
          else expect(c.size.eq(0)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('plan (trigger) orders and the closable size', () => {
  const plan = (over: Partial<CloseOrderView>): CloseOrderView => ({
    side: 'close_long',
    status: 'untriggered',
    size: dec('1'),
    filledQty: ZERO,
    triggerPrice: dec('90'),
    ...over,
  });

  it('an untriggered plan reserves nothing; once its child is known it holds what the child holds', () => {
    expect(pendingCloseOf(plan({}), 'long').toFixed()).toBe('0');
    expect(pendingCloseOf(plan({ status: 'submitted' }), 'long').toFixed()).toBe('0');
    const fired = plan({
      status: 'open',
      planOrderId: orderId('7'),
      filledQty: dec('0.4'),
      fillsQty: dec('0.4'),
    });
    expect(pendingCloseOf(fired, 'long').toFixed()).toBe('0.6');
  });

  it('unseenOnly counts only the fills the venue applied that we have not seen', () => {
    const resting = {
      side: 'close_long' as const,
      status: 'open' as const,
      size: dec('1'),
      filledQty: dec('0.3'),
      fillsQty: dec('0.1'),
    };
    expect(pendingCloses([resting], 'long').toFixed()).toBe('0.9');
    expect(pendingCloses([resting], 'long', true).toFixed()).toBe('0.2');
    expect(pendingCloses([resting], 'short', true).toFixed()).toBe('0');
  });
});
