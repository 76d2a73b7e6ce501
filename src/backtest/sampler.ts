// Bounded, deterministic sampling of a run's equity and prices (virtual time only).
//
// A sample is taken at the first poll at or after each `intervalMs` step; the last poll of the run is
// always sampled. Memory stays flat however long the recording: when `maxPoints` samples are held,
// every other one is dropped (the first is kept) and the interval doubles, so a run 4× longer holds
// about as many samples, each covering more time. The same polls always give the same samples.
import { InvariantViolation } from '../core/errors.ts';

export class Sampler<T> {
  readonly #max: number;
  #interval: number;
  #next = Number.NEGATIVE_INFINITY;
  #times: number[] = [];
  #items: T[] = [];

  constructor(intervalMs: number, maxPoints: number) {
    if (!(intervalMs > 0) || !Number.isFinite(intervalMs))
      throw new InvariantViolation(`sample interval must be positive, got ${intervalMs}`);
    if (!Number.isSafeInteger(maxPoints) || maxPoints < 4)
      throw new InvariantViolation(`maxPoints must be an integer ≥ 4, got ${maxPoints}`);
    this.#interval = intervalMs;
    this.#max = maxPoints;
  }

  /** The current interval (doubles each time the samples are thinned). */
  get intervalMs(): number {
    return this.#interval;
  }

  /** True when a sample at `t` is due (so the caller builds it only then). */
  due(t: number): boolean {
    return t >= this.#next;
  }

  /** Records a sample at `t` (non-decreasing); a second sample at the same `t` replaces the first. */
  add(t: number, item: T): void {
    const n = this.#times.length;
    const lastT = this.#times[n - 1];
    if (lastT !== undefined && t < lastT)
      throw new InvariantViolation(`sample time goes backwards (${t} < ${lastT})`);
    if (lastT === t) {
      this.#items[n - 1] = item;
      return;
    }
    this.#times.push(t);
    this.#items.push(item);
    // Next due on the interval grid anchored at the first sample.
    const first = this.#times[0] ?? t;
    this.#next = first + (Math.floor((t - first) / this.#interval) + 1) * this.#interval;
    while (this.#times.length > this.#max) this.#thin();
  }

  /** Samples in time order. */
  samples(): readonly { readonly t: number; readonly item: T }[] {
    return this.#times.map((t, i) => ({ t, item: this.#items[i] as T }));
  }

  get size(): number {
    return this.#times.length;
  }

  /** Keeps one sample per slot of the doubled grid (the first in each), and always the newest. */
  #thin(): void {
    this.#interval *= 2;
    const first = this.#times[0] ?? 0;
    const times: number[] = [];
    const items: T[] = [];
    let slot = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < this.#times.length; i++) {
      const t = this.#times[i] as number;
      const s = Math.floor((t - first) / this.#interval);
      if (s === slot && i < this.#times.length - 1) continue;
      slot = s;
      times.push(t);
      items.push(this.#items[i] as T);
    }
    this.#times = times;
    this.#items = items;
    const last = times[times.length - 1] ?? first;
    this.#next = first + (Math.floor((last - first) / this.#interval) + 1) * this.#interval;
  }
}
