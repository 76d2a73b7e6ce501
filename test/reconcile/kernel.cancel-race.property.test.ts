// The cancel race through reconciliation (issue #18): our cancel was answered `result: true` (the
// order is `canceling`), and the venue may still fill the order before the cancel takes effect.
// Whatever the venue's history rows (snapshots at any moment, stale ones, duplicates) and fills
// (pages overlapping, in any order) bring round after round, with the cancel's reply landing between
// any two rounds, the kernel + reducer converge to the venue's final state with every fill counted
// once, and never declare the order lost.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, ZERO } from '../../src/core/decimal.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import { orderId, type TradeId } from '../../src/core/ids.ts';
import { applyOrderEvent } from '../../src/core/order-reducer.ts';
import type { Order } from '../../src/core/orders.ts';
import type { FillReport, OrderReport, VenueOrderStatus } from '../../src/core/reports.ts';
import { reconcile } from '../../src/reconcile/kernel.ts';
import { fillOf, localOrder, PREFIX, row, T0 } from './fixtures.ts';

const XID = orderId('700000000000000001');

/** The venue's story: size and fills in quarters; complete when the fills make up the size. */
interface Story {
  readonly quarters: number;
  readonly fills: readonly number[];
}

const arbStory: fc.Arbitrary<Story> = fc.integer({ min: 1, max: 8 }).chain((quarters) =>
  fc.array(fc.integer({ min: 1, max: quarters }), { maxLength: 4 }).map((raw) => {
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

const q = (n: number) => dec(n).div(4);
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** One poll of the venue: the history row as of `seen` fills (or the final row), and some fills. */
interface Round {
  readonly rowAt: number | 'final' | 'none';
  readonly fills: readonly number[];
}

const arbScenario = arbStory.chain((story) => {
  const n = story.fills.length;
  const arbRound: fc.Arbitrary<Round> = fc.record({
    rowAt: fc.oneof(
      fc.integer({ min: 0, max: n }),
      fc.constant<'final'>('final'),
      fc.constant<'none'>('none'),
    ),
    fills: fc.subarray([...Array(n).keys()]),
  });
  return fc.record({
    story: fc.constant(story),
    rounds: fc.array(arbRound, { maxLength: 5 }),
    replyAfter: fc.integer({ min: 0, max: 5 }),
    withId: fc.boolean(),
  });
});

describe('cancel race through the reconcile kernel', () => {
  it('converges to the venue final state with every fill counted once, whatever the rounds bring', () => {
    fc.assert(
      fc.property(arbScenario, ({ story, rounds, replyAfter, withId }) => {
        const size = q(story.quarters);
        const complete = sum(story.fills) === story.quarters;
        const fills: FillReport[] = story.fills.map((f, i) => fillOf(1, String(i + 1), { size: q(f) }));
        const venueRow = (seen: number | 'final'): OrderReport => {
          const k = seen === 'final' ? story.fills.length : seen;
          const filled = q(sum(story.fills.slice(0, k)));
          const status: VenueOrderStatus =
            seen === 'final' ? (complete ? 'filled' : 'canceled') : filled.eq(size) ? 'filled' : 'canceling';
          return row(1, {
            size,
            filledQty: filled,
            status,
            ...(filled.gt(0) ? { priceAvg: dec('60000') } : {}),
          });
        };
        // Canceling: our cancel was sent; the reply comes between two rounds.
        let order: Order = localOrder(1, { orderId: XID, size, status: 'canceling' });
        const known = new Set<TradeId>();
        let now = T0 + 1_000;
        const apply = (events: readonly OrderEvent[]) => {
          for (const e of events) {
            const r = applyOrderEvent(order, e);
            expect(r.anomaly).toBeUndefined();
            expect(r.order.status).not.toBe('rejected');
            order = r.order;
          }
        };
        const all: Round[] = [...rounds, { rowAt: 'final', fills: fills.map((_, i) => i) }];
        let ended = false;
        all.forEach((round, i) => {
          if (i === replyAfter || (i === all.length - 1 && replyAfter >= all.length - 1))
            apply([
              {
                kind: 'CancelAccepted',
                clientOid: order.clientOid,
                at: now,
                ...(withId ? { orderId: XID } : {}),
              },
            ]);
          now += 2_000;
          const out = reconcile({
            orders: [order],
            reports: round.rowAt === 'none' ? [] : [venueRow(round.rowAt)],
            fills: round.fills.map((k) => fills[k]!),
            knownTradeIds: (id) => known.has(id),
            now,
            graceMs: 1_000,
            prefix: PREFIX,
          });
          expect(out.warnings).toEqual([]);
          for (const f of out.newFills) {
            expect(known.has(f.tradeId)).toBe(false); // each fill once
            known.add(f.tradeId);
          }
          apply(out.events);
          // Until the venue's final row or fills making up the size, the order stays canceling.
          ended ||= round.rowAt === 'final';
          if (!ended && order.filledQty.lt(size)) expect(order.status).toBe('canceling');
        });
        expect(order.status).toBe(complete ? 'filled' : 'canceled');
        expect(order.filledQty.eq(q(sum(story.fills)))).toBe(true);
        expect((order.fillsQty ?? ZERO).eq(q(sum(story.fills)))).toBe(true);
        expect(known.size).toBe(story.fills.length);
      }),
      { numRuns: 300 },
    );
  });
});
