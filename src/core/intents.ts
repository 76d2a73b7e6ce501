// Intents: imperative requests from strategies. Validated at the strategy boundary; immutable.
import type { Dec } from './decimal.ts';
import type { ClientOid, OrderId, SymbolId } from './ids.ts';
import type { OrderSide, OrderType } from './orders.ts';

export interface PlaceIntent {
  readonly kind: 'place';
  readonly symbol: SymbolId;
  readonly side: OrderSide;
  readonly size: Dec;
  /** Limit price; absent means a market order (match_price 1). */
  readonly price?: Dec;
  readonly orderType: OrderType;
  /** Free text kept with the order (≤ 32 chars), e.g. "grid-3" or "stop". */
  readonly tag?: string;
  /**
   * Present: a plan (trigger) order, placed with plan_order. It rests at the exchange until the last
   * price crosses this price, then executes as a market order (no `price`) or a limit order at
   * `price`. Plan orders are always `normal`.
   */
  readonly triggerPrice?: Dec;
  /**
   * Protective plans to attach to this (opening) order: once it has ended with a fill and its fills
   * are in, the engine places a stop-loss and/or a take-profit plan at these trigger prices for the
   * filled size, as `ctx.stopLoss` / `ctx.takeProfit` would. Persisted with the order.
   */
  readonly attach?: AttachedPlans;
}

export interface AttachedPlans {
  readonly stopLoss?: Dec;
  readonly takeProfit?: Dec;
}

/** Tags of the plans `ctx.stopLoss` / `ctx.takeProfit` build: canceled when their leg goes flat. */
export const PROTECTIVE_TAGS = ['stop-loss', 'take-profit'] as const;

/** True for a plan that protects a position: a close-side plan tagged by stopLoss / takeProfit. */
export function isProtectivePlan(o: {
  readonly triggerPrice?: Dec;
  readonly side: string;
  readonly tag?: string;
}): boolean {
  return (
    o.triggerPrice !== undefined &&
    o.side.startsWith('close_') &&
    (PROTECTIVE_TAGS as readonly (string | undefined)[]).includes(o.tag)
  );
}

export interface CancelIntent {
  readonly kind: 'cancel';
  readonly symbol: SymbolId;
  readonly clientOid?: ClientOid;
  readonly orderId?: OrderId;
}

export interface CancelAllIntent {
  readonly kind: 'cancelAll';
  /** Absent: every symbol of the strategy. */
  readonly symbol?: SymbolId;
}

export type Intent = PlaceIntent | CancelIntent | CancelAllIntent;

/** True for an order a cancel-everything leaves resting under `keepProtectivePlans`. */
export function keptOnCancelAll(
  o: { readonly triggerPrice?: Dec; readonly side: string; readonly tag?: string },
  keepProtectivePlans: boolean,
): boolean {
  return keepProtectivePlans && isProtectivePlan(o);
}
