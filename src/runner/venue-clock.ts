// Clocks of the venue's time, for the runner's engine and reconciliation.
//
// Order and fill times at the exchange, and the query windows that reach for them (history
// `createDate`, fills `startTime`), are in the VENUE's time. Live that is the wall clock (give or take
// a little skew, which the windows' margins cover). A `capibot sim` replaying a recording runs in the
// recording's time instead (recorded start + elapsed × speed), possibly years away from the wall clock:
// windows computed from the wall clock would then miss every order. So against a sim the runner keeps
// time by the exchange's own ticker timestamps.
//
// `TickerTimeClock`: the latest ticker timestamp seen plus the wall time elapsed since it was seen.
// It never runs backwards, and it UNDER-estimates the venue's time (ticker timestamps lag the venue's
// clock; a replay faster than real time runs ahead of it between polls), which is the safe direction:
// windows start earlier (more rows, never fewer), and an order's local creation time is never later
// than the exchange's, so a history window computed from it always includes the order.
import type { Clock } from '../core/clock.ts';
import type { Ticker } from '../core/market.ts';

export class TickerTimeClock implements Clock {
  readonly #wall: Clock;
  #anchor: { readonly venue: number; readonly wall: number } | undefined;
  #last = Number.NEGATIVE_INFINITY;

  constructor(wall: Clock) {
    this.#wall = wall;
  }

  /** True once a ticker timestamp has been seen. */
  get synced(): boolean {
    return this.#anchor !== undefined;
  }

  /**
   * Takes the newest exchange timestamp of a tickers poll. Only a timestamp that advances moves the
   * anchor: stale tickers (a replay that ended) leave the clock running on the wall clock.
   */
  observe(tickers: readonly Ticker[]): void {
    let newest = Number.NEGATIVE_INFINITY;
    for (const t of tickers) if (t.timestamp > newest) newest = t.timestamp;
    if (!Number.isFinite(newest)) return;
    if (this.#anchor !== undefined && newest <= this.#anchor.venue) return;
    this.#anchor = { venue: newest, wall: this.#wall.now() };
  }

  now(): number {
    const wall = this.#wall.now();
    const t = this.#anchor === undefined ? wall : this.#anchor.venue + (wall - this.#anchor.wall);
    if (t > this.#last) this.#last = t;
    return this.#last;
  }
}

/** A recording replayed in real time × speed: recorded start + wall elapsed × speed. */
export class ReplayClock implements Clock {
  readonly #wall: Clock;
  readonly #recordStart: number;
  readonly #wallStart: number;
  readonly #speed: number;

  constructor(wall: Clock, recordStart: number, speed: number) {
    this.#wall = wall;
    this.#recordStart = recordStart;
    this.#wallStart = wall.now();
    this.#speed = speed;
  }

  now(): number {
    return this.#recordStart + Math.floor((this.#wall.now() - this.#wallStart) * this.#speed);
  }
}

/**
 * Live: the exchange's time, as the wall clock plus the offset the client measures from
 * `market/time` for its signatures. Orders are stamped with it and history windows computed from
 * it, so the windows' small skew margin covers only the measurement's error, not a server clock
 * that drifted. Never runs backwards (a re-measured offset can be a few ms smaller).
 */
export class OffsetClock implements Clock {
  readonly #wall: Clock;
  readonly #offsetMs: () => number;
  #last = Number.NEGATIVE_INFINITY;

  constructor(wall: Clock, offsetMs: () => number) {
    this.#wall = wall;
    this.#offsetMs = offsetMs;
  }

  now(): number {
    const t = this.#wall.now() + this.#offsetMs();
    if (t > this.#last) this.#last = t;
    return this.#last;
  }
}

export const wallClock: Clock = { now: () => Date.now() };
