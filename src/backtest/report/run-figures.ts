// Figures of a run computed one value at a time or from its bounded parts (equity samples, sampled
// prices): the drawdown, the interval Sharpe ratio, the exposure (fed one fill at a time, in time
// order, so a streamed report computes it as the fills pass: ./report-writer.ts), and what the run is
// about (its symbols, price ranges, starting balance). Pure.
import { ZERO, decToNumber, type Dec } from '../../core/decimal.ts';
import { InvariantViolation } from '../../core/errors.ts';
import { isOpening } from '../../core/orders.ts';
import type { ReportFill } from './fills.ts';
import type { PriceRange } from './metrics.ts';
import type { RunFacts } from './types.ts';

const MAX_SHARPE_POINTS = 10_000_000;

export interface Drawdown {
  /** Largest peak-to-trough fall, ≥ 0. */
  readonly amount: Dec;
  /** Largest fall ÷ its peak; null when a fall happened from a peak ≤ 0. */
  readonly fraction: Dec | null;
}

/** Max drawdown of an equity series (samples in time order). */
export function maxDrawdown(equity: readonly Dec[]): Drawdown {
  let amount = ZERO;
  let fraction: Dec | null = ZERO;
  let peak: Dec | undefined;
  let trough: Dec | undefined;
  for (const e of equity) {
    if (peak === undefined || e.gt(peak)) {
      peak = e;
      trough = e;
      continue;
    }
    // Under one peak, both the fall and the fall ÷ peak are largest at the lowest point: only a new
    // trough can improve either, so the division runs rarely.
    if (trough !== undefined && e.gte(trough)) continue;
    trough = e;
    const fall = peak.minus(e);
    if (fall.gt(amount)) amount = fall;
    if (peak.lte(0)) fraction = null;
    else if (fraction !== null) {
      const f = fall.div(peak);
      if (f.gt(fraction)) fraction = f;
    }
  }
  return { amount, fraction };
}

/** Sharpe ratio of fixed-interval equity returns (see the definitions above); null when undefined. */
export function sharpeRatio(samples: RunFacts['equity'], intervalMs: number): number | null {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined) return null;
  if ((last.t - first.t) / intervalMs > MAX_SHARPE_POINTS) {
    throw new InvariantViolation(
      `sharpe interval ${intervalMs} ms is too fine for a run of ${last.t - first.t} ms`,
    );
  }
  const grid: number[] = [];
  let i = 0;
  for (let b = first.t; b <= last.t; b += intervalMs) {
    while (i + 1 < samples.length && samples[i + 1]!.t <= b) i++;
    grid.push(decToNumber(samples[i]!.equity));
  }
  const returns: number[] = [];
  for (let k = 1; k < grid.length; k++) {
    const prev = grid[k - 1]!;
    if (prev <= 0) return null;
    returns.push(grid[k]! / prev - 1);
  }
  if (returns.length < 2) return null;
  let sum = 0;
  for (const r of returns) sum += r;
  const mean = sum / returns.length;
  let sq = 0;
  for (const r of returns) sq += (r - mean) * (r - mean);
  const sd = Math.sqrt(sq / (returns.length - 1));
  if (!(sd > 0)) return null;
  return mean / sd;
}

/**
 * Fraction of [from, to] with any non-zero position (any symbol, either hedge leg), fed the fills in
 * time order.
 */
export class ExposureTracker {
  readonly #held = new Map<string, Dec>();
  #openLegs = 0;
  #openedAt = 0;
  #covered = 0;

  readonly from: number;
  readonly to: number;

  constructor(from: number, to: number) {
    this.from = from;
    this.to = to;
  }

  #clip(t: number): number {
    return Math.min(Math.max(t, this.from), this.to);
  }

  add(f: ReportFill): void {
    const key = `${f.symbol}\u0000${f.side.endsWith('long') ? 'long' : 'short'}`;
    const before = this.#held.get(key) ?? ZERO;
    const after = isOpening(f.side) ? before.plus(f.size) : before.minus(f.size);
    this.#held.set(key, after);
    const wasOpen = !before.eq(0);
    const isOpen = !after.eq(0);
    if (wasOpen === isOpen) return;
    if (isOpen) {
      if (this.#openLegs === 0) this.#openedAt = f.createdTime;
      this.#openLegs++;
    } else {
      this.#openLegs--;
      if (this.#openLegs === 0) this.#covered += this.#clip(f.createdTime) - this.#clip(this.#openedAt);
    }
  }

  /** The fraction so far, a position still open counting to `to`; 0 for an empty interval. */
  value(): Dec {
    if (!(this.to > this.from)) return ZERO;
    const covered = this.#covered + (this.#openLegs > 0 ? this.to - this.#clip(this.#openedAt) : 0);
    return ZERO.plus(covered).div(this.to - this.from);
  }
}

/** Fraction of [from, to] with any non-zero position, from fills in time order. */
export function exposure(fills: readonly ReportFill[], from: number, to: number): Dec {
  const tracker = new ExposureTracker(from, to);
  for (const f of fills) tracker.add(f);
  return tracker.value();
}

/** Throws InvariantViolation when the samples' `t` ever decreases. */
export function checkTimeOrder(samples: readonly { readonly t: number }[], what: string): void {
  for (let k = 1; k < samples.length; k++) {
    if (samples[k]!.t < samples[k - 1]!.t) {
      throw new InvariantViolation(
        `${what}: sample ${k} at t=${samples[k]!.t} is before t=${samples[k - 1]!.t}`,
      );
    }
  }
}

/**
 * The symbols the run is about: run.symbols when the record names them, else those with fills
 * (`traded`), else every symbol with prices (sorted).
 */
export function runSymbolsOf(record: RunFacts, traded: ReadonlySet<string>): string[] {
  if (record.run.symbols !== undefined) return [...new Set(record.run.symbols)].sort();
  const list = traded.size > 0 ? [...traded] : Object.keys(record.prices);
  return list.sort();
}

/** runSymbolsOf with the symbols of `fills`. */
export function runSymbols(record: RunFacts, fills: readonly ReportFill[]): string[] {
  return runSymbolsOf(record, new Set(fills.map((f) => f.symbol)));
}
/** First and last price of `symbol`: record.priceRanges, else its first and last sampled price. */
export function priceRange(record: RunFacts, symbol: string): PriceRange | undefined {
  if (record.priceRanges !== undefined && Object.hasOwn(record.priceRanges, symbol)) {
    return record.priceRanges[symbol];
  }
  const points = Object.hasOwn(record.prices, symbol) ? record.prices[symbol] : undefined;
  const first = points?.[0];
  const last = points?.[points.length - 1];
  return first === undefined || last === undefined ? undefined : { first: first.last, last: last.last };
}

/** The starting balance: record.startingBalance, else the last equity sample minus the net PnL. */
export function startingBalance(record: RunFacts, netPnl: Dec): Dec | null {
  if (record.startingBalance !== undefined) return record.startingBalance;
  const last = record.equity[record.equity.length - 1];
  return last === undefined ? null : last.equity.minus(netPnl);
}
