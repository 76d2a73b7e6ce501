// The data the HTML page draws, derived from the RunRecord: per-symbol last-price lines with fill
// markers, the equity curve with the buy-and-hold curve of the same starting balance, and the
// underwater curve (equity ÷ its running peak − 1, in percent). Floats are fine here (charts only);
// times are whole seconds, as the charting library expects.
import { decToNumber, type Dec } from '../../core/decimal.ts';
import type { OrderSide } from '../../core/orders.ts';
import { collapseEqualTimes, downsampleMinMax, pickEvenly, type Series } from './downsample.ts';
import { isBuy, type ReportFill } from './fills.ts';
import { tickDecimals } from './format.ts';
import { checkTimeOrder, priceRange, runSymbols, type Summary } from './summary.ts';
import type { RunRecord } from './types.ts';

export interface ChartOptions {
  /** Most points drawn per series (default 4000). */
  readonly maxChartPoints?: number;
  /** Most fill markers drawn per symbol (default 500); report.json and fills.csv keep every fill. */
  readonly maxMarkersPerSymbol?: number;
  /** Marker labels (side and size) are shown when a symbol has at most this many markers (default 50). */
  readonly maxLabelledMarkers?: number;
}

export interface ChartMarker {
  /** Seconds; snapped to a point of the symbol's line so the marker always has a bar to sit on. */
  readonly t: number;
  readonly price: number;
  readonly buy: boolean;
  readonly text: string;
  /** Present (true) for a fill of a triggered plan order: drawn apart from the strategy's own fills. */
  readonly plan?: true;
}

export interface SymbolChart {
  readonly symbol: string;
  /** Decimals shown on the price axis. */
  readonly precision: number;
  readonly line: Series;
  readonly markers: readonly ChartMarker[];
  readonly fills: number;
}

export interface ChartData {
  readonly symbols: readonly SymbolChart[];
  readonly equity: Series;
  /** Starting balance × the equal-weighted price relative of the run's symbols; empty without prices. */
  readonly buyAndHold: Series;
  /** Equity ÷ running peak − 1, in percent (≤ 0). */
  readonly drawdown: Series;
  /** Points in all series before downsampling. */
  readonly sourcePoints: number;
}

const SIDE_CODE: Readonly<Record<OrderSide, string>> = {
  open_long: 'OL',
  close_long: 'CL',
  open_short: 'OS',
  close_short: 'CS',
};

const toSeconds = (ms: number): number => Math.floor(ms / 1000);

function decimalsOf(d: Dec): number {
  const s = d.toFixed();
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
}

/** Index of the element of sorted `ts` nearest to `t` (ties go to the earlier one). */
function nearest(ts: readonly number[], t: number): number {
  let lo = 0;
  let hi = ts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && t - ts[lo - 1]! <= ts[lo]! - t) return lo - 1;
  return lo;
}

function symbolChart(
  symbol: string,
  points: readonly { readonly t: number; readonly last: Dec }[],
  fills: readonly ReportFill[],
  maxPoints: number,
  maxMarkers: number,
  maxLabelled: number,
  tick: Dec | undefined,
): SymbolChart {
  // A symbol traded without recorded prices is drawn through its fill prices.
  const source = points.length > 0 ? points : fills.map((f) => ({ t: f.createdTime, last: f.price }));
  let precision = 0;
  if (tick !== undefined) precision = tickDecimals(tick);
  else for (const p of source) precision = Math.max(precision, decimalsOf(p.last));
  const line = downsampleMinMax(
    collapseEqualTimes({ t: source.map((p) => toSeconds(p.t)), v: source.map((p) => decToNumber(p.last)) }),
    maxPoints,
  );
  const shown = pickEvenly(fills, maxMarkers);
  const labelled = shown.length <= maxLabelled;
  const markers = shown.map((f) => ({
    t: line.t[nearest(line.t, toSeconds(f.createdTime))]!,
    price: decToNumber(f.price),
    buy: isBuy(f.side),
    text: labelled
      ? `${f.triggerPrice !== undefined ? 'plan ' : ''}${SIDE_CODE[f.side]} ${f.size.toFixed()}`
      : '',
    ...(f.triggerPrice !== undefined ? { plan: true as const } : {}),
  }));
  return { symbol, precision: Math.min(precision, 10), line, markers, fills: fills.length };
}

