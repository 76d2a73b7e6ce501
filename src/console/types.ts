// The console's data: one JSON snapshot (GET /api/snapshot, and every SSE `snapshot` event), the same
// shape for a running bot and a finished backtest, so one page shows both. Money is always a decimal
// string; only the equity chart's y-values are numbers (a chart draws floats anyway).
import type { TradingState } from '../risk/trading-state.ts';
import type { StatusOrder } from '../ops/status-report.ts';

export type ConsoleMode = 'paper' | 'live' | 'backtest';
export type ConsoleRole = 'control' | 'read';

export interface Pool {
  readonly used: number;
  readonly limit: number;
  readonly remaining: number;
}

export interface ConsolePosition {
  readonly symbol: string;
  readonly leg: 'long' | 'short';
  readonly qty: string;
  readonly avgEntry: string | null;
  readonly realizedPnl: string;
  readonly fees: string;
}

export interface ConsoleStrategy {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly state: 'running' | 'paused' | 'disabled' | 'finished';
  readonly disabledReason?: string;
  /** Placements dropped while it was paused (this run). */
  readonly droppedWhilePaused: number;
  readonly positions: readonly ConsolePosition[];
  /** Realized PnL and fees of its fills (decimal strings). */
  readonly realizedPnl: string;
  readonly fees: string;
}

/** An open order or resting plan order, as `capibot status` shows it. */
export type ConsoleOrder = StatusOrder;

export interface ConsoleFill {
  readonly tradeId: string;
  readonly at: number;
  readonly strategy: string | null;
  readonly symbol: string;
  readonly side: string;
  readonly size: string;
  readonly price: string;
  readonly fee: string;
  readonly realizedPnl: string;
}

export interface ConsoleEventLine {
  readonly at: number;
  readonly level: 'info' | 'warn' | 'error';
  readonly kind: string;
  readonly text: string;
}

export interface ConsoleSnapshot {
  readonly mode: ConsoleMode;
  readonly title: string;
  /** When the snapshot was taken (epoch ms; a backtest's last tick time). */
  readonly at: number;
  readonly tradingState: TradingState;
  readonly strategies: readonly ConsoleStrategy[];
  readonly pnl: {
    readonly realized: string;
    readonly unrealized: string;
    readonly fees: string;
    readonly net: string;
  };
  readonly openOrders: readonly ConsoleOrder[];
  /** Newest first, at most a hundred. */
  readonly fills: readonly ConsoleFill[];
  /** Account equity (or net PnL when no starting equity is known) over time, oldest first. */
  readonly equity: readonly { readonly t: number; readonly v: number }[];
  readonly equityLabel: string;
  readonly budget: {
    readonly ip: Pool;
    readonly uid: Pool;
    readonly orderRate: Pool;
    readonly backoffMs: number;
  } | null;
  readonly reconcile: {
    /** Venue-clock time of the last round that read order history (null: never). */
    readonly lastReconciledAt: number | null;
    /** Wall-clock time of the last full round this run (null: none yet). */
    readonly lastRoundAt: number | null;
    readonly corrections: number;
    readonly warnings: number;
  };
  /** Newest first, at most two hundred. */
  readonly events: readonly ConsoleEventLine[];
}

/** What the console can do to a running bot (absent for a finished backtest). */
export interface ConsoleControl {
  /** False: no such strategy. */
  pause(strategy: string): boolean;
  resume(strategy: string): boolean;
  /** True when the kill switch was engaged. */
  kill(reason: string): boolean;
}

/** Where the console's data comes from. */
export interface ConsoleSource {
  readonly mode: ConsoleMode;
  snapshot(): ConsoleSnapshot;
  /** `fn` is called after anything that changes the snapshot; returns the unsubscribe. */
  onChange(fn: () => void): () => void;
  readonly control?: ConsoleControl;
  /** Strategy ids the control routes accept. */
  readonly strategyIds: readonly string[];
}
