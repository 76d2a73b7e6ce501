// Reports: what the exchange said when polled (or answered to a request), mapped from wire shapes
// into core types in one place (src/exchange/weex/mappers.ts). Ids are strings; money is Dec.
import type { Dec } from './decimal.ts';
import type { ClientOid, OrderId, SymbolId, TradeId } from './ids.ts';
import type { OrderSide } from './orders.ts';

/** Order statuses as the exchange reports them in order history. */
export const VENUE_ORDER_STATUSES = [
  'pending',
  'open',
  'filled',
  'canceling',
  'canceled',
  'untriggered',
] as const;
export type VenueOrderStatus = (typeof VENUE_ORDER_STATUSES)[number];

export interface FillReport {
  readonly tradeId: TradeId;
  readonly orderId: OrderId;
  readonly symbol: SymbolId;
  readonly positionSide: string;
  readonly orderSide: string;
  readonly direction: string;
  readonly size: Dec;
  readonly value: Dec;
  readonly fee: Dec;
  readonly realizedPnl: Dec;
  readonly createdTime: number;
}

export interface FillPage {
  readonly fills: readonly FillReport[];
  readonly nextFlag: boolean;
  readonly totals?: number;
}

export interface OrderReport {
  readonly symbol: SymbolId;
  readonly orderId: OrderId;
  /** Absent when the exchange returns null/empty. */
  readonly clientOid?: ClientOid;
  /** A regular hedge-mode side, or the raw text of a liquidation/ADL type (`burst_liquidate_long`…). */
  readonly type: string;
  /** `normal` | `postOnly` | `fok` | `ioc` as reported. */
  readonly orderType: string;
  readonly status: VenueOrderStatus;
  readonly size: Dec;
  readonly filledQty: Dec;
  readonly price: Dec;
  readonly priceAvg: Dec;
  readonly fee: Dec;
  readonly totalProfits: Dec;
  readonly createTime: number;
  /** Present when the row is a plan (trigger) order's (currentPlan / historyPlan rows, reconciled alike). */
  readonly triggerPrice?: Dec;
}

/** Plan (trigger) order status, normalised from numeric codes or upper-case words. */
export type PlanStatus = 'canceled' | 'untriggered' | 'partially_filled' | 'filled' | 'triggered' | 'unknown';

export interface PlanReport {
  readonly symbol: SymbolId;
  readonly orderId: OrderId;
  readonly clientOid?: ClientOid;
  readonly status: PlanStatus;
  readonly rawStatus: string;
  /** As reported: a code `1`..`10` or a word (`CLOSE_LONG`). */
  readonly type: string;
  /** Mapped from type codes 1..4 or OPEN_LONG/…/CLOSE_SHORT words; absent for 5..10 (venue-made closes). */
  readonly side?: OrderSide;
  readonly orderType: string;
  readonly size: Dec;
  readonly price: Dec;
  readonly triggerPrice: Dec;
  readonly createTime: number;
  /** Of the order the plan became once triggered; 0 when the wire omits them. */
  readonly filledQty: Dec;
  readonly priceAvg: Dec;
  readonly fee: Dec;
  /** When the plan triggered; absent while untriggered (or when the wire sends ""/null/0). */
  readonly triggerTime?: number;
  /** As reported (`""`, `LIMIT`, `MARK_PRICE`, …; the value set is undocumented); absent when empty. */
  readonly triggerPriceType?: string;
}

export interface PlanPage {
  readonly plans: readonly PlanReport[];
  readonly nextPage: boolean;
}

/** The outcome of one entry of a placement (batch or single). */
export type PlaceOutcome =
  | { readonly clientOid: ClientOid; readonly outcome: 'accepted'; readonly orderId: OrderId }
  | {
      readonly clientOid: ClientOid;
      readonly outcome: 'rejected';
      readonly code: string;
      readonly message: string;
    };

export interface CancelOutcome {
  readonly orderId?: OrderId;
  readonly clientOid?: ClientOid;
  readonly result: boolean;
  readonly errCode?: string;
  readonly errMsg?: string;
}
