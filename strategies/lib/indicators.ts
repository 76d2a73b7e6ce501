// Indicators in floats, like every peer (Jesse, Freqtrade, NautilusTrader's indicators): signals are
// JavaScript numbers, fed with a ticker's number fields (`t.price`, `t.bid`, `t.ask`). They never
// reach the wire as they are: a price computed from an indicator goes through `ctx.roundPrice` (or
// straight into `ctx.place`), which snaps it to the tick exactly. Money (sizes, PnL, positions) stays
// exact `Dec`.

/** Exponential moving average with alpha = 2 / (period + 1), seeded with the first value. */
export class Ema {
  readonly period: number;
  readonly #alpha: number;
  #value: number | undefined;
  #count = 0;

  constructor(period: number) {
    if (!Number.isInteger(period) || period < 1)
      throw new RangeError(`EMA period must be a positive integer, got ${period}`);
    this.period = period;
    this.#alpha = 2 / (period + 1);
  }

  /** Folds one value in and returns the new average. */
  update(x: number): number {
    const prev = this.#value;
    const next = prev === undefined ? x : prev + (x - prev) * this.#alpha;
    this.#value = next;
    this.#count++;
    return next;
  }

  get value(): number | undefined {
    return this.#value;
  }

  /** True once `period` values were folded in (before that the average leans on its seed). */
  get ready(): boolean {
    return this.#count >= this.period;
  }
}

/**
 * Mean and population standard deviation of the last `size` values, in O(1) per value. The window is
 * a ring; the deviation is computed from the values' distances to the window's first value (shifted
 * data), which keeps the sums small so that prices near 100 000 lose no precision to cancellation.
 */
export class RollingStats {
  readonly size: number;
  readonly #ring: number[] = [];
  #next = 0;
  #shift = 0;
  #sum = 0;
  #sumSq = 0;

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 2)
      throw new RangeError(`window size must be an integer ≥ 2, got ${size}`);
    this.size = size;
  }

  push(x: number): void {
    if (this.#ring.length === 0) this.#shift = x;
    const d = x - this.#shift;
    if (this.#ring.length < this.size) {
      this.#ring.push(x);
    } else {
      const out = (this.#ring[this.#next] as number) - this.#shift;
      this.#ring[this.#next] = x;
      this.#next = (this.#next + 1) % this.size;
      this.#sum -= out;
      this.#sumSq -= out * out;
    }
    this.#sum += d;
    this.#sumSq += d * d;
    // Once per turn of the ring, the sums are recomputed around the current window (amortized O(1)),
    // so rounding errors do not pile up over millions of updates and the shift follows the prices.
    if (this.#next === 0 && this.#ring.length === this.size) this.#rebase();
  }

  #rebase(): void {
    this.#shift = this.#ring[0] as number;
    this.#sum = 0;
    this.#sumSq = 0;
    for (const x of this.#ring) {
      const d = x - this.#shift;
      this.#sum += d;
      this.#sumSq += d * d;
    }
  }

  get full(): boolean {
    return this.#ring.length === this.size;
  }

  mean(): number {
    const n = this.#ring.length;
    return n === 0 ? 0 : this.#shift + this.#sum / n;
  }

  stdDev(): number {
    const n = this.#ring.length;
    if (n === 0) return 0;
    const m = this.#sum / n;
    // Rounding can leave a hair below zero for a flat window.
    return Math.sqrt(Math.max(0, this.#sumSq / n - m * m));
  }
}
