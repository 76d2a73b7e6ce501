// The simulator's records: its own orders and fills, in core units (Dec, string ids). Wire shapes
// are produced from these by ./wire.ts; nothing here knows about HTTP.
import type { Dec } from '../../core/decimal.ts';
import type { OrderSide, OrderType } from '../../core/orders.ts';

/** Venue order statuses the simulator produces (no plan orders, so never `untriggered`). */
export type SimOrderStatus = 'pending' | 'open' | 'filled' | 'canceling' | 'canceled';

export type MarginMode = 'SHARED' | 'ISOLATED';

export type Liquidity = 'MAKER' | 'TAKER';

/** What an account asks for: one placeOrder body or one batch entry, already parsed. */
export interface SimOrderRequest {
  readonly clientOid: string;
  readonly side: OrderSide;
  readonly orderType: OrderType;
  readonly size: Dec;
  /** Absent: market order (match_price 1). */
  readonly price?: Dec;
  readonly presetTakeProfitPrice?: Dec;
  readonly presetStopLossPrice?: Dec;
  readonly marginMode?: MarginMode;
}

/** One order as the exchange knows it. Immutable: every change is a new revision. */
export interface SimOrder {
  readonly orderId: string;
  readonly clientOid: string;
  readonly symbol: string;
  readonly side: OrderSide;
  /** Execution type as recorded: market orders are recorded as `ioc` (or `fok`) like the live venue. */
  readonly orderType: OrderType;
  readonly isMarket: boolean;
  /** Limit price; absent for market orders (the wire shows "0.0"). */
  readonly price?: Dec;
  readonly size: Dec;
  readonly filledQty: Dec;
  /** Σ fill size × fill price, for the average price. */
  readonly filledValue: Dec;
  readonly fee: Dec;
  readonly totalProfits: Dec;
  readonly status: SimOrderStatus;
  readonly marginMode: MarginMode;
  readonly presetTakeProfitPrice?: Dec;
  readonly presetStopLossPrice?: Dec;
  readonly createTime: number;
  /** Time of this revision. */
  readonly updateTime: number;
  /** Still taking liquidity: marketable since arrival and never seen resting behind the market. */
  readonly aggressive: boolean;
  /** While pending: when the matching engine processes it. */
  readonly activateAt: number;
  /** While canceling: when the cancel completes. */
  readonly cancelAt?: number;
  /** Why it ended canceled, when it did. */
  readonly cancelReason?: string;
}

export interface SimFill {
  readonly tradeId: string;
  readonly orderId: string;
  readonly clientOid: string;
  readonly symbol: string;
  readonly side: OrderSide;
  readonly marginMode: MarginMode;
  readonly liquidity: Liquidity;
  readonly size: Dec;
  readonly price: Dec;
  /** size × price, exactly. */
  readonly value: Dec;
  /** value × fee rate of the liquidity side, exactly. */
  readonly fee: Dec;
  readonly feeRate: Dec;
  /** PnL realised by this fill (0 for opening fills), gross of fees. */
  readonly realizedPnl: Dec;
  readonly createdTime: number;
}

export function isActive(o: { readonly status: SimOrderStatus }): boolean {
  return o.status === 'pending' || o.status === 'open' || o.status === 'canceling';
}

export function remainingOf(o: SimOrder): Dec {
  return o.size.minus(o.filledQty);
}

// ---------------------------------------------------------------------------------------------
// Plan (trigger) orders (./plans.ts)

/**
 * A plan's own life: `untriggered` (resting at the venue), then `triggered` (it became its child
 * order, whose life the row then follows), or `canceled` (by request), `expired` (the 90-day window)
 * or `failed` (triggered, but its child order was refused: a close larger than the position, …).
 */
export type SimPlanStatus = 'untriggered' | 'triggered' | 'canceled' | 'expired' | 'failed';

/** Which price a plan watches: the ticker's last, or its mark price (last when a ticker has none). */
export type TriggerSource = 'last' | 'mark';

/** `rise`: fires when the price reaches the trigger from below (price ≥ trigger); `fall`: price ≤ trigger. */
export type TriggerDirection = 'rise' | 'fall';

/** What a plan order asks for: one plan_order body, parsed. */
export interface SimPlanRequest {
  readonly clientOid: string;
  readonly side: OrderSide;
  readonly size: Dec;
  readonly triggerPrice: Dec;
  /** Absent: market execution (match_type 1). */
  readonly executePrice?: Dec;
  readonly marginMode?: MarginMode;
  /** Absent: the simulator's default (`planTriggerSource`). */
  readonly triggerSource?: TriggerSource;
}

/** The child order's figures, copied into the plan on every revision of the child. */
export interface PlanChild {
  readonly orderId: string;
  readonly status: SimOrderStatus;
  readonly filledQty: Dec;
  readonly filledValue: Dec;
  readonly fee: Dec;
  readonly totalProfits: Dec;
}

/** One plan order as the venue knows it. Immutable: every change is a new revision. */
export interface SimPlan {
  readonly orderId: string;
  /** Absent for the plans the venue makes from an order's preset TP/SL (live rows show null). */
  readonly clientOid?: string;
  readonly symbol: string;
  readonly side: OrderSide;
  readonly size: Dec;
  readonly triggerPrice: Dec;
  readonly executePrice?: Dec;
  readonly triggerSource: TriggerSource;
  /** Decided by the watched price at placement (or the first price seen after it). */
  readonly direction?: TriggerDirection;
  readonly marginMode: MarginMode;
  /** `plan`: placed by plan_order; the others were made from the preset fields of `parentOrderId`. */
  readonly origin: 'plan' | 'presetTakeProfit' | 'presetStopLoss';
  readonly parentOrderId?: string;
  readonly status: SimPlanStatus;
  readonly createTime: number;
  /** Time of this revision. */
  readonly updateTime: number;
  readonly triggerTime?: number;
  readonly child?: PlanChild;
  /** Why it ended canceled, expired or failed. */
  readonly reason?: string;
}
