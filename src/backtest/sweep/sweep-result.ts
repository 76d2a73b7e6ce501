// The result of a sweep (sweep.json), one row per combination: its own module, so that run-sweep.ts
// (which builds it) and sweep-csv.ts (which renders it) both import it without importing each other.
import type { Combination } from './grid.ts';
import type { MetricValues, SortOrder, SweepMetric } from './rank.ts';

export interface SweepRow {
  /**
   * 1-based rank by the metric; null for a run that failed, and for one in which a strategy was
   * disabled (its metrics are kept, but a run whose strategy crashed is no candidate).
   */
  readonly rank: number | null;
  /** 1-based position in the grid's fixed order. */
  readonly index: number;
  readonly params: Combination;
  /** The summary metrics (null for a failed run). */
  readonly metrics: MetricValues | null;
  /** Why the run failed, or which strategy was disabled and why (one line). */
  readonly error?: string;
  /** The config file of this run, and the command that reproduces it on its own. */
  readonly config: string;
  readonly command: string;
}

export interface SweepResult {
  readonly config: string;
  readonly grid: string;
  readonly data: string;
  readonly strategy: string;
  readonly metric: SweepMetric;
  readonly order: SortOrder;
  readonly combinations: number;
  readonly rows: readonly SweepRow[];
}
