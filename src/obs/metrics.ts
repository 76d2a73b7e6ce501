// Prometheus metrics behind a small typed interface. Components receive a `Metrics` and call its
// methods; they never touch prom-client. Live and paper runs use `createPromMetrics()` (its own
// Registry, never prom-client's global one, plus the process's default metrics on it); backtests and
// tests use `noopMetrics`.
//
// Every name starts with `capibot_`. Label values are bounded by the config (strategies, symbols) or
// by closed sets (endpoints, statuses, pools), so cardinality stays small.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../core/clock.ts';
import type { Dec } from '../core/decimal.ts';
import { ORDER_STATUSES } from '../core/orders.ts';
import type { OrderStatus } from '../core/orders.ts';

/** The weight budget's pools: per-IP weight, per-account weight, place/cancel requests per second. */
export type BudgetPool = 'ip' | 'uid' | 'orders';

export type TradingStateName = 'ACTIVE' | 'REDUCING' | 'HALTED';
export const TRADING_STATES: readonly TradingStateName[] = ['ACTIVE', 'REDUCING', 'HALTED'];

/** What became of an intent. Suggested values; any short word is accepted. */
export type IntentOutcome = 'approved' | 'refused' | 'superseded' | 'invalid' | (string & {});

/** A request's outcome: the HTTP status, or a word when none came back (`timeout`, `reset`, `transport`). */
export type RequestStatus = number | 'timeout' | 'reset' | 'transport' | (string & {});

type Amount = Dec | number | string;

export interface Metrics {
  /** Weight used and left in a budget pool's current window. */
  budget(pool: BudgetPool, used: number, remaining: number): void;
  /** A request finished (any outcome). A 429 also counts in `rateLimited`. */
  requestDone(endpoint: string, status: RequestStatus, durationMs?: number): void;
  /** Requests waiting in the executor's queue (`queue`: e.g. `cancel`, `read`, `place`). */
  queueDepth(depth: number, queue?: string): void;
  /** An intent from a strategy reached a final outcome at the gate or the executor. */
  intent(strategy: string, outcome: IntentOutcome): void;
  /** The number of local orders in each status (statuses not given are set to 0). */
  ordersByStatus(counts: Readonly<Partial<Record<OrderStatus, number>>>): void;
  /** Orders whose request outcome is unknown, waiting for reconciliation. */
  unknownOrders(count: number): void;
  /** Reconciliation changed the local picture (`kind`: e.g. `adopted`, `settled_unknown`, `declared_lost`, `late_fill`). */
  reconcileCorrection(kind: string, count?: number): void;
  /** A reconciliation pass completed at `atMs` (epoch ms). */
  reconciled(atMs: number): void;
  /** A fill was recorded: counts it, its fee (positive = paid, negative = rebate) and its notional (quote currency). */
  fill(strategy: string, symbol: string, fee: Amount, notional?: Amount): void;
  /** Current PnL of a strategy on a symbol (quote currency). */
  pnl(strategy: string, symbol: string, realized: Amount, unrealized: Amount): void;
  /** A ticker for `symbol` with exchange time `atMs` was received; its age is computed at scrape time. */
  tickerSeen(symbol: string, atMs: number): void;
  /** The risk gate's trading state. */
  tradingState(state: TradingStateName): void;
  /** A strategy was disabled after throwing or emitting an invalid intent. */
  strategyFailed(strategy: string): void;
}

/** Metrics that go nowhere (backtests, tests). */
export const noopMetrics: Metrics = {
  budget: () => undefined,
  requestDone: () => undefined,
  queueDepth: () => undefined,
  intent: () => undefined,
  ordersByStatus: () => undefined,
  unknownOrders: () => undefined,
  reconcileCorrection: () => undefined,
  reconciled: () => undefined,
  fill: () => undefined,
  pnl: () => undefined,
  tickerSeen: () => undefined,
  tradingState: () => undefined,
  strategyFailed: () => undefined,
};

export interface PromMetrics extends Metrics {
  readonly registry: Registry;
  /** The text exposition format, as served on /metrics. */
  scrape(): Promise<string>;
}

export interface PromMetricsOptions {
  /** Source of "now" for ticker ages. Default: the wall clock. */
  readonly clock?: Clock;
  /** Also export the process metrics (CPU, memory, event loop, GC). Default: true. */
  readonly defaultMetrics?: boolean;
}

const wallClock: Clock = { now: () => Date.now() };

function toNumber(a: Amount): number {
  return typeof a === 'number' ? a : Number(typeof a === 'string' ? a : a.toFixed());
}

