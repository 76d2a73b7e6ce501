// The recorded ticker source for backtests: a recording's polls, in order, each delivered after the
// injected virtual clock was advanced to its `t`. Pull-based: the next poll is read from the file only
// when the consumer asks for it (or, for the Observable form, when the consumer has finished with
// the previous one), so replay runs as fast as the consumer and never buffers the file.
import { Observable, type VirtualTimeScheduler } from 'rxjs';
import { InvariantViolation } from '../core/errors.ts';
import type { RecordedPoll } from '../core/market.ts';

/** What replay needs of a virtual clock: move to `t` (running whatever is due up to then). */
export interface ReplayClock {
  advanceTo(epochMs: number): void | Promise<void>;
}

/** A minimal virtual clock: `now()` is the time of the last poll replayed. */
export class ManualClock implements ReplayClock {
  private t: number;
  constructor(start = 0) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  advanceTo(epochMs: number): void {
    if (epochMs < this.t)
      throw new InvariantViolation(`virtual clock cannot go back from ${this.t} to ${epochMs}`);
    this.t = epochMs;
  }
}

/**
 * Drives an RxJS VirtualTimeScheduler: every action due at or before `t` runs, then the scheduler's
 * time is `t`. (Its frames are epoch milliseconds.)
 */
export function virtualSchedulerClock(scheduler: VirtualTimeScheduler): ReplayClock {
  return {
    advanceTo(epochMs: number): void {
      if (epochMs < scheduler.frame) {
        throw new InvariantViolation(
          `virtual scheduler cannot go back from ${scheduler.frame} to ${epochMs}`,
        );
      }
      scheduler.maxFrames = epochMs;
      scheduler.flush();
      scheduler.frame = epochMs;
    },
  };
}

/**
 * The polls of `source`, each after `clock.advanceTo(poll.t)`. One poll is read per `next()`.
 * `return()` (breaking out of a for-await) closes the underlying recording.
 */
export function replayPolls(
  source: AsyncIterable<RecordedPoll>,
  clock: ReplayClock,
): AsyncIterableIterator<RecordedPoll> {
  const it = source[Symbol.asyncIterator]();
  let lastT = Number.NEGATIVE_INFINITY;
  const self: AsyncIterableIterator<RecordedPoll> = {
    async next(): Promise<IteratorResult<RecordedPoll>> {
      const r = await it.next();
      if (r.done === true) return { done: true, value: undefined };
      const poll = r.value;
      if (poll.t < lastT) throw new InvariantViolation(`replay: t goes backwards (${poll.t} after ${lastT})`);
      lastT = poll.t;
      await clock.advanceTo(poll.t);
      return { done: false, value: poll };
    },
    async return(): Promise<IteratorResult<RecordedPoll>> {
      await it.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return self;
    },
  };
  return self;
}

export interface ReplayObservableOptions {
  /**
   * Awaited after each emission before the next poll is read: the consumer's back-pressure hook
   * (e.g. "the engine has drained its queue"). Without it, the next poll is read as soon as the
   * synchronous handling of the previous one returns.
   */
  readonly ready?: () => Promise<void>;
}

/** An Observable form of `replayPolls`; unsubscribing stops reading and closes the recording. */
export function replay$(
  source: AsyncIterable<RecordedPoll>,
  clock: ReplayClock,
  opts: ReplayObservableOptions = {},
): Observable<RecordedPoll> {
  return new Observable<RecordedPoll>((subscriber) => {
    const it = replayPolls(source, clock);
    let stopped = false;
    const run = async (): Promise<void> => {
      for (;;) {
        const r = await it.next();
        if (stopped) return;
        if (r.done === true) {
          subscriber.complete();
          return;
        }
        subscriber.next(r.value);
        if (opts.ready) await opts.ready();
        if (stopped) return;
      }
    };
    run().catch((e: unknown) => {
      if (!stopped) subscriber.error(e);
    });
    return () => {
      stopped = true;
      void it.return?.().catch(() => undefined);
    };
  });
}
