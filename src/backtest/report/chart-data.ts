// The data the HTML page draws, derived from the RunRecord: per-symbol last-price lines with fill
// markers, the equity curve with the buy-and-hold curve of the same starting balance, and the
// underwater curve (equity ÷ its running peak − 1, in percent). Floats are fine here (charts only);
// times are whole seconds, as the charting library expects.
import { decToNumber, type Dec } from '../../core/decimal.ts';
import type { OrderSide } from '../../core/orders.ts';
import { collapseEqualTimes, downsampleMinMax, type Series } from './downsample.ts';
import { isBuy, type ReportFill } from './fills.ts';
import { tickDecimals } from './format.ts';
import { checkTimeOrder, priceRange, runSymbols, type Summary } from './summary.ts';
import type { RunFacts, RunRecord } from './types.ts';

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

/** How many of a symbol's `n` fills get a marker, and which: pickEvenly's choice, one index at a time. */
export class MarkerPicks {
  readonly shown: number;
  readonly #n: number;
  readonly #max: number;
  #k = 0;

  constructor(n: number, max: number) {
    this.#n = n;
    this.#max = max;
    this.shown = n <= max ? n : max <= 1 ? Math.max(0, max) : max;
  }

  /** Whether the `i`-th fill (0-based, called for every i in order) gets a marker. */
  picks(i: number): boolean {
    if (this.#k >= this.shown) return false;
    const n = this.#n;
    const max = this.#max;
    const next = n <= max || max <= 1 ? this.#k : Math.round((this.#k * (n - 1)) / (max - 1));
    if (i !== next) return false;
    this.#k++;
    return true;
  }
}

interface SymbolPart {
  readonly symbol: string;
  readonly precision: number;
  readonly line: Series;
  readonly fills: number;
  readonly picks: MarkerPicks;
  readonly labelled: boolean;
  readonly markers: ChartMarker[];
  seen: number;
}

/**
 * The chart data built as the fills pass, twice, in the report's order: `countFill` with every fill,
 * then `markFill` with every fill again (markers are picked evenly, so a symbol's count comes first),
 * then `finish`. What it keeps is bounded by the chart sizes, except the fill prices of a symbol that
 * has no recorded prices (its line is drawn through them): two numbers per such fill.
 */
export class ChartBuilder {
  readonly #facts: RunFacts;
  readonly #maxPoints: number;
  readonly #maxMarkers: number;
  readonly #maxLabelled: number;
  readonly #counts = new Map<string, number>();
  readonly #fillPrices = new Map<string, { t: number; last: Dec }[]>();
  #parts: Map<string, SymbolPart> | undefined;

  constructor(facts: RunFacts, opts: ChartOptions = {}) {
    this.#facts = facts;
    this.#maxPoints = opts.maxChartPoints ?? 4000;
    this.#maxMarkers = opts.maxMarkersPerSymbol ?? 500;
    this.#maxLabelled = opts.maxLabelledMarkers ?? 50;
  }

  #points(symbol: string): readonly { readonly t: number; readonly last: Dec }[] {
    const prices = this.#facts.prices;
    return Object.hasOwn(prices, symbol) ? (prices[symbol] ?? []) : [];
  }

