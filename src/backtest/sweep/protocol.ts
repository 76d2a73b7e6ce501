// Messages between the sweep's main thread and its workers (structured-clone safe: plain data only).
import type { Summary } from '../report/index.ts';

/** One backtest to run: exactly what `capibot backtest --config FILE [--data REC]` would run. */
export interface SweepJob {
  readonly kind: 'job';
  /** Grid index (1-based) of the combination. */
  readonly index: number;
  readonly configPath: string;
  readonly data?: string;
}

export type SweepReply =
  | { readonly kind: 'done'; readonly index: number; readonly summary: Summary; readonly polls: number }
  | { readonly kind: 'failed'; readonly index: number; readonly message: string; readonly exitCode: 1 | 2 };
