// Plan rows (currentPlan, historyPlan) as order-history rows, so the one reconciliation kernel settles
// plan orders as it settles regular ones: a plan row carries the plan's own order id and client_oid,
// and says how far the plan got. What a row says, as an order-history status:
//
//   untriggered          → `untriggered`  (acceptance only: the plan waits for its trigger), or
//                          `pending` when the row has a trigger time (the documented numeric codes
//                          have no "triggered": a fired plan whose child has not filled shows `0`)
//   triggered            → `pending`      (its child order is in matching; no quantity known yet)
//   partially_filled     → `open`         (with the row's filled quantity and average price)
//   filled               → `filled`       (`pending` when the row carries no filled quantity: the
//                                          child's own rows and fills will say how much)
//   canceled             → `canceled`     (canceled, or expired at the end of its window)
//   unknown (a new word) → not used: nothing is concluded from a status we cannot read
//
// Rows of venue-made closes (types 5..10: no hedge-mode side) keep their raw type: the kernel reports
// them as foreign or unadoptable, never as ours.
import { ZERO } from '../core/decimal.ts';
import type { OrderReport, PlanReport, VenueOrderStatus } from '../core/reports.ts';

function statusOf(p: PlanReport): VenueOrderStatus | undefined {
  switch (p.status) {
    case 'untriggered':
      return p.triggerTime !== undefined ? 'pending' : 'untriggered';
    case 'triggered':
      return 'pending';
    case 'partially_filled':
      return 'open';
    case 'filled':
      return p.filledQty.gt(0) ? 'filled' : 'pending';
    case 'canceled':
      return 'canceled';
    // Stryker disable next-line ConditionalExpression: emptied, this case falls through to the end of the function, which returns undefined too
    case 'unknown':
      return undefined;
  }
}

/** The rows the kernel can read, in the order given (unreadable statuses left out). */
export function planRowsAsReports(plans: readonly PlanReport[]): OrderReport[] {
  const out: OrderReport[] = [];
  for (const p of plans) {
    const status = statusOf(p);
    if (status === undefined) continue;
    out.push({
      symbol: p.symbol,
      orderId: p.orderId,
      ...(p.clientOid !== undefined ? { clientOid: p.clientOid } : {}),
      type: p.side ?? p.type,
      orderType: 'normal',
      status,
      size: p.size,
      filledQty: p.filledQty,
      price: p.price,
      priceAvg: p.priceAvg,
      fee: p.fee,
      totalProfits: ZERO,
      createTime: p.createTime,
      triggerPrice: p.triggerPrice,
    });
  }
  return out;
}
