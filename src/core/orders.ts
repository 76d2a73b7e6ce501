import type { Dec } from './decimal.ts';
import type { ClientOid, OrderId, StrategyId, SymbolId } from './ids.ts';

/** Direction of an order in hedge mode (the order-history `type` values for regular orders). */
export const ORDER_SIDES = ['open_long', 'open_short', 'close_long', 'close_short'] as const;
export type OrderSide = (typeof ORDER_SIDES)[number];

/** Execution type (order-history `order_type`). */
export const ORDER_TYPES = ['normal', 'postOnly', 'fok', 'ioc'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/**
 * Local order statuses (ARCHITECTURE.md, store contract).
 * created   — written to the store, request not yet sent
 * submitted — request sent, no answer yet
 * unknown   — request may have reached the exchange, answer lost; settle by reconciliation
 * untriggered — a plan (trigger) order resting at the exchange until its trigger price is crossed;
 *             once triggered it continues as its child order (pending, open, …) under the same
 *             client_oid
 * pending / open / canceling / filled / canceled — as the exchange reports them
 * rejected  — refused by the exchange or the risk gate, or declared lost after the grace period
 */
export const ORDER_STATUSES = [
  'created',
  'submitted',
  'unknown',
  'untriggered',
  'pending',
  'open',
  'canceling',
  'filled',
  'canceled',
  'rejected',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const TERMINAL_STATUSES: ReadonlySet<OrderStatus> = new Set(['filled', 'canceled', 'rejected']);

export function isTerminal(s: OrderStatus): boolean {
  return TERMINAL_STATUSES.has(s);
}

/** True for a plan order whose child order is not known yet: cancel it with cancel_plan. */
export function isUntriggeredPlan(o: Pick<Order, 'triggerPrice' | 'planOrderId'>): boolean {
  return o.triggerPrice !== undefined && o.planOrderId === undefined;
}

/** True for sides that increase a position. */
export function isOpening(side: OrderSide): boolean {
  return side === 'open_long' || side === 'open_short';
}

/** The local record of one order. */
export interface Order {
  readonly clientOid: ClientOid;
  readonly orderId?: OrderId;
  readonly strategy: StrategyId;
  readonly symbol: SymbolId;
  readonly side: OrderSide;
  readonly orderType: OrderType;
  /** Absent for market orders (for a plan order: the execution price of its child; absent = market). */
  readonly price?: Dec;
  readonly size: Dec;
  /**
   * Present for a plan (trigger) order: placed with plan_order, resting `untriggered` at the exchange
   * until the last price crosses it, then executed as a regular child order.
   */
  readonly triggerPrice?: Dec;
  /**
   * A plan order's own exchange id, once its child order is known (`orderId` is then the child's, the
   * one fills carry). Before that the plan's id is in `orderId`.
   */
  readonly planOrderId?: OrderId;
  readonly status: OrderStatus;
  /** Filled quantity: the larger of the applied fills and the exchange-reported progress, ≤ size. */
  readonly filledQty: Dec;
  readonly avgPrice?: Dec;
  /**
   * Sum of the sizes of the fills applied to this order (each tradeId once), not clamped to the size.
   * Absent means zero. Kept apart from `filledQty` so reported progress and fills are not added twice.
   */
  readonly fillsQty?: Dec;
  /** Sum of the values (quote) of those fills; avgPrice = fillsValue ÷ fillsQty. Absent means zero. */
  readonly fillsValue?: Dec;
  readonly tag?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Why the order ended as rejected/canceled, when known. */
  readonly reason?: string;
}

/** The stores' order of orders (`ORDER BY created_at, client_oid`). */
export function byCreation(a: Order, b: Order): number {
  return a.createdAt - b.createdAt || (a.clientOid < b.clientOid ? -1 : a.clientOid > b.clientOid ? 1 : 0);
}
