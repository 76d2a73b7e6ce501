import { join } from 'node:path';
import { VirtualTimeScheduler, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { InvariantViolation } from '../../src/core/errors.ts';
import type { RecordedPoll } from '../../src/core/market.ts';
import { readRecording } from '../../src/market/recording/reader.ts';
import { openRecordingWriter } from '../../src/market/recording/writer.ts';
import { ManualClock, replay$, replayPolls, virtualSchedulerClock } from '../../src/market/replay.ts';
import { samplePolls, tempDir } from './helpers.ts';

/** A source that records how many polls were pulled from it and whether it was closed. */
function counted(polls: readonly RecordedPoll[]): {
  source: AsyncIterable<RecordedPoll>;
  pulled: () => number;
  closed: () => boolean;
} {
  let pulled = 0;
  let closed = false;
  return {
    source: {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          Promise.resolve(
            pulled < polls.length
              ? { done: false, value: polls[pulled++]! }
              : { done: true, value: undefined },
          ),
        return: () => {
          closed = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    },
    pulled: () => pulled,
    closed: () => closed,
  };
}

describe('replay source', () => {
  it('replays a recording in order, the virtual clock at each poll’s t when it is delivered', async () => {
    const path = join(tempDir(), 'r.ndjson.gz');
    const polls = samplePolls(30);
    const w = await openRecordingWriter(path);
    for (const p of polls) w.write(p);
    await w.close();
    const clock = new ManualClock();
    const seen: [number, number][] = [];
    for await (const p of replayPolls(readRecording(path), clock)) seen.push([p.t, clock.now()]);
    expect(seen).toEqual(polls.map((p) => [p.t, p.t]));
  });

  it('pulls from the source only as the consumer asks (back-pressure), and closes it on break', async () => {
    const c = counted(samplePolls(100));
    const it = replayPolls(c.source, new ManualClock());
    expect(c.pulled()).toBe(0);
    await it.next();
    await it.next();
    expect(c.pulled()).toBe(2);
    for await (const _ of it) break;
    expect(c.pulled()).toBe(3);
    expect(c.closed()).toBe(true);
  });

  it('runs the virtual scheduler’s due actions up to each poll before delivering it', async () => {
    const scheduler = new VirtualTimeScheduler();
    const t0 = 1_700_000_000_000;
    scheduler.frame = t0;
    const fired: number[] = [];
    timer(1500, scheduler).subscribe(() => fired.push(scheduler.now()));
    timer(10_000, scheduler).subscribe(() => fired.push(scheduler.now()));
    const seen: [number, number[]][] = [];
    for await (const p of replayPolls(counted(samplePolls(4, t0)).source, virtualSchedulerClock(scheduler))) {
      seen.push([p.t - t0, fired.map((f) => f - t0)]);
      expect(scheduler.now()).toBe(p.t);
    }
    // Polls at 0, 1000, 2000, 3000 ms; the 1500 ms timer has run before the 2000 ms poll.
    expect(seen).toEqual([
      [0, []],
      [1000, []],
      [2000, [1500]],
      [3000, [1500]],
    ]);
  });

  it('refuses time going backwards', async () => {
    const clock = new ManualClock(10);
    expect(() => clock.advanceTo(5)).toThrow(InvariantViolation);
    const bad = counted([
      { t: 5, tickers: [] },
      { t: 4, tickers: [] },
    ]);
    const it = replayPolls(bad.source, new ManualClock());
    await it.next();
    await expect(it.next()).rejects.toThrow(InvariantViolation);
  });

  it('as an Observable: waits for the consumer’s ready hook before reading the next poll', async () => {
    const c = counted(samplePolls(5));
    const pulledAtEmit: number[] = [];
    let release: (() => void) | undefined;
    const done = new Promise<void>((resolve, reject) => {
      replay$(c.source, new ManualClock(), {
        ready: () =>
          new Promise<void>((r) => {
            release = r;
          }),
      }).subscribe({ next: () => pulledAtEmit.push(c.pulled()), complete: resolve, error: reject });
    });
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 1));
      // Nothing more is read until the consumer says it is ready.
      expect(c.pulled()).toBe(Math.min(i + 1, 5));
      release?.();
    }
    await done;
    expect(pulledAtEmit).toEqual([1, 2, 3, 4, 5]);
  });

  it('as an Observable: unsubscribing stops reading and closes the source', async () => {
    const c = counted(samplePolls(1000));
    const got: number[] = [];
    const sub = replay$(c.source, new ManualClock()).subscribe((p) => {
      got.push(p.t);
      if (got.length === 3) sub.unsubscribe();
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toHaveLength(3);
    expect(c.pulled()).toBeLessThanOrEqual(4);
    expect(c.closed()).toBe(true);
  });
});
