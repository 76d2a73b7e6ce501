// Engine counters, derived only from what the engine did (no wall clock): deterministic in
// backtests, exported as Prometheus metrics live.
import type { EndpointId } from '../core/endpoints.ts';
import type { BudgetUsage } from '../execution/budget.ts';
import type { Executor, QueueDepth } from '../execution/executor.ts';
import type { TradingState } from '../risk/trading-state.ts';

export interface EngineMetrics {
  readonly tickers: number;
  readonly intents: number;
  readonly ordersCreated: number;
  readonly ordersAccepted: number;
  readonly ordersRejected: number;
  readonly ordersUnknown: number;
  readonly ordersCanceled: number;
  readonly ordersFilled: number;
  readonly fills: number;
  readonly cancelsRequested: number;
  /** Close intents shrunk to the closable size (src/engine/close-cap.ts); dropped ones are `closable_size` refusals. */
  readonly closesCapped: number;
  readonly strategiesDisabled: number;
  /**
   * Refusals and rejections by reason: risk gate reasons as they are (`price_band`, ...), exchange
   * rejections as `exchange:<code>`, local ones as `local:<CODE>` (SUPERSEDED, NOT_SENT, ...).
   */
  readonly rejectionsByReason: Readonly<Record<string, number>>;
  readonly requestsByEndpoint: Readonly<Partial<Record<EndpointId, number>>>;
  /** Weight granted since start (what the exchange was charged). */
  readonly weightUsed: { readonly ip: number; readonly uid: number };
  readonly rateLimited: number;
  readonly batchCalls: number;
  readonly batchEntries: number;
  readonly singleCalls: number;
  readonly superseded: number;
  readonly queue: QueueDepth;
  readonly budget: BudgetUsage;
  readonly tradingState: TradingState;
}

/** Local rejection codes the executor and engine use (never sent by the exchange). */
export const LOCAL_REJECTION_CODES: ReadonlySet<string> = new Set(['SUPERSEDED', 'NOT_SENT', 'TRANSPORT']);

export class Counters {
  tickers = 0;
  intents = 0;
  ordersCreated = 0;
  ordersAccepted = 0;
  ordersRejected = 0;
  ordersUnknown = 0;
  ordersCanceled = 0;
  ordersFilled = 0;
  fills = 0;
  cancelsRequested = 0;
  closesCapped = 0;
  strategiesDisabled = 0;
  readonly rejections: Record<string, number> = {};

  reject(reason: string): void {
    this.rejections[reason] = (this.rejections[reason] ?? 0) + 1;
  }
}

/** The engine's metrics: its own counters beside the executor's, queue and budget. */
export function engineMetrics(c: Counters, executor: Executor, tradingState: TradingState): EngineMetrics {
  const x = executor.metrics();
  return {
    tickers: c.tickers,
    intents: c.intents,
    ordersCreated: c.ordersCreated,
    ordersAccepted: c.ordersAccepted,
    ordersRejected: c.ordersRejected,
    ordersUnknown: c.ordersUnknown,
    ordersCanceled: c.ordersCanceled,
    ordersFilled: c.ordersFilled,
    fills: c.fills,
    cancelsRequested: c.cancelsRequested,
    closesCapped: c.closesCapped,
    strategiesDisabled: c.strategiesDisabled,
    rejectionsByReason: { ...c.rejections },
    requestsByEndpoint: x.requestsByEndpoint,
    weightUsed: x.weightUsed,
    rateLimited: x.rateLimited,
    batchCalls: x.batchCalls,
    batchEntries: x.batchEntries,
    singleCalls: x.singleCalls,
    superseded: x.superseded,
    queue: executor.depth(),
    budget: executor.budgetUsage(),
    tradingState,
  };
}
