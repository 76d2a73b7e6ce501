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
