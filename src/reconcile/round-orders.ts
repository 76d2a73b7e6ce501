// The local orders a reconciliation round hands the kernel: every live order, and of the recently
// terminal ones only those the round's rows or fills name (by client_oid or exchange order id).
//
// Why that is the same round: the kernel (kernel.ts) turns a terminal order into events or warnings
// only through a history row matched to it (by client_oid, or by order id through its links) or a
// fill linked to it by order id; `lostEvent` never concerns a terminal order (`mayBeLost`), and an
// unmatched row of ours asks whether its client_oid is known, which a named order answers the same
// way. A terminal order that nothing in the round names yields nothing, so leaving it out changes no
// event, warning, adoption or fill (test/reconcile/kernel.property.test.ts checks it round by round).
// Every order sharing a named order id is kept, in the given order, so the kernel's order-id links
// (the last one listed wins) are the ones it would have made from the whole list.
//
// What it saves: the window of recent terminal orders (15 minutes) holds every order a busy strategy
// ended in that time (a market maker quoting 5 orders a minute: about 75), and each round re-read all
// of them; a round's rows and fills name a few. The store applies `named` as it reads the window
// (OrderStore.ordersUpdatedSince's `keepTerminal`), so the others are not even gathered and sorted.
import type { ClientOid, OrderId } from '../core/ids.ts';
import { NO_OBJECTS } from '../core/object-lists.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import type { FillReport, OrderReport } from '../core/reports.ts';
import { filledAfterFills } from './kernel.ts';
import { localStatusOf } from './report-rows.ts';

/** Whether a round's rows or fills name an order (by client_oid or exchange order id). */
export function namedByRound(
  reports: readonly OrderReport[],
  fills: readonly (readonly FillReport[])[],
): (o: Order) => boolean {
  // Sets that may hold `undefined` (a row without client_oid): no order has an undefined client_oid,
  // and a terminal order without an order id is then named by its client_oid only.
  const oids = new Set<string | undefined>();
  const ids = new Set<OrderId | undefined>();
  for (const r of reports) {
    oids.add(r.clientOid);
    ids.add(r.orderId);
  }
  for (const list of fills) for (const f of list) ids.add(f.orderId);
  return (o) => oids.has(o.clientOid) || ids.has(o.orderId);
}

/** The live orders of `orders`, and the terminal ones `named` accepts, in the given order. */
export function keepForRound(orders: readonly Order[], named: (o: Order) => boolean): Order[] {
  return orders.filter((o) => !isTerminal(o.status) || named(o));
}

/** The live orders of `orders`, and the terminal ones the round's rows or fills name. */
export function ordersForRound(
  orders: readonly Order[],
  reports: readonly OrderReport[],
  fills: readonly (readonly FillReport[])[],
): Order[] {
  return keepForRound(orders, namedByRound(reports, fills));
}

/**
 * The rows of `reports` that can change something in the round, the others left out (the same
 * array when none is). A row is settled when it says what its order already holds: the order is in
 * `orders`, linked to the row's order id, in the local state the row's status stands for, with at
 * least the row's filled quantity; and no other row has that order id or client_oid, no fill names
 * it.
 *
 * Why the round is the same without it: the kernel (kernel.ts) matches the row to that order and
 * `settle` finds nothing to say. No acceptance (linked already), no move (the same state), no
 * progress (nothing beyond what is held), no fill, no warning: the order is not recorded rejected nor
 * ended otherwise (a row's status never stands for `rejected`), no second row of that order id
 * collapses with it. Without the row, the order yields nothing either: a linked order is never
 * declared lost; a live one stays in the round, an ended one that nothing else names leaves it (see
 * above). A second row with the same client_oid keeps it: a plan whose child is not linked yet takes
 * rows under other order ids, and the kernel flags the second one only while the first holds its
 * place (found in review). What it saves: the history window shows every order created in the last
 * minutes at every round (a market maker's 25 ended quotes, a round a minute; a resting order at each
 * round until it ends), each settled by an earlier round. test/reconcile/round-orders.property.test.ts
 * and kernel.property.test.ts check it round by round.
 */
export function unsettledRows(
  reports: readonly OrderReport[],
  orders: readonly Order[],
  fills: readonly (readonly FillReport[])[],
): readonly OrderReport[] {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, a shortcut (nothing would be settled)
  if (reports.length === 0 || orders.length === 0) return reports;
  // Keys may be undefined (a row without client_oid): no order has an undefined client_oid.
  const byOid = new Map<ClientOid | undefined, Order>();
  for (const o of orders) byOid.set(o.clientOid, o);
  const rowsById = new Map<OrderId, number>();
  const rowsByOid = new Map<ClientOid | undefined, number>();
  for (const r of reports) {
    rowsById.set(r.orderId, (rowsById.get(r.orderId) ?? 0) + 1);
    rowsByOid.set(r.clientOid, (rowsByOid.get(r.clientOid) ?? 0) + 1);
  }
  const filledIds = new Set<OrderId>();
  for (const list of fills) for (const f of list) filledIds.add(f.orderId);
  const settled = (r: OrderReport): boolean => {
    const o = byOid.get(r.clientOid);
    return (
      o !== undefined &&
      o.orderId === r.orderId &&
      localStatusOf(r.status) === o.status &&
      !r.filledQty.gt(filledAfterFills(o, NO_OBJECTS)) &&
      rowsById.get(r.orderId) === 1 &&
      rowsByOid.get(o.clientOid) === 1 &&
      !filledIds.has(r.orderId)
    );
  };
  const kept = reports.filter((r) => !settled(r));
  return kept.length === reports.length ? reports : kept;
}
