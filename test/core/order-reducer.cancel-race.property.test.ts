// The cancel race (issue #18): the venue answers our cancel `result: true`, yet the order may still
// fill before the cancel takes effect. Whatever order the cancel reply, the fills and the history rows
// (progress snapshots, a stale `canceling` row, the terminal row) arrive in, the order converges to
// the venue's final state, every fill is counted once and none is refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZERO, dec, type Dec } from '../../src/core/decimal.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../../src/core/ids.ts';
import { applyOrderEvent, newOrder } from '../../src/core/order-reducer.ts';
import { STATUS_RANK } from '../../src/core/order-transitions.ts';
import type { Order } from '../../src/core/orders.ts';

const OID = clientOid('cb-mm-1');
const XID = orderId('700000000000000001');

/** An order of `quarters` / 4, accepted and resting, as the engine holds it before the cancel. */
function resting(quarters: number): Order {
  let o = newOrder({
    clientOid: OID,
    strategy: strategyId('mm'),
    symbol: symbolId('cmt_ethusdt'),
    side: 'close_short',
    orderType: 'postOnly',
    size: dec(quarters).div(4),
    price: dec('3400'),
    at: 0,
  });
  for (const e of [
    { kind: 'OrderSubmitted', clientOid: OID, at: 1 },
    { kind: 'OrderAccepted', clientOid: OID, at: 2, orderId: XID },
    { kind: 'OrderOpen', clientOid: OID, at: 3, orderId: XID, pending: false },
  ] as const) {
    o = applyOrderEvent(o, e).order;
  }
  expect(o.status).toBe('open');
  return o;
}

function fillEvent(i: number, quarters: number): OrderEvent {
  const size = dec(quarters).div(4);
  return {
    kind: 'OrderFilled',
    clientOid: OID,
    at: 100 + i,
    orderId: XID,
    tradeId: tradeId(`t${i}`),
    fill: {
      tradeId: tradeId(`t${i}`),
      orderId: XID,
      symbol: symbolId('cmt_ethusdt'),
      positionSide: 'SHORT',
      orderSide: 'BUY',
      direction: 'CLOSE_SHORT',
      size,
      value: size.times(3400),
      fee: ZERO,
      realizedPnl: ZERO,
      createdTime: 100 + i,
    },
  };
}

/** What happened at the venue: the order's size, the fills it made, whether the fills completed it. */
interface VenueStory {
  readonly quarters: number;
  readonly fills: readonly number[];
}

const arbStory: fc.Arbitrary<VenueStory> = fc.integer({ min: 1, max: 8 }).chain((quarters) =>
  fc.array(fc.integer({ min: 1, max: quarters }), { maxLength: 5 }).map((raw) => {
    // Keep the fills within the order's size: the venue never overfills.
    const fills: number[] = [];
    let left = quarters;
    for (const q of raw) {
      const take = Math.min(q, left);
      if (take > 0) fills.push(take);
      left -= take;
    }
    return { quarters, fills };
  }),
);

