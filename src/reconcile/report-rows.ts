// Order-history rows as evidence: how far along a row says an order is, and how to collapse the
// duplicated and lagging rows the history endpoint returns into one row per exchange order.
import type { OrderId } from '../core/ids.ts';
import type { OrderStatus } from '../core/orders.ts';
import type { OrderReport, VenueOrderStatus } from '../core/reports.ts';

/** How far along a venue status is: a row with a lower rank than another for the same order is stale. */
export const VENUE_RANK: Readonly<Record<VenueOrderStatus, number>> = {
  untriggered: 1,
  pending: 1,
  open: 2,
  canceling: 3,
  filled: 4,
  canceled: 4,
};

export function isVenueTerminal(s: VenueOrderStatus): boolean {
  return s === 'filled' || s === 'canceled';
}

/** The local status an exchange status corresponds to (for orders adopted from the exchange). */
export function localStatusOf(s: VenueOrderStatus): OrderStatus {
  switch (s) {
    case 'untriggered':
    case 'pending':
      return 'pending';
    case 'open':
      return 'open';
    case 'canceling':
      return 'canceling';
    case 'filled':
      return 'filled';
    case 'canceled':
      return 'canceled';
  }
}

/** True when `a` says at least as much as `b` about the same order (status, then filled quantity). */
function moreAdvanced(a: OrderReport, b: OrderReport): boolean {
  const ra = VENUE_RANK[a.status];
  const rb = VENUE_RANK[b.status];
  if (ra !== rb) return ra > rb;
  if (!a.filledQty.eq(b.filledQty)) return a.filledQty.gt(b.filledQty);
  // Same rank and quantity: filled says more than canceled (a canceled row with everything filled is
  // the exchange's race between the last fill and the cancel).
  return a.status === 'filled' && b.status === 'canceled';
}

export interface CollapsedReports {
  /** One row per exchange order id: the most advanced one seen. In first-seen order. */
  readonly rows: readonly OrderReport[];
  /** Orders for which the rows contradict each other (both filled and canceled). */
  readonly conflicts: readonly {
    readonly orderId: OrderId;
    readonly kept: OrderReport;
    readonly other: OrderReport;
  }[];
}

/**
 * Collapses rows by exchange order id, keeping the most advanced: duplicated rows vanish and a
 * lagging row never wins over a newer one, whatever order they arrive in.
 */
export function collapseReports(reports: readonly OrderReport[]): CollapsedReports {
  const best = new Map<OrderId, OrderReport>();
  const conflicts: { orderId: OrderId; kept: OrderReport; other: OrderReport }[] = [];
  for (const r of reports) {
    const seen = best.get(r.orderId);
    if (seen === undefined) {
      best.set(r.orderId, r);
      continue;
    }
    const winner = moreAdvanced(r, seen) ? r : seen;
    const loser = winner === r ? seen : r;
    if (isVenueTerminal(winner.status) && isVenueTerminal(loser.status) && winner.status !== loser.status) {
      conflicts.push({ orderId: r.orderId, kept: winner, other: loser });
    }
    best.set(r.orderId, winner);
  }
  return { rows: [...best.values()], conflicts };
}
