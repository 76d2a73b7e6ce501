// Clock modes of the HTTP simulator: how recorded market data reaches the matching core.
// - lockstep: the first tickers request serves the first snapshot, every later one advances to the
//   next; market time moves only then, so a test over HTTP is deterministic. At the end of the data
//   the last snapshot keeps being served.
// - realtime: recorded time runs on the wall clock × speed (recordStart + elapsed × speed); before
//   every request the core catches up with every snapshot that fell due, in order.
// The in-process mode needs no driver: the engine calls SimPort.applyPoll with its virtual clock.
import type { Clock } from '../../core/clock.ts';
import type { RecordedPoll } from '../../core/market.ts';
import type { MatchingCore } from './matching.ts';

/** Polls one at a time; `undefined` at the end. */
export interface PollSource {
  next(): Promise<RecordedPoll | undefined>;
  close(): Promise<void>;
}

export function pollSourceFrom(polls: AsyncIterable<RecordedPoll> | Iterable<RecordedPoll>): PollSource {
  const it: AsyncIterator<RecordedPoll> | Iterator<RecordedPoll> =
    Symbol.asyncIterator in polls ? polls[Symbol.asyncIterator]() : polls[Symbol.iterator]();
  let done = false;
  return {
    async next() {
      if (done) return undefined;
      const r = await it.next();
      if (r.done) {
        done = true;
        return undefined;
      }
      return r.value;
    },
    async close() {
      if (done) return;
      done = true;
      await it.return?.();
    },
  };
}

export type ClockMode = 'lockstep' | 'realtime';

export interface MarketState {
  readonly mode: ClockMode;
  /** Market time of the core (epoch ms of the recording). */
  readonly time: number;
  readonly snapshotsApplied: number;
  readonly ended: boolean;
}

export interface MarketDriver {
  /** Brings the core up to date before a request (realtime catches up; lockstep does nothing). */
  sync(): Promise<void>;
  /** A tickers request is being answered (lockstep advances). */
  onTickers(): Promise<void>;
  state(): MarketState;
  close(): Promise<void>;
}

export class LockstepMarket implements MarketDriver {
  readonly #core: MatchingCore;
  readonly #source: PollSource;
  #served = false;
  #applied = 0;
  #ended = false;

  private constructor(core: MatchingCore, source: PollSource) {
    this.#core = core;
    this.#source = source;
  }

  /** Installs the first snapshot (orders placed before the first tickers request meet it). */
  static async start(core: MatchingCore, source: PollSource): Promise<LockstepMarket> {
    const m = new LockstepMarket(core, source);
    await m.#advance();
    return m;
  }

  async #advance(): Promise<void> {
    if (this.#ended) return;
    const p = await this.#source.next();
    if (!p) {
      this.#ended = true;
      return;
    }
    this.#core.applyTickers(p.t, p.tickers);
    this.#applied++;
  }

  async sync(): Promise<void> {}

  async onTickers(): Promise<void> {
    if (this.#served) await this.#advance();
    this.#served = true;
  }

  state(): MarketState {
    return { mode: 'lockstep', time: this.#core.now, snapshotsApplied: this.#applied, ended: this.#ended };
  }

  close(): Promise<void> {
    return this.#source.close();
  }
}

export class RealtimeMarket implements MarketDriver {
  readonly #core: MatchingCore;
  readonly #source: PollSource;
  readonly #wall: Clock;
  readonly #speed: number;
  #recordStart = 0;
  #wallStart = 0;
  #pending: RecordedPoll | undefined;
  #applied = 0;

  private constructor(core: MatchingCore, source: PollSource, wall: Clock, speed: number) {
    this.#core = core;
    this.#source = source;
    this.#wall = wall;
    this.#speed = speed;
  }

  static async start(
    core: MatchingCore,
    source: PollSource,
    wall: Clock,
    speed = 1,
  ): Promise<RealtimeMarket> {
    if (!(speed > 0) || !Number.isFinite(speed))
      throw new RangeError(`speed must be a positive number, got ${speed}`);
    const m = new RealtimeMarket(core, source, wall, speed);
    const first = await source.next();
    m.#wallStart = wall.now();
    if (first) {
      m.#recordStart = first.t;
      core.applyTickers(first.t, first.tickers);
      m.#applied++;
      m.#pending = await source.next();
    }
    return m;
  }

  /** Recorded time now: recordStart + wall elapsed × speed. */
  marketNow(): number {
    return this.#recordStart + Math.floor((this.#wall.now() - this.#wallStart) * this.#speed);
  }

  async sync(): Promise<void> {
    const now = this.marketNow();
    while (this.#pending && this.#pending.t <= now) {
      this.#core.applyTickers(this.#pending.t, this.#pending.tickers);
      this.#applied++;
      this.#pending = await this.#source.next();
    }
    this.#core.advanceTo(now);
  }

  onTickers(): Promise<void> {
    return this.sync();
  }

  state(): MarketState {
    return {
      mode: 'realtime',
      time: this.#core.now,
      snapshotsApplied: this.#applied,
      ended: this.#pending === undefined,
    };
  }

  close(): Promise<void> {
    return this.#source.close();
  }
}
