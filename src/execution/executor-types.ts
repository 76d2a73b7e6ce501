// The executor's public vocabulary: options, dependencies, what it accepts and what it reports.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import type { Dec } from '../core/decimal.ts';
import type { EndpointId } from '../core/endpoints.ts';
import type { OrderEvent } from '../core/events.ts';
import type { ClientOid, OrderId, StrategyId, SymbolId } from '../core/ids.ts';
import type { ExchangePort, PlaceEntry } from '../exchange/port.ts';
import type { BudgetState } from './budget.ts';
import type { BudgetGate } from './budget-gate.ts';
import type { Timers } from './timers.ts';

export const JOB_PRIORITY = { cancel: 3, read: 2, place: 1 } as const;

export interface ExecutorOptions {
  /** Requests in flight at once. */
  readonly maxInFlight: number;
  /** `tick`: placements wait for `endOfTick()`; a number: for that many ms after the first one. */
  readonly coalesce: 'tick' | number;
  /** Let newer tagged placements replace queued ones with the same strategy + symbol + tag. */
  readonly supersede: boolean;
  readonly maxBatch: number;
  /** Attempts for a request that never reached the exchange (TransportError), and for cancels. */
  readonly maxAttempts: number;
  /** Delay before such a retry. */
  readonly retryDelayMs: number;
}

export const DEFAULT_EXECUTOR_OPTIONS: ExecutorOptions = Object.freeze({
  maxInFlight: 4,
  coalesce: 'tick',
  supersede: false,
  maxBatch: 20,
  maxAttempts: 3,
  retryDelayMs: 1_000,
});

export type ExecutorPort = Pick<
  ExchangePort,
  'placeOrder' | 'placeBatch' | 'cancelOrder' | 'placePlan' | 'cancelPlan'
>;

export interface ExecutorDeps {
  readonly port: ExecutorPort;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly budget: BudgetState;
  /** The budget shared with other processes (config `budget.shared`); absent: this process alone. */
  readonly budgetGate?: BudgetGate;
  /**
   * Receives every order event the executor produces, synchronously. It must commit the event to
   * the store before returning: the executor acts on it right after (e.g. sends the request).
   */
  readonly onOrderEvent: (event: OrderEvent) => void;
  /**
   * Runs `fn` as one store transaction: the `OrderSubmitted` events of one request's entries are
   * committed together (one commit, one fsync, instead of one per entry). Default: runs `fn`.
   */
  readonly atomically?: (fn: () => void) => void;
  /** A failure the executor cannot handle (the store refused a write): the executor stops. */
  readonly onFatal: (error: unknown) => void;
  readonly log: Logger;
  readonly options?: Partial<ExecutorOptions>;
}

/** A placement to send: already written to the store as `created`. */
export interface PlacementRequest {
  readonly strategy: StrategyId;
  readonly symbol: SymbolId;
  readonly entry: PlaceEntry;
  readonly tag?: string;
  /** Present: a plan (trigger) order, sent with plan_order (`entry.price` is its execution price). */
  readonly triggerPrice?: Dec;
  /** Higher goes first among placements (e.g. position-reducing orders). Default 0. */
  readonly priority?: number;
}

export interface CancelRequestJob {
  readonly symbol: SymbolId;
  readonly clientOid: ClientOid;
  readonly orderId?: OrderId;
  /** A plan order that has not fired (as far as we know): sent as cancel_plan. */
  readonly plan?: boolean;
}

export interface QueueDepth {
  /** Placements waiting for the end of the tick / coalescing window. */
  readonly staged: number;
  /** Placements eligible and waiting for budget. */
  readonly placements: number;
  readonly cancels: number;
  readonly reads: number;
  readonly inFlight: number;
  /** Jobs waiting on a retry timer. */
  readonly retrying: number;
}

export interface ExecutorMetrics {
  readonly requestsByEndpoint: Readonly<Partial<Record<EndpointId, number>>>;
  readonly weightUsed: { readonly ip: number; readonly uid: number };
  readonly rateLimited: number;
  readonly batchCalls: number;
  readonly batchEntries: number;
  readonly singleCalls: number;
  readonly cancelsSent: number;
  readonly superseded: number;
  readonly outcomeUnknown: number;
}
