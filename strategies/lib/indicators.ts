// Indicators in exact decimals. Every value is rounded to a fixed number of places after each
// update, so results are deterministic, independent of history length, and big.js numbers do not
// grow without bound. Indicator values are signals, not prices: round them with ctx.roundPrice
// before they go into an order.
import { dec, ZERO, type Dec } from '../../src/strategy/index.ts';

/** Decimal places kept by indicator values. */
export const INDICATOR_PLACES = 12;

/** Exponential moving average with alpha = 2 / (period + 1), seeded with the first value. */
export class Ema {
  readonly period: number;
  readonly #alpha: Dec;
  #value: Dec | undefined;
  #count = 0;

  constructor(period: number) {
    if (!Number.isInteger(period) || period < 1)
      throw new RangeError(`EMA period must be a positive integer, got ${period}`);
    this.period = period;
    this.#alpha = dec(2).div(period + 1);
  }

  /** Folds one value in and returns the new average. */
  update(x: Dec): Dec {
    const prev = this.#value;
    this.#value =
      prev === undefined ? x : prev.plus(x.minus(prev).times(this.#alpha)).round(INDICATOR_PLACES);
    this.#count++;
    return this.#value;
  }

  get value(): Dec | undefined {
    return this.#value;
  }

  /** True once `period` values were folded in (before that the average leans on its seed). */
  get ready(): boolean {
    return this.#count >= this.period;
  }
}

/** Mean and population standard deviation of the last `size` values. */
export class RollingStats {
  readonly size: number;
  readonly #values: Dec[] = [];
  #sum: Dec = ZERO;

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 2)
      throw new RangeError(`window size must be an integer ≥ 2, got ${size}`);
    this.size = size;
  }

  push(x: Dec): void {
    this.#values.push(x);
    this.#sum = this.#sum.plus(x);
    if (this.#values.length > this.size) {
      const out = this.#values.shift();
      if (out !== undefined) this.#sum = this.#sum.minus(out);
    }
  }

  get full(): boolean {
    return this.#values.length === this.size;
  }

  mean(): Dec {
    if (this.#values.length === 0) return ZERO;
    return this.#sum.div(this.#values.length).round(INDICATOR_PLACES);
  }

  stdDev(): Dec {
    const n = this.#values.length;
    if (n === 0) return ZERO;
    const m = this.#sum.div(n);
    let sq = ZERO;
    for (const v of this.#values) {
      const d = v.minus(m);
      sq = sq.plus(d.times(d));
    }
    return sq.div(n).sqrt().round(INDICATOR_PLACES);
  }
}
