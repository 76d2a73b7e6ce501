// The exchange port: the only way the engine talks to an exchange. Implemented by the capi/v2 HTTP
// adapter (live, or paper against `capibot sim`) and by the in-process simulator (backtests).
// Every method either resolves with core types or rejects with one of the errors of core/errors.ts.
// Type-only: importing this file pulls in no I/O.
import type { Dec } from '../core/decimal.ts';
import type { ClientOid, OrderId, SymbolId } from '../core/ids.ts';
import type { ContractSpec, Ticker } from '../core/market.ts';
import type { OrderSide, OrderType } from '../core/orders.ts';
import type { CancelOutcome, FillPage, OrderReport, PlaceOutcome, PlanPage } from '../core/reports.ts';

/** One order to place (an entry of batchOrders, or the body of placeOrder without the symbol). */
export interface PlaceEntry {
  readonly clientOid: ClientOid;
  readonly side: OrderSide;
  readonly orderType: OrderType;
  readonly size: Dec;
  /** Absent: market order (match_price "1"). */
  readonly price?: Dec;
  /** Sent as `presetTakeProfitPrice` when present: the venue creates a TP close plan once it fills. */
  readonly presetTakeProfitPrice?: Dec;
  /** Sent as `presetStopLossPrice` when present: the venue creates an SL close plan once it fills. */
  readonly presetStopLossPrice?: Dec;
}

/** One plan (trigger) order: the body of plan_order without the symbol (weex-facts.md §5). */
export interface PlanEntry {
  readonly clientOid: ClientOid;
  /** open_long | open_short | close_long | close_short → wire `type` 1..4. */
  readonly side: OrderSide;
  readonly size: Dec;
  readonly triggerPrice: Dec;
  /** Absent: market execution (match_type "1", execute_price "0"). */
  readonly executePrice?: Dec;
}

export interface CancelPlanRequest {
  readonly symbol: SymbolId;
  readonly orderId?: OrderId;
  readonly clientOid?: ClientOid;
}

export interface CurrentPlanQuery {
  readonly symbol?: SymbolId;
  /** Page number from 0 (default 0). */
  readonly page?: number;
  /** Rows per page, 1..100 (default 100). */
  readonly limit?: number;
}

export interface CancelRequest {
  readonly symbol: SymbolId;
  readonly orderId?: OrderId;
  readonly clientOid?: ClientOid;
}

export interface FillsQuery {
  readonly symbol?: SymbolId;
  readonly orderId?: OrderId;
  readonly startTime?: number;
  readonly endTime?: number;
  /** 1..100, default 100. */
  readonly limit?: number;
}

export interface HistoryQuery {
  readonly symbol?: SymbolId;
  readonly pageSize?: number;
  /** Days 0..90, or an epoch-ms lower bound within the last 90 days. */
  readonly createDate?: number;
}

export interface PlanHistoryQuery {
  readonly symbol: SymbolId;
  readonly startTime: number;
  readonly endTime: number;
  /** 1 open long, 2 open short, 3 close long, 4 close short. */
  readonly delegateType?: 1 | 2 | 3 | 4;
  readonly pageSize?: number;
}

export interface ExchangePort {
  serverTime(): Promise<number>;
  contracts(): Promise<readonly ContractSpec[]>;
  tickers(): Promise<readonly Ticker[]>;
  /** placeOrder: one entry. Throws OutcomeUnknownError when the reply is lost. */
  placeOrder(symbol: SymbolId, entry: PlaceEntry): Promise<PlaceOutcome>;
  /** batchOrders: 1..20 entries of one symbol; one outcome per entry, in request order. */
  placeBatch(symbol: SymbolId, entries: readonly PlaceEntry[]): Promise<readonly PlaceOutcome[]>;
  cancelOrder(req: CancelRequest): Promise<CancelOutcome>;
  fills(q: FillsQuery): Promise<FillPage>;
  history(q: HistoryQuery): Promise<readonly OrderReport[]>;
  planHistory(q: PlanHistoryQuery): Promise<PlanPage>;
  /** plan_order: one plan. Throws OutcomeUnknownError when the reply is lost (never retried). */
  placePlan(symbol: SymbolId, entry: PlanEntry): Promise<PlaceOutcome>;
  /** cancel_plan: an unknown or finished plan answers `result: false` (50005), as cancelOrder does. */
  cancelPlan(req: CancelPlanRequest): Promise<CancelOutcome>;
  /**
   * currentPlan: the untriggered plans, one page. The venue answers a bare array; `nextPage` is true
   * when the page is full (a further page may hold more).
   */
  currentPlans(q: CurrentPlanQuery): Promise<PlanPage>;
}