interface Delivery {
  readonly story: VenueStory;
  /** How many of the fills were seen before we asked to cancel. */
  readonly before: number;
  /** Everything after CancelRequested, in delivery order. */
  readonly after: readonly OrderEvent[];
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * The events after our cancel in any order: the cancel's reply (with or without the order id), the
 * remaining fills, progress snapshots of history (cumulative filled quantity at some moment, possibly
 * stale), a stale `canceling`/`open` row, and the terminal row (once or twice).
 */
const arbDelivery: fc.Arbitrary<Delivery> = arbStory.chain((story) =>
  fc
    .record({
      before: fc.integer({ min: 0, max: story.fills.length }),
      withId: fc.boolean(),
      snapshots: fc.array(fc.integer({ min: 0, max: story.fills.length }), { maxLength: 3 }),
      staleOpen: fc.boolean(),
      terminalTwice: fc.boolean(),
      seed: fc.integer(),
    })
    .chain(({ before, withId, snapshots, staleOpen, terminalTwice }) => {
      const F = dec(sum(story.fills)).div(4);
      const complete = sum(story.fills) === story.quarters;
      const terminal: OrderEvent = complete
        ? { kind: 'OrderCompleted', clientOid: OID, at: 500, filledQty: F, avgPrice: dec('3400') }
        : {
            kind: 'OrderCanceled',
            clientOid: OID,
            at: 500,
            filledQty: F,
            reason: 'canceled at the exchange',
          };
      const pool: OrderEvent[] = [
        {
          kind: 'CancelAccepted',
          clientOid: OID,
          at: 50,
          ...(withId ? { orderId: XID } : {}),
        },
        ...story.fills.slice(before).map((q, j) => fillEvent(before + j, q)),
        ...snapshots.map((n): OrderEvent => ({
          kind: 'OrderProgress',
          clientOid: OID,
          at: 300 + n,
          orderId: XID,
          filledQty: dec(sum(story.fills.slice(0, n))).div(4),
        })),
        ...(staleOpen
          ? [{ kind: 'OrderOpen', clientOid: OID, at: 60, orderId: XID, pending: false } as const]
          : []),
        terminal,
        ...(terminalTwice ? [terminal] : []),
      ];
      return fc.shuffledSubarray(pool, { minLength: pool.length, maxLength: pool.length }).map((after) => ({
        story,
        before,
        after,
      }));
    }),
);

describe('cancel race: a fill after the cancel reply is never lost or refused', () => {
  it('converges to the venue final state with every fill counted, whatever the interleaving', () => {
    fc.assert(
      fc.property(arbDelivery, ({ story, before, after }) => {
        const size = dec(story.quarters).div(4);
        const F = dec(sum(story.fills)).div(4);
        const venueFinal = sum(story.fills) === story.quarters ? 'filled' : 'canceled';
        let o = resting(story.quarters);
        const events: OrderEvent[] = [
          ...story.fills.slice(0, before).map((q, i) => fillEvent(i, q)),
          { kind: 'CancelRequested', clientOid: OID, at: 40 },
          ...after,
        ];
        let fillsSeen: Dec = ZERO;
        let ended = false;
        for (const e of events) {
          const r = applyOrderEvent(o, e);
          // No event of the race is an error or a contradiction, and none is clamped as an overfill.
          expect(r.anomaly).toBeUndefined();
          // Never backwards (the only downward move, a refused cancel, does not happen here).
          expect(STATUS_RANK[r.order.status]).toBeGreaterThanOrEqual(STATUS_RANK[o.status]);
          expect(r.order.status).not.toBe('rejected');
          if (e.kind === 'OrderFilled') {
            // A fill is always recorded, whatever the status (canceling, canceled, filled).
            fillsSeen = fillsSeen.plus(e.fill.size);
            expect(r.changed).toBe(true);
            expect((r.order.fillsQty ?? ZERO).eq(fillsSeen)).toBe(true);
          }
          if (e.kind === 'CancelAccepted') {
            // The reply never ends the order by itself.
            expect(r.order.status).toBe(o.status);
          }
          o = r.order;
          if (e.kind === 'OrderCanceled' || e.kind === 'OrderCompleted') ended = true;
          // Until the terminal row or fills making up the whole size, a requested cancel stays canceling.
          if (!ended && o.filledQty.lt(size) && e.kind !== 'OrderFilled' && events.indexOf(e) >= before)
            expect(o.status).toBe('canceling');
        }
        expect(o.status).toBe(venueFinal);
        expect(o.filledQty.eq(F)).toBe(true);
        expect((o.fillsQty ?? ZERO).eq(F)).toBe(true);
        expect(o.orderId).toBe(XID);
      }),
      { numRuns: 400 },
    );
  });

  it('a fill after the reply on a partly filled order is counted, and history then ends it canceled', () => {
    let o = resting(4);
    const steps: OrderEvent[] = [
      { kind: 'CancelRequested', clientOid: OID, at: 40 },
      { kind: 'CancelAccepted', clientOid: OID, at: 50, orderId: XID },
      fillEvent(1, 1),
      {
        kind: 'OrderCanceled',
        clientOid: OID,
        at: 500,
        filledQty: dec('0.25'),
        reason: 'canceled at the exchange',
      },
    ];
    const statuses = steps.map((e) => (o = applyOrderEvent(o, e).order).status);
    expect(statuses).toEqual(['canceling', 'canceling', 'canceling', 'canceled']);
    expect(o.fillsQty?.toFixed()).toBe('0.25');
    expect(o.filledQty.toFixed()).toBe('0.25');
  });

  it('a fill completing the order after the reply wins the race: filled, not canceled', () => {
    let o = resting(2);
    const steps: OrderEvent[] = [
      { kind: 'CancelRequested', clientOid: OID, at: 40 },
      { kind: 'CancelAccepted', clientOid: OID, at: 50 },
      fillEvent(1, 2),
      { kind: 'OrderCompleted', clientOid: OID, at: 500, filledQty: dec('0.5') },
    ];
    const results = steps.map((e) => {
      const r = applyOrderEvent(o, e);
      o = r.order;
      return r;
    });
    expect(results.map((r) => r.order.status)).toEqual(['canceling', 'canceling', 'filled', 'filled']);
    expect(results.every((r) => r.anomaly === undefined)).toBe(true);
  });

  it('links the order id a cancel reply names, so an order whose placement reply was lost is found', () => {
    let o = newOrder({
      clientOid: OID,
      strategy: strategyId('mm'),
      symbol: symbolId('cmt_ethusdt'),
      side: 'open_long',
      orderType: 'normal',
      size: dec('1'),
      price: dec('3400'),
      at: 0,
    });
    for (const e of [
      { kind: 'OrderSubmitted', clientOid: OID, at: 1 },
      { kind: 'OrderOutcomeUnknown', clientOid: OID, at: 2, reason: 'timeout' },
      { kind: 'CancelRequested', clientOid: OID, at: 3 },
    ] as const)
      o = applyOrderEvent(o, e).order;
    const r = applyOrderEvent(o, { kind: 'CancelAccepted', clientOid: OID, at: 4, orderId: XID });
    expect(r.changed).toBe(true);
    expect(r.order).toMatchObject({ status: 'canceling', orderId: XID, updatedAt: 4 });
    // A reply naming another order is flagged and changes nothing.
    const other = applyOrderEvent(r.order, {
      kind: 'CancelAccepted',
      clientOid: OID,
      at: 5,
      orderId: orderId('9'),
    });
    expect(other.changed).toBe(false);
    expect(other.anomaly?.kind).toBe('id_mismatch');
    // Without an id it is absorbed, with a note.
    const bare = applyOrderEvent(r.order, { kind: 'CancelAccepted', clientOid: OID, at: 6 });
    expect(bare).toStrictEqual({
      order: r.order,
      changed: false,
      note: 'CancelAccepted absorbed: order is canceling',
    });
  });
});
