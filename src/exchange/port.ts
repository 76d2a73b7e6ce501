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
}
