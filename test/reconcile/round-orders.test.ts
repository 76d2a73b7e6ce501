// The orders a round hands the kernel: live ones, and the terminal ones its rows or fills name.
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { orderId } from '../../src/core/ids.ts';
import { reconcile } from '../../src/reconcile/kernel.ts';
import { ordersForRound, unsettledRows } from '../../src/reconcile/round-orders.ts';
import { fillOf, localOrder, PREFIX, row, T0 } from './fixtures.ts';

const live = localOrder(1);
const namedByOid = localOrder(2, { status: 'rejected', reason: 'declared lost' }); // no order id
const namedByFill = localOrder(3, { status: 'canceled', orderId: orderId('700000000000000003') });
const unnamed = localOrder(4, { status: 'filled', orderId: orderId('700000000000000004') });
// Two terminal orders under one order id (a venue fault): both kept, in the given order.
const twinA = localOrder(5, { status: 'canceled', orderId: orderId('700000000000000005') });
const twinB = localOrder(6, { status: 'canceled', orderId: orderId('700000000000000005') });
const book = [live, namedByOid, namedByFill, unnamed, twinA, twinB];

describe('ordersForRound', () => {
  it('keeps every live order and the terminal ones named by a row (client_oid or id) or a fill', () => {
    const reports = [row(2, { status: 'open' }), row(5)];
    delete (reports[1] as { clientOid?: unknown }).clientOid;
    const kept = ordersForRound(book, reports, [[fillOf(3, '31')], []]);
    expect(kept).toEqual([live, namedByOid, namedByFill, twinA, twinB]);
    expect(ordersForRound(book, [], [[], []])).toEqual([live]);
  });

  it('gives the kernel the same round as the whole recent window', () => {
    const reports = [row(2, { status: 'open' }), row(4, { status: 'filled', filledQty: live.size })];
    const fills = [fillOf(3, '31'), fillOf(2, '21')];
    const input = {
      reports,
      fills,
      knownTradeIds: () => false,
      now: T0 + 60_000,
      graceMs: 1_000,
      prefix: PREFIX,
    };
    const whole = reconcile({ ...input, orders: book });
    const named = reconcile({ ...input, orders: ordersForRound(book, reports, [fills]) });
    expect(named).toEqual(whole);
    // The round found the order declared lost, and a late fill on a canceled one.
    expect(whole.warnings.map((w) => w.code)).toContain('lost-order-found');
    expect(whole.events.some((e) => e.kind === 'OrderFilled' && e.clientOid === namedByFill.clientOid)).toBe(
      true,
    );
  });

  it('keeps a plan row when another row carries its client_oid (found in review)', () => {
    // A plan that fired, its child not linked yet: it takes rows under other order ids, and the
    // kernel flags a second one only while the first holds its place.
    const plan = localOrder(1, {
      orderId: orderId('700000000000000001'),
      triggerPrice: dec('59000'),
      status: 'pending',
      updatedAt: T0 + 1,
    });
    const own = row(1, { status: 'pending', triggerPrice: dec('59000') });
    const other = row(1, {
      orderId: orderId('700000000000000002'),
      status: 'canceled',
      triggerPrice: dec('59000'),
    });
    for (const reports of [
      [own, other],
      [other, own],
    ]) {
      expect(unsettledRows(reports, [plan], [[]])).toBe(reports);
      const out = reconcile({
        orders: [plan],
        reports,
        fills: [],
        knownTradeIds: () => false,
        now: T0 + 60_000,
        graceMs: 1_000,
        prefix: PREFIX,
        lostScope: 'plans',
      });
      // Whichever row comes first is taken, the other flagged: without the plan's own row, the other
      // would be taken unflagged.
      expect(out.warnings.map((w) => w.code)).toEqual(['duplicate-client-oid']);
    }
    // Alone, the same row says what the plan holds: left out.
    expect(unsettledRows([own], [plan], [[]])).toEqual([]);
  });

  it('counts as held the larger of the recorded filled size and the fills', () => {
    // Fills ahead of the recorded size (they are applied before the row's progress): the row says no more.
    const ahead = localOrder(7, {
      status: 'canceled',
      orderId: orderId('700000000000000007'),
      filledQty: dec('0.5'),
      fillsQty: dec('1'),
    });
    const rowOf = (filled: string) => row(7, { status: 'canceled', filledQty: dec(filled) });
    expect(unsettledRows([rowOf('1')], [ahead], [[]])).toEqual([]);
    expect(unsettledRows([rowOf('0.5')], [{ ...ahead, fillsQty: dec('0.25') }], [[]])).toEqual([]);
    const more = [rowOf('1')];
    expect(unsettledRows(more, [{ ...ahead, fillsQty: dec('0.75') }], [[]])).toBe(more);
  });
});
