// Ranking sweep rows by one summary metric (pure). Money metrics are decimal strings and compare
// exactly; ratios are numbers; a metric that is null (e.g. no Sharpe ratio) ranks last. Ties keep the
// grid order, so the ranking never depends on which worker finished first.
import { dec } from '../../core/decimal.ts';
import type { Summary } from '../report/index.ts';

export const SWEEP_METRICS = [
  'netPnl',
  'realizedPnl',
  'unrealizedPnl',
  'feesPaid',
  'volume',
  'maxDrawdown',
  'maxDrawdownFraction',
  'winRate',
  'totalReturn',
  'cagr',
  'sharpe',
  'sortino',
  'calmar',
  'profitFactor',
  'expectancy',
  'trades',
  'tradeWinRate',
  'intervalSharpe',
  'intervalSharpeAnnualized',
  'exposure',
  'fills',
  'ordersPlaced',
  'ordersCanceled',
  'ordersRejected',
  'responses429',
] as const;

export type SweepMetric = (typeof SWEEP_METRICS)[number];
export type SortOrder = 'asc' | 'desc';
export type MetricValue = string | number | null;
export type MetricValues = Readonly<Record<SweepMetric, MetricValue>>;

/** Metrics where less is better: ranked ascending unless told otherwise. */
const LOWER_IS_BETTER: ReadonlySet<SweepMetric> = new Set([
  'feesPaid',
  'maxDrawdown',
  'maxDrawdownFraction',
  'ordersRejected',
  'responses429',
]);

export function isSweepMetric(s: string): s is SweepMetric {
  return (SWEEP_METRICS as readonly string[]).includes(s);
}

export function defaultOrder(metric: SweepMetric): SortOrder {
  return LOWER_IS_BETTER.has(metric) ? 'asc' : 'desc';
}

export function metricValues(s: Summary): MetricValues {
  const out = {} as Record<SweepMetric, MetricValue>;
  for (const m of SWEEP_METRICS) out[m] = s[m];
  return out;
}

/** Orders two metric values (null last), then the grid index. */
function compare(a: MetricValue, b: MetricValue, order: SortOrder): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const c = dec(String(a)).cmp(dec(String(b)));
  return order === 'asc' ? c : -c;
}

/** Rows sorted best first, with their 1-based rank. */
export function rankRows<T extends { readonly index: number; readonly metrics: MetricValues }>(
  rows: readonly T[],
  metric: SweepMetric,
  order: SortOrder,
): (T & { readonly rank: number })[] {
  return [...rows]
    .sort((x, y) => compare(x.metrics[metric], y.metrics[metric], order) || x.index - y.index)
    .map((r, i) => ({ ...r, rank: i + 1 }));
}