/** Everything the page draws; deterministic. */
export function buildChartData(
  record: RunRecord,
  fills: readonly ReportFill[],
  summary: Summary,
  opts: ChartOptions = {},
): ChartData {
  const maxPoints = opts.maxChartPoints ?? 4000;
  const maxMarkers = opts.maxMarkersPerSymbol ?? 500;
  const maxLabelled = opts.maxLabelledMarkers ?? 50;
  const fillsBySymbol = new Map<string, ReportFill[]>();
  for (const f of fills) {
    const list = fillsBySymbol.get(f.symbol);
    if (list === undefined) fillsBySymbol.set(f.symbol, [f]);
    else list.push(f);
  }
  const symbols = [...new Set([...Object.keys(record.prices), ...fillsBySymbol.keys()])].sort();
  let sourcePoints = 0;
  const charts = symbols.map((symbol) => {
    const points = Object.hasOwn(record.prices, symbol) ? (record.prices[symbol] ?? []) : [];
    checkTimeOrder(points, `prices of ${symbol}`);
    sourcePoints += points.length;
    const tick =
      record.tickSizes !== undefined && Object.hasOwn(record.tickSizes, symbol)
        ? record.tickSizes[symbol]
        : undefined;
    return symbolChart(
      symbol,
      points,
      fillsBySymbol.get(symbol) ?? [],
      maxPoints,
      maxMarkers,
      maxLabelled,
      tick,
    );
  });

  const t: number[] = [];
  const eq: number[] = [];
  const dd: number[] = [];
  let peak = -Infinity;
  for (const sample of record.equity) {
    const e = decToNumber(sample.equity);
    if (e > peak) peak = e;
    t.push(toSeconds(sample.t));
    eq.push(e);
    dd.push(peak > 0 ? (e / peak - 1) * 100 : 0);
  }
  sourcePoints += 2 * record.equity.length;
  const bh = buyAndHoldCurve(record, fills, summary);
  sourcePoints += bh.t.length;
  return {
    symbols: charts,
    equity: downsampleMinMax(collapseEqualTimes({ t, v: eq }), maxPoints),
    buyAndHold: downsampleMinMax(collapseEqualTimes(bh), maxPoints),
    drawdown: downsampleMinMax(collapseEqualTimes({ t, v: dd }), maxPoints),
    sourcePoints,
  };
}

/**
 * Buy and hold of the starting balance, equal-weighted over the run's symbols, at each equity sample:
 * start × mean(price(t) ÷ first price). A symbol's price at t is its last sampled price at or before t
 * (its first price before its first sample).
 */
function buyAndHoldCurve(record: RunRecord, fills: readonly ReportFill[], summary: Summary): Series {
  if (summary.startingBalance === null) return { t: [], v: [] };
  const start = Number(summary.startingBalance);
  const legs: { points: readonly { t: number; last: Dec }[]; first: number; i: number }[] = [];
  for (const symbol of runSymbols(record, fills)) {
    const range = priceRange(record, symbol);
    const points = Object.hasOwn(record.prices, symbol) ? (record.prices[symbol] ?? []) : [];
    if (range === undefined || !range.first.gt(0) || points.length === 0) continue;
    legs.push({ points, first: decToNumber(range.first), i: -1 });
  }
  if (legs.length === 0) return { t: [], v: [] };
  const t: number[] = [];
  const v: number[] = [];
  for (const sample of record.equity) {
    let sum = 0;
    for (const leg of legs) {
      while (leg.i + 1 < leg.points.length && leg.points[leg.i + 1]!.t <= sample.t) leg.i++;
      sum += leg.i < 0 ? 1 : decToNumber(leg.points[leg.i]!.last) / leg.first;
    }
    t.push(toSeconds(sample.t));
    v.push((start * sum) / legs.length);
  }
  return { t, v };
}
