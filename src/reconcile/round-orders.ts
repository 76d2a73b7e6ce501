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
import type { OrderId } from '../core/ids.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import type { FillReport, OrderReport } from '../core/reports.ts';

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
