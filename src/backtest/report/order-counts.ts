// What the report says of a run's orders as a whole: how many were placed, canceled, rejected, and
// what became of the plan orders. Counted one order at a time (OrderCounter), so a long backtest
// counts its orders as the store reads them back, without holding them all (issue #24).
import type { Order, OrderStatus } from '../../core/orders.ts';

export interface PlanOrderCounts {
  /** Plan orders written (each client_oid with a trigger price). */
  readonly placed: number;
  /** Plans whose trigger was crossed (their child order was seen, or something filled). */
  readonly triggered: number;
  /** Plans canceled (or expired) before triggering. */
  readonly canceled: number;
  /** Plans refused (by the venue or the risk gate) or lost. */
  readonly rejected: number;
}

export interface OrderCounts {
  /** Every order record of the run (each client_oid capibot wrote, whatever became of it). */
  readonly placed: number;
  /** Final status `canceled` (including partially filled ones). */
  readonly canceled: number;
  /** Final status `rejected`. */
  readonly rejected: number;
  readonly plans: PlanOrderCounts;
}

export class OrderCounter {
  #placed = 0;
  #canceled = 0;
  #rejected = 0;
  readonly #plans = { placed: 0, triggered: 0, canceled: 0, rejected: 0 };

  add(o: Order): void {
    const plan = o.triggerPrice !== undefined;
    this.addStatus(o.status, plan && (o.planOrderId !== undefined || o.filledQty.gt(0)), plan);
  }

  /**
   * One order by what counting reads of it: its status, whether it is a plan order (it has a trigger
   * price) and, for a plan, whether it triggered (its child order was seen, or something filled).
   */
  addStatus(status: OrderStatus, triggered: boolean, plan: boolean): void {
    this.#placed++;
    if (status === 'canceled') this.#canceled++;
    else if (status === 'rejected') this.#rejected++;
    if (!plan) return;
    this.#plans.placed++;
    if (triggered) this.#plans.triggered++;
    else if (status === 'canceled') this.#plans.canceled++;
    else if (status === 'rejected') this.#plans.rejected++;
  }

  counts(): OrderCounts {
    return {
      placed: this.#placed,
      canceled: this.#canceled,
      rejected: this.#rejected,
      plans: { ...this.#plans },
    };
  }
}

export function countOrders(orders: Iterable<Order>): OrderCounts {
  const c = new OrderCounter();
  for (const o of orders) c.add(o);
  return c.counts();
}
