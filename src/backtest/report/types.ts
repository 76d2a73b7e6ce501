// What a finished backtest hands to the report writers: the run's recorded facts, nothing derived.
// Every figure in report.json, fills.csv and report.html is computed from a RunRecord alone (pure),
// so the same record always gives byte-identical files. No wall-clock value belongs in here.
import type { Dec } from '../../core/decimal.ts';
import type { Order } from '../../core/orders.ts';
import type { StoredFill } from '../../store/port.ts';
import type { OrderCounts } from './order-counts.ts';

/** One strategy instance of the run, as configured. */
export interface RunStrategy {
  readonly id: string;
  /** The strategy file as named in the config. */
  readonly file: string;
  /** Parameters as given (plain JSON-like values; Dec and bigint are written as decimal strings). */
  readonly params: Readonly<Record<string, unknown>>;
}

export interface RunInfo {
  readonly strategies: readonly RunStrategy[];
  /** The recording's file name, as given on the command line or in the config. */
  readonly data: string;
  /** Receive time (epoch ms) of the first and last ticker snapshot replayed. */
  readonly firstTickTime: number;
  readonly lastTickTime: number;
  /** Number of ticker snapshots (recording lines) processed. */
  readonly tickers: number;
  /**
   * The symbols the strategies trade (sorted). Optional: without it the report uses the symbols that
   * have fills, else every symbol with prices.
   */
  readonly symbols?: readonly string[];
}

/** Account equity at virtual time `t` (sampled by the driver; non-decreasing `t`). */
export interface EquitySample {
  readonly t: number;
  /** Wallet balance + unrealized PnL, in quote currency. */
  readonly equity: Dec;
  /** Realized PnL so far. */
  readonly realized: Dec;
  /** Unrealized PnL of the open positions at `t`, marked to the last price. */
  readonly unrealized: Dec;
}

/** A last-price sample of one symbol (downsampled by the driver; non-decreasing `t`). */
export interface PricePoint {
  readonly t: number;
  readonly last: Dec;
}

/** A strategy instance the engine disabled during the run (it threw, or returned an invalid intent). */
export interface DisabledStrategy {
  readonly strategy: string;
  /** Virtual time (epoch ms) it was disabled at; it made no decision after that. */
  readonly at: number;
  readonly reason: string;
}

export interface RunRecord {
  readonly run: RunInfo;
  /**
   * The run's order records (one per client_oid), in their final state: every order, or, when
   * `orderCounts` is given, only those the report reads one by one (the orders with a fill and those
   * still open at the end), so a long backtest does not hand every order to the report.
   */
  readonly orders: readonly Order[];
  /** Counts over every order of the run; without it they are counted from `orders`. */
  readonly orderCounts?: OrderCounts;
  /** Every fill, as stored. */
  readonly fills: readonly StoredFill[];
  readonly equity: readonly EquitySample[];
  /** Per symbol (e.g. `cmt_btcusdt`). */
  readonly prices: Readonly<Record<string, readonly PricePoint[]>>;
  /** Requests sent, by endpoint id (ENDPOINTS keys). */
  readonly requestsByEndpoint: Readonly<Record<string, number>>;
  /** Total weight charged over the run, per budget. */
  readonly weightUsed: { readonly ip: number; readonly uid: number };
  /** Rejected placements, by reason (risk-gate reason or venue code). */
  readonly rejectionsByReason: Readonly<Record<string, number>>;
  /** HTTP 429 answers met during the run. */
  readonly responses429: number;
  /** Strategies disabled during the run, in the order it happened. */
  readonly strategiesDisabled: readonly DisabledStrategy[];
  /**
   * Account equity before the first poll (paper.startingBalance). Optional: without it the report
   * derives it as the last equity sample minus the run's net PnL.
   */
  readonly startingBalance?: Dec;
  /** Price tick per symbol (instrument tickSize). Optional: without it, the most decimals seen. */
  readonly tickSizes?: Readonly<Record<string, Dec>>;
  /**
   * First and last `last` price per symbol over the replayed polls (exact, not sampled). Optional:
   * without it the first and last sampled price of `prices` are used.
   */
  readonly priceRanges?: Readonly<Record<string, { readonly first: Dec; readonly last: Dec }>>;
}

/**
 * A run's record without its orders and fills: what the report reads besides the fills (all of it
 * bounded: equity and price samples are thinned by the driver). A long backtest hands its fills to
 * the report as a stream instead (./report-rows.ts).
 */
export type RunFacts = Omit<RunRecord, 'orders' | 'fills' | 'orderCounts'>;
