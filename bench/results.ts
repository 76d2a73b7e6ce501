// The shape of bench/results.json and the figures BENCHMARKS.md shows, each with its target.
import { z } from 'zod';
import type { ExecutorBenchResult } from './executor.ts';
import type { MachineInfo } from './machine.ts';
import type { MoneyBench } from './money.ts';
import type { OrdersBenchResult } from './orders.ts';
import type { ParquetBenchResult } from './parquet.ts';
import type { ReaderBenchResult } from './reader.ts';
import type { SharedBudgetBench } from './shared-budget.ts';
import type { SweepQueueBench } from './sweep-queue.ts';
import type { SymbolsBenchResult } from './symbols.ts';

/** The replay benchmark's headline figures (bench/replay.ts), checked when its result comes in. */
export const replaySummarySchema = z.looseObject({
  tickersPerSecond: z.number().finite(),
  ratioToBareParse: z.number().finite(),
  peakRssRatio4x: z.number().finite(),
});
export type ReplaySummary = z.infer<typeof replaySummarySchema>;

export const SECTIONS = [
  'replay',
  'orders',
  'reader',
  'executor',
  'money',
  'symbols',
  'sweepQueue',
  'sharedBudget',
  'parquet',
] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchResults {
  /** ISO date-time the run started. */
  readonly date: string;
  readonly machine: MachineInfo;
  /** null when the benchmark could not run: `errors` says why. */
  readonly replay: ReplaySummary | null;
  readonly reader: ReaderBenchResult | null;
  readonly executor: ExecutorBenchResult | null;
  readonly money: MoneyBench | null;
  readonly symbols: SymbolsBenchResult | null;
  readonly sweepQueue: SweepQueueBench | null;
  /** Optional: results files written before the section existed lack it. */
  readonly sharedBudget?: SharedBudgetBench | null;
  /** Optional: results files written before the section existed lack it. */
  readonly parquet?: ParquetBenchResult | null;
  /** Optional, as `parquet`. */
  readonly orders?: OrdersBenchResult | null;
  readonly errors: Partial<Record<Section, string>>;
  /** Wall time of each part, seconds. */
  readonly durations: Partial<Record<Section, number>>;
}

export type Target =
  | { readonly op: '>='; readonly value: number }
  | { readonly op: '<='; readonly value: number }
  | { readonly op: '='; readonly value: number };

export interface Figure {
  readonly section: Section;
  /** Field of the section in results.json. */
  readonly key: string;
  readonly label: string;
  readonly unit?: string;
  /** Absent: reported for information. */
  readonly target?: Target;
  /** Said beside the target (e.g. an aim beyond the bar). */
  readonly note?: string;
  /**
   * Fields of the section (the figure's own, or those it is a ratio of) that are costs measured as
   * one CPU time less another (a replay less the floor under it, a trading run less its quiet twin).
   * A cost of zero or less says the part taken away measured slower than the whole (the host's speed
   * moved between the two): the figure is then shown without a verdict, never as a pass.
   */
  readonly differenceOf?: readonly string[];
}