  /** The first pass: every fill, in the report's order. */
  countFill(f: ReportFill): void {
    this.#counts.set(f.symbol, (this.#counts.get(f.symbol) ?? 0) + 1);
    if (this.#points(f.symbol).length > 0) return;
    // A symbol traded without recorded prices is drawn through its fill prices.
    let list = this.#fillPrices.get(f.symbol);
    if (list === undefined) this.#fillPrices.set(f.symbol, (list = []));
    list.push({ t: f.createdTime, last: f.price });
  }

  /** Each symbol's line and axis precision, once every fill was counted. */
  #layout(): Map<string, SymbolPart> {
    if (this.#parts !== undefined) return this.#parts;
    const record = this.#facts;
    const symbols = [...new Set([...Object.keys(record.prices), ...this.#counts.keys()])].sort();
    const parts = new Map<string, SymbolPart>();
    for (const symbol of symbols) {
      const points = this.#points(symbol);
      checkTimeOrder(points, `prices of ${symbol}`);
      const source = points.length > 0 ? points : (this.#fillPrices.get(symbol) ?? []);
      const tick =
        record.tickSizes !== undefined && Object.hasOwn(record.tickSizes, symbol)
          ? record.tickSizes[symbol]
          : undefined;
      let precision = 0;
      if (tick !== undefined) precision = tickDecimals(tick);
      else for (const p of source) precision = Math.max(precision, decimalsOf(p.last));
      const line = downsampleMinMax(
        collapseEqualTimes({
          t: source.map((p) => toSeconds(p.t)),
          v: source.map((p) => decToNumber(p.last)),
        }),
        this.#maxPoints,
      );
      const fills = this.#counts.get(symbol) ?? 0;
      const picks = new MarkerPicks(fills, this.#maxMarkers);
      parts.set(symbol, {
        symbol,
        precision: Math.min(precision, 10),
        line,
        fills,
        picks,
        labelled: picks.shown <= this.#maxLabelled,
        markers: [],
        seen: 0,
      });
    }
    this.#fillPrices.clear();
    return (this.#parts = parts);
  }

  /** Decimals of `symbol`'s price axis (after the first pass); undefined for a symbol not charted. */
  precisionOf(symbol: string): number | undefined {
    return this.#layout().get(symbol)?.precision;
  }

  /** The second pass: every fill again, in the same order. */
  markFill(f: ReportFill): void {
    const part = this.#layout().get(f.symbol);
    if (part === undefined || !part.picks.picks(part.seen++)) return;
    part.markers.push({
      t: part.line.t[nearest(part.line.t, toSeconds(f.createdTime))]!,
      price: decToNumber(f.price),
      buy: isBuy(f.side),
      text: part.labelled
        ? `${f.triggerPrice !== undefined ? 'plan ' : ''}${SIDE_CODE[f.side]} ${f.size.toFixed()}`
        : '',
      ...(f.triggerPrice !== undefined ? { plan: true as const } : {}),
    });
  }

  /** Everything the page draws; `symbols`: the run's symbols (runSymbolsOf), for buy and hold. */
  finish(summary: Summary, symbols: readonly string[]): ChartData {
    const record = this.#facts;
    let sourcePoints = 0;
    const charts = [...this.#layout().values()].map((p): SymbolChart => {
      sourcePoints += this.#points(p.symbol).length;
      return { symbol: p.symbol, precision: p.precision, line: p.line, markers: p.markers, fills: p.fills };
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
    const bh = buyAndHoldCurve(record, symbols, summary);
    sourcePoints += bh.t.length;
    const maxPoints = this.#maxPoints;
    return {
      symbols: charts,
      equity: downsampleMinMax(collapseEqualTimes({ t, v: eq }), maxPoints),
      buyAndHold: downsampleMinMax(collapseEqualTimes(bh), maxPoints),
      drawdown: downsampleMinMax(collapseEqualTimes({ t, v: dd }), maxPoints),
      sourcePoints,
    };
  }
}

/** Everything the page draws; deterministic. */
export function buildChartData(
  record: RunRecord,
  fills: readonly ReportFill[],
  summary: Summary,
  opts: ChartOptions = {},
): ChartData {
  const b = new ChartBuilder(record, opts);
  for (const f of fills) b.countFill(f);
  for (const f of fills) b.markFill(f);
  return b.finish(summary, runSymbols(record, fills));
}

/**
 * Buy and hold of the starting balance, equal-weighted over the run's symbols, at each equity sample:
 * start × mean(price(t) ÷ first price). A symbol's price at t is its last sampled price at or before t
 * (its first price before its first sample).
 */
function buyAndHoldCurve(record: RunFacts, symbols: readonly string[], summary: Summary): Series {
  if (summary.startingBalance === null) return { t: [], v: [] };
  const start = Number(summary.startingBalance);
  const legs: { points: readonly { t: number; last: Dec }[]; first: number; i: number }[] = [];
  for (const symbol of symbols) {
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
