// The engine's public shape: what it is built from and what the runner, the backtest driver and
// reconciliation call on it.
import type { Logger } from 'pino';
import type { Observable, SchedulerLike } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Dec } from '../core/decimal.ts';
import type { OrderEvent } from '../core/events.ts';
import type { Footprint } from '../core/footprint.ts';
import type { StrategyId, SymbolId } from '../core/ids.ts';
import type { ContractSpec, Ticker } from '../core/market.ts';
import type { Order } from '../core/orders.ts';
import type { ExchangePort } from '../exchange/port.ts';
import type { HistoryHeadroomConfig } from '../reconcile/history-headroom.ts';
import type { HedgePosition } from '../risk/exposure.ts';
import type { BudgetConfig } from '../execution/budget.ts';
import type { BudgetGate } from '../execution/budget-gate.ts';
import type { Executor, ExecutorOptions, QueueDepth } from '../execution/executor.ts';
import type { RiskLimits } from '../risk/limits.ts';
import type { TradingState } from '../risk/trading-state.ts';
import type { OrderStore, StoredFill } from '../store/port.ts';
import type { StrategyDefinition } from '../strategy/define.ts';
import type { InstantiatedStrategy } from '../strategy/instantiate.ts';
import type { PnlSnapshot } from '../strategy/types.ts';
import type { EngineEvent } from './events.ts';
import type { EngineMetrics } from './metrics.ts';

export interface EngineStrategyConfig {
  /** Instance id ([A-Za-z0-9_]{1,16}): part of every client_oid. */
  readonly id: string;
  readonly definition: StrategyDefinition;
  readonly params?: unknown;
}

export interface EngineOptions {
  /** First part of every client_oid. Default `cb`. */
  readonly clientOidPrefix?: string;
  readonly riskLimits?: RiskLimits;
  /** Account equity at start; enables the drawdown breaker (equity = this + net PnL). */
  readonly startingEquity?: Dec;
  readonly budget?: Partial<BudgetConfig>;
  /** The weight budget shared with other processes on the account (config `budget.shared`). */
  readonly budgetGate?: BudgetGate;
  readonly executor?: Partial<ExecutorOptions>;
  /**
   * The kill switch leaves protective plan orders (stopLoss / takeProfit of an open position)
   * resting at the exchange, and cancels everything else. Default true; false cancels them too.
   */
  readonly killKeepsProtectivePlans?: boolean;
  /** Cancel the open orders of a strategy that gets disabled. Default true. */
  readonly cancelOnDisable?: boolean;
  /**
   * When set, `start()` also pulses strategy timers every this many ms of scheduler time (only when
   * some strategy declares `timerIntervalMs`: otherwise no pulse would reach anyone).
   */
  readonly timerPulseMs?: number;
  /**
   * After the exchange answered a cancel with "order does not exist", further cancels of that order
   * wait this long (or until reconciliation changes the order). Default 5000 ms.
   */
  readonly cancelRetryMs?: number;
  /**
   * While a symbol holds an order with an unknown outcome, placements on it are refused once one
   * order-history page would no longer reach it (src/reconcile/history-headroom.ts). Default
   * DEFAULT_HISTORY_HEADROOM.
   */
  readonly historyHeadroom?: HistoryHeadroomConfig;
}

export interface CancelScope {
  readonly strategy?: StrategyId;
  readonly symbol?: SymbolId;
  /**
   * Also orders whose last cancel the exchange answered "does not exist" less than `cancelRetryMs`
   * ago (an operator's cancel-all, a shutdown: try them all again now).
   */
  readonly retryRefused?: boolean;
  /** Leave protective plan orders (stopLoss / takeProfit of a position) resting. */
  readonly keepProtectivePlans?: boolean;
}

export interface CancelAllResult {
  /** Orders canceled locally (never sent). */
  readonly local: number;
  /** cancel_order requests queued. */
  readonly requested: number;
}

export interface EngineDeps {
  readonly port: ExchangePort;
  readonly store: OrderStore;
  readonly clock: Clock;
  readonly scheduler: SchedulerLike;
  readonly log: Logger;
  /** Contract specs of every symbol the strategies trade. */
  readonly specs: ReadonlyMap<SymbolId, ContractSpec>;
  readonly strategies: readonly EngineStrategyConfig[];
  readonly options?: EngineOptions;
}

export interface EngineStartOptions {
  /** A ticker source (poller or replay): one array per poll. Optional: `onTick` may be called instead. */
  readonly tickers$?: Observable<readonly Ticker[]>;
}

export interface Engine {
  /** Every engine event, synchronously, in order. Hot: subscribe before `start()`. */
  readonly events$: Observable<EngineEvent>;
  readonly strategies: readonly InstantiatedStrategy[];
  /** The executor, for reconciliation reads (`executor.read(endpoint, fn)`) and the poller gate. */
  readonly executor: Executor;
  start(options?: EngineStartOptions): void;
  /** One poll of tickers, processed synchronously (strategies, risk, store, executor queue). */
  onTick(tickers: readonly Ticker[]): void;
  /** Order events from reconciliation: reduced, committed, then shown to strategies. */
  applyOrderEvents(events: readonly OrderEvent[]): void;
  /** Orders and fills a caller already committed to the store (reconcile commit): notify only. */
  ordersChanged(orders: readonly Order[], fills?: readonly StoredFill[]): void;
  /**
   * Cancels every open order in `scope` (every strategy and symbol by default, adopted orders
   * included) without touching the trading state: orders that never left are canceled locally, the
   * others get CancelRequested (committed first) and one cancel_order on the executor's cancel lane.
   */
  cancelAll(scope?: CancelScope): CancelAllResult;
  /**
   * HALTED, and every open order of every strategy is canceled (protective plans excepted, unless
   * `killKeepsProtectivePlans` is false).
   */
  killSwitch(reason: string): void;
  tradingState(): TradingState;
  /** Account-wide open legs per symbol (every strategy together), from the fills in the store. */
  hedgePositions(): ReadonlyMap<SymbolId, HedgePosition>;
  /** Account PnL, marked at the latest tickers. */
  pnl(): PnlSnapshot;
  /** Open (non-terminal) orders, as the engine knows them. */
  openOrders(): readonly Order[];
  queueDepth(): QueueDepth;
  metrics(): EngineMetrics;
  /**
   * How many entries each collection the engine keeps for the whole run holds (open orders,
   * executor, portfolio, risk view, ...), by dotted name (`open.orders`): cheap, sizes only
   * (core/footprint.ts). The bounded-memory test holds them to the open orders plus a fixed window.
   */
  footprint(): Footprint;
  /** Resolves when nothing is in flight and nothing can progress until time passes; rejects after a failure. */
  idle(): Promise<void>;
  /** True when idle() would resolve at once (no executor work, no step running); throws after a failure. */
  idleNow(): boolean;
  /** Stops the ticker source, timers and strategies; the executor keeps its queue (see shutdown). */
  stop(): void;
  /** stop(), then let the executor drain until `deadlineMs`; unsent placements are rejected locally. */
  shutdown(deadlineMs: number): Promise<QueueDepth>;
  /** The failure that stopped the engine, if any. */
  readonly failure: Error | undefined;
}