export const FIGURES: readonly Figure[] = [
  {
    section: 'replay',
    key: 'tickersPerSecond',
    label: 'Replay throughput (1-minute bars, sma-cross)',
    unit: 'tickers/s',
  },
  {
    section: 'replay',
    key: 'marginalRatioToBareParse',
    label: 'Replay ÷ bare `JSON.parse`, marginal: 1-minute bars (month), sma-cross',
    target: { op: '>=', value: 0.5 },
    note: 'aim 0.8',
  },
  {
    section: 'replay',
    key: 'ticksMarginalRatioToBareParse',
    label: 'Replay ÷ bare `JSON.parse`, marginal: 1-second tickers, sma-cross',
    target: { op: '>=', value: 0.5 },
    note: 'aim 0.8',
  },
  {
    section: 'replay',
    key: 'exampleMarginalRatioToBareParse',
    label:
      'Replay ÷ bare `JSON.parse`, marginal: 1-minute bars, the bundled example (`config/month.yaml`: ema-cross, stops on the exchange)',
    target: { op: '>=', value: 0.5 },
    note: 'aim 0.8',
  },
  {
    section: 'replay',
    key: 'ticksExampleMarginalRatioToBareParse',
    label:
      'Replay ÷ bare `JSON.parse`, marginal: 1-second tickers, the bundled example (`config/example.yaml`)',
    target: { op: '>=', value: 0.5 },
    note: 'aim 0.8',
  },
  {
    section: 'replay',
    key: 'quietRatioToBareParse',
    label: 'Replay ÷ bare `JSON.parse`, marginal: 1-minute bars, a strategy that never trades',
  },
  {
    section: 'replay',
    key: 'engineMicrosPerQuietPoll',
    label: 'Engine cost per quiet poll (beyond parse + tickers), 1-minute bars',
    unit: 'µs',
    target: { op: '<=', value: 2 },
    differenceOf: ['engineMicrosPerQuietPoll'],
  },
  {
    section: 'replay',
    key: 'gzipInflateMicrosPerLine',
    label:
      'Of which gzip decompression per line (a worker thread: process CPU; the bare parse reads lines already in memory), 1-minute bars',
    unit: 'µs',
  },
  {
    section: 'replay',
    key: 'ticksEngineMicrosPerQuietPoll',
    label: 'Engine cost per quiet poll, 1-second tickers',
    unit: 'µs',
    target: { op: '<=', value: 2 },
    differenceOf: ['ticksEngineMicrosPerQuietPoll'],
  },
  {
    section: 'replay',
    key: 'engineMicrosPerOrder',
    label: 'Engine cost per order (placed, filled, reconciled), 1-minute bars',
    unit: 'µs',
    target: { op: '<=', value: 50 },
    differenceOf: ['engineMicrosPerOrder'],
  },
  {
    section: 'replay',
    key: 'engineMicrosPerOrderMarginal',
    label: 'The same, marginal: between the 1× and the 4× month (start-up and warm-up cancelled)',
    unit: 'µs',
    target: { op: '<=', value: 50 },
    differenceOf: ['engineMicrosPerOrderMarginal'],
  },
  {
    section: 'replay',
    key: 'engineMicrosPerOrderMarginalMainThread',
    label: "The same, the main thread alone (without V8's compiler and GC threads)",
    unit: 'µs',
    differenceOf: ['engineMicrosPerOrderMarginalMainThread'],
  },
  {
    section: 'replay',
    key: 'mainThreadShare',
    label:
      "Main thread's share of the 1× month's replay CPU, sma-cross (the rest: V8's optimizing compiler and GC threads)",
  },
  {
    section: 'replay',
    key: 'ratioToBareParse',
    label: 'Replay ÷ bare `JSON.parse`, whole run (start-up included)',
  },
  {
    section: 'replay',
    key: 'ceilingRatio',
    label: 'Ceiling: parse + tickers + strategy alone ÷ bare',
  },
  {
    section: 'replay',
    key: 'tickerCeilingRatio',
    label: 'Ceiling for a strategy costing nothing',
  },
  {
    section: 'replay',
    key: 'engineMicrosPerPoll',
    label: 'Engine cost per poll, whole run (replay − floor)',
    unit: 'µs',
  },
  {
    section: 'replay',
    key: 'peakRssRatio4x',
    label: 'Peak RSS, 4× recording ÷ 1×',
    target: { op: '<=', value: 1.1 },
  },
  {
    section: 'orders',
    key: 'marginalMicrosPerOrder',
    label:
      'Engine cost per order, marginal: FTX month, 32 ema-cross instances against 1, (CPU₃₂ − CPU₁) ÷ (orders₃₂ − orders₁)',
    unit: 'µs',
    target: { op: '<=', value: 50 },
    differenceOf: ['marginalMicrosPerOrder'],
  },
  {
    section: 'orders',
    key: 'marginalMicrosPerOrderMiddle',
    label: 'The same, 8 instances against 1',
    unit: 'µs',
  },
  {
    section: 'orders',
    key: 'perOrderGrowth',
    label:
      'CPU per order from 8 to 32 ema-cross instances (≈ 29 k → 98 k orders) ÷ from 1 to 8 (≈ 5.9 k → 29 k), each run less the same instances never trading',
    target: { op: '<=', value: 1.2 },
    differenceOf: ['microsPerOrderBeyondQuietLow', 'microsPerOrderBeyondQuietHigh'],
  },
  {
    section: 'orders',
    key: 'peakRssRatio',
    label: 'Peak RSS, FTX month with 32 ema-cross instances ÷ 1',
    target: { op: '<=', value: 1.5 },
  },
  {
    section: 'orders',
    key: 'peakRssRatioWithReport',
    label: 'Peak RSS with the report written (98 k fills for 32 instances), 32 ÷ 1',
    target: { op: '<=', value: 1.5 },
  },
  { section: 'orders', key: 'ordersLargest', label: 'Orders in the FTX month, 32 ema-cross instances' },
  {
    section: 'orders',
    key: 'mmOrders',
    label: 'Orders in the market-maker month (5 IOC quotes every poll, `bench/market-maker.ts`)',
    target: { op: '>=', value: 200_000 },
  },
  {
    section: 'orders',
    key: 'mmPeakRssRatio',
    label: 'Peak RSS, market-maker month ÷ the same month with 1 % of the orders',
    target: { op: '<=', value: 1.2 },
  },
  {
    section: 'orders',
    key: 'mmMarginalMicrosPerOrder',
    label: 'Engine cost per order, marginal: market-maker month against its 1 % copy',
    unit: 'µs',
  },
  {
    section: 'orders',
    key: 'mmSecondHalfRatio',
    label:
      'CPU per poll, second half of the market-maker month ÷ first half (same quoting, twice the orders behind)',
  },
  {
    section: 'symbols',
    key: 'engineRatio',
    label: 'Engine cost per poll, 200 symbols ÷ 5 (5 watched; synthetic recordings)',
    target: { op: '<=', value: 2 },
    differenceOf: ['engineMicrosPerPollFew', 'engineMicrosPerPollMany'],
  },
  {
    section: 'symbols',
    key: 'engineMicrosPerPollFew',
    label: 'Engine cost per poll (beyond reading it), 5 symbols',
    unit: 'µs',
  },
  {
    section: 'symbols',
    key: 'engineMicrosPerPollMany',
    label: 'Engine cost per poll (beyond reading it), 200 symbols, 5 watched',
    unit: 'µs',
  },
  {
    section: 'symbols',
    key: 'replayRatio',
    label: 'Whole replay per poll, 200 symbols ÷ 5 (reading 40× the bytes included)',
  },
  {
    section: 'symbols',
    key: 'engineRatioTextInMemory',
    label:
      "Control: engine cost per poll, 200 ÷ 5, each recording's text in memory first (reading is parsing only)",
    differenceOf: ['engineMicrosPerPollFewTextInMemory', 'engineMicrosPerPollManyTextInMemory'],
  },
  {
    section: 'symbols',
    key: 'engineMicrosPerPollFewTextInMemory',
    label: 'The same, 5 symbols',
    unit: 'µs',
  },
  {
    section: 'symbols',
    key: 'engineMicrosPerPollManyTextInMemory',
    label: 'The same, 200 symbols, 5 watched',
    unit: 'µs',
  },
  {
    section: 'sweepQueue',
    key: 'speedup',
    label: 'Distributed sweep (4 month backtests), 1 worker ÷ 2 workers, wall time',
    target: { op: '>=', value: 1.6 },
    note: 'on 2 cores',
  },
  {
    section: 'sweepQueue',
    key: 'localSpeedup',
    label: 'Control: the same grid as a local sweep, 1 thread ÷ 2 threads',
  },
  {
    section: 'sweepQueue',
    key: 'processSpeedup',
    label:
      'Control: two `capibot backtest` processes of the month, one after the other ÷ side by side (no sweep)',
  },
  {
    section: 'sharedBudget',
    key: 'utilisation',
    label:
      'Shared budget used by three `capibot run` processes through Redis under a flood (venue window ÷ shared budget, full windows)',
    target: { op: '>=', value: 0.95 },
  },
  {
    section: 'sharedBudget',
    key: 'responses429',
    label: '429 answers, the three sharing',
    target: { op: '=', value: 0 },
  },
  {
    section: 'sharedBudget',
    key: 'controlResponses429',
    label: 'Control: 429 answers, the same three with a budget each',
    target: { op: '>=', value: 1 },
  },
  {
    section: 'sharedBudget',
    key: 'peakWindowFill',
    label: "Fullest venue window ÷ shared budget, the three sharing (the venue's limit: 1.111)",
  },
  {
    section: 'reader',
    key: 'ratioToBareParse',
    label: 'Recording reader ÷ bare `JSON.parse`',
    target: { op: '>=', value: 0.9 },
  },
  {
    section: 'parquet',
    key: 'replayRatioToBareParse',
    label:
      'Replay from Parquet (month of minute bars, `config/month.yaml`) ÷ bare `JSON.parse` of the NDJSON',
    target: { op: '>=', value: 1 },
    note: 'aim 1.5',
  },
  {
    section: 'parquet',
    key: 'ticksReplayRatioToBareParse',
    label: 'The same, the bundled ticker recording (repeated)',
    target: { op: '>=', value: 1 },
  },
  {
    section: 'parquet',
    key: 'marginalReplayRatioToBareParse',
    label:
      'The same, marginal: between the month and 4× the month (start-up and warm-up cancelled, as #17 measures)',
  },
  {
    section: 'parquet',
    key: 'ndjsonMarginalReplayRatioToBareParse',
    label: 'The same replays from the NDJSON, marginal',
  },
  {
    section: 'parquet',
    key: 'idleMarginalReplayRatioToBareParse',
    label: 'Replay from Parquet, a strategy that never trades, marginal',
  },
  {
    section: 'parquet',
    key: 'readingRatioToBareParse',
    label: 'Reading Parquet → engine input (no engine) ÷ bare `JSON.parse`',
    target: { op: '>=', value: 5 },
  },
  {
    section: 'parquet',
    key: 'sizeRatio',
    label: 'File size, Parquet ÷ NDJSON.gz (month of minute bars)',
  },
  {
    section: 'parquet',
    key: 'peakRssRatio4x',
    label: 'Peak RSS of the replay from Parquet, 4× ÷ 1×',
    target: { op: '<=', value: 1.1 },
  },
  {
    section: 'executor',
    key: 'budgetUtilisation',
    label: 'Weight budget used under a flood',
    target: { op: '>=', value: 0.95 },
  },
  {
    section: 'executor',
    key: 'responses429',
    label: '429 answers under the flood',
    target: { op: '=', value: 0 },
  },
  {
    section: 'executor',
    key: 'meanOrdersPerBatch',
    label: 'Orders per batchOrders call',
    target: { op: '>=', value: 19 },
  },
  { section: 'executor', key: 'tickToRequestP50Ms', label: 'Tick-to-request p50', unit: 'ms' },
  {
    section: 'executor',
    key: 'tickToRequestP99Ms',
    label: 'Tick-to-request p99',
    unit: 'ms',
    target: { op: '<=', value: 1 },
  },
  {
    section: 'executor',
    key: 'tickToRequestP99NotPreemptedMs',
    label: 'Tick-to-request p99, ticks not preempted',
    unit: 'ms',
  },
  {
    section: 'money',
    key: 'fixedNanosPerRound',
    label:
      "Money arithmetic of one order's worth (parse, notional, fee, PnL, compare, tick), fixed-point `Dec`",
    unit: 'ns',
  },
  {
    section: 'money',
    key: 'speedup',
    label: 'The same with big.js ÷ fixed-point `Dec` (identical results)',
    unit: '×',
  },
];

export function meets(value: number, t: Target): boolean {
  switch (t.op) {
    case '>=':
      return value >= t.value;
    case '<=':
      return value <= t.value;
    case '=':
      return value === t.value;
  }
}

/**
 * True when a figure's verdict cannot be given: one of the costs it is measured from (`differenceOf`)
 * came out at zero or less.
 */
export function differenceFailed(results: BenchResults, f: Figure): boolean {
  return (f.differenceOf ?? []).some((key) => {
    const part = valueOf(results, { ...f, key });
    return part !== undefined && !(part > 0);
  });
}

/** The value of a figure in a results object, or undefined when its section was not measured. */
export function valueOf(results: BenchResults, f: Figure): number | undefined {
  const section: unknown = results[f.section];
  if (section === null || typeof section !== 'object') return undefined;
  const v: unknown = (section as Record<string, unknown>)[f.key];
  return typeof v === 'number' ? v : undefined;
}