export function createPromMetrics(opts: PromMetricsOptions = {}): PromMetrics {
  const clock = opts.clock ?? wallClock;
  const registry = new Registry();
  const registers = [registry];
  if (opts.defaultMetrics !== false)
    collectDefaultMetrics({ register: registry, prefix: 'capibot_process_' });

  const weightUsed = new Gauge({
    name: 'capibot_budget_used',
    help: 'Weight (or requests) used in the current window, per budget pool',
    labelNames: ['pool'],
    registers,
  });
  const weightRemaining = new Gauge({
    name: 'capibot_budget_remaining',
    help: 'Weight (or requests) left in the current window, per budget pool (after the safety margin)',
    labelNames: ['pool'],
    registers,
  });
  const requests = new Counter({
    name: 'capibot_requests_total',
    help: 'Exchange requests by endpoint and outcome (HTTP status or timeout/reset/transport)',
    labelNames: ['endpoint', 'status'],
    registers,
  });
  const rateLimited = new Counter({
    name: 'capibot_rate_limited_total',
    help: 'HTTP 429 answers by endpoint',
    labelNames: ['endpoint'],
    registers,
  });
  const duration = new Histogram({
    name: 'capibot_request_duration_seconds',
    help: 'Exchange request duration by endpoint',
    labelNames: ['endpoint'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const queue = new Gauge({
    name: 'capibot_queue_depth',
    help: 'Requests waiting in the executor queue',
    labelNames: ['queue'],
    registers,
  });
  const intents = new Counter({
    name: 'capibot_intents_total',
    help: 'Strategy intents by final outcome',
    labelNames: ['strategy', 'outcome'],
    registers,
  });
  const orders = new Gauge({
    name: 'capibot_orders',
    help: 'Local orders by status',
    labelNames: ['status'],
    registers,
  });
  const unknown = new Gauge({
    name: 'capibot_orders_unknown',
    help: 'Orders whose request outcome is unknown, awaiting reconciliation',
    registers,
  });
  const corrections = new Counter({
    name: 'capibot_reconcile_corrections_total',
    help: 'Changes reconciliation made to the local picture, by kind',
    labelNames: ['kind'],
    registers,
  });
  const lastReconcile = new Gauge({
    name: 'capibot_last_reconcile_timestamp_seconds',
    help: 'When the last reconciliation pass completed (epoch seconds)',
    registers,
  });
  const fills = new Counter({
    name: 'capibot_fills_total',
    help: 'Fills recorded, by strategy and symbol',
    labelNames: ['strategy', 'symbol'],
    registers,
  });
  const fees = new Gauge({
    name: 'capibot_fees_paid',
    help: 'Net fees paid since start (quote currency; rebates subtract), by strategy and symbol',
    labelNames: ['strategy', 'symbol'],
    registers,
  });
  const volume = new Counter({
    name: 'capibot_fill_notional_total',
    help: 'Filled notional (quote currency), by strategy and symbol',
    labelNames: ['strategy', 'symbol'],
    registers,
  });
  const realized = new Gauge({
    name: 'capibot_pnl_realized',
    help: 'Realized PnL (quote currency), by strategy and symbol',
    labelNames: ['strategy', 'symbol'],
    registers,
  });
  const unrealized = new Gauge({
    name: 'capibot_pnl_unrealized',
    help: 'Unrealized PnL (quote currency), by strategy and symbol',
    labelNames: ['strategy', 'symbol'],
    registers,
  });
  const state = new Gauge({
    name: 'capibot_trading_state',
    help: 'Trading state of the risk gate (1 for the current state)',
    labelNames: ['state'],
    registers,
  });
  const failures = new Counter({
    name: 'capibot_strategy_failures_total',
    help: 'Strategies disabled after a failure',
    labelNames: ['strategy'],
    registers,
  });

  const tickerTimes = new Map<string, number>();
  new Gauge({
    name: 'capibot_ticker_age_seconds',
    help: 'Age of the newest ticker per symbol (exchange time to now); grows while polling is stale',
    labelNames: ['symbol'],
    registers,
    collect() {
      const now = clock.now();
      for (const [symbol, at] of tickerTimes) this.set({ symbol }, Math.max(0, now - at) / 1000);
    },
  });

  return {
    registry,
    scrape: () => registry.metrics(),
    budget: (pool, used, remaining) => {
      weightUsed.set({ pool }, used);
      weightRemaining.set({ pool }, remaining);
    },
    requestDone: (endpoint, status, durationMs) => {
      requests.inc({ endpoint, status: String(status) });
      if (status === 429 || status === '429') rateLimited.inc({ endpoint });
      if (durationMs !== undefined) duration.observe({ endpoint }, durationMs / 1000);
    },
    queueDepth: (depth, name = 'all') => queue.set({ queue: name }, depth),
    intent: (strategy, outcome) => intents.inc({ strategy, outcome }),
    ordersByStatus: (counts) => {
      for (const s of ORDER_STATUSES) orders.set({ status: s }, counts[s] ?? 0);
    },
    unknownOrders: (count) => unknown.set(count),
    reconcileCorrection: (kind, count = 1) => corrections.inc({ kind }, count),
    reconciled: (atMs) => lastReconcile.set(atMs / 1000),
    fill: (strategy, symbol, fee, notional) => {
      fills.inc({ strategy, symbol });
      fees.inc({ strategy, symbol }, toNumber(fee));
      if (notional !== undefined) volume.inc({ strategy, symbol }, Math.abs(toNumber(notional)));
    },
    pnl: (strategy, symbol, r, u) => {
      realized.set({ strategy, symbol }, toNumber(r));
      unrealized.set({ strategy, symbol }, toNumber(u));
    },
    tickerSeen: (symbol, atMs) => {
      const prev = tickerTimes.get(symbol);
      if (prev === undefined || atMs > prev) tickerTimes.set(symbol, atMs);
    },
    tradingState: (current) => {
      for (const s of TRADING_STATES) state.set({ state: s }, s === current ? 1 : 0);
    },
    strategyFailed: (strategy) => failures.inc({ strategy }),
  };
}
