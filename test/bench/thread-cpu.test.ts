// The replay bench's main-thread figures: the thread's own CPU from /proc (Linux), and what the bench
// makes of it (bench/replay.ts mainThreadFigures).
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mainThreadFigures, type ChildResult } from '../../bench/replay.ts';
import { threadCpuMs } from '../../bench/thread-cpu.ts';

const child = (o: Partial<ChildResult>): ChildResult => ({
  polls: 1000,
  orders: 0,
  fills: 0,
  equitySamples: 0,
  wallMs: 0,
  cpuMs: 0,
  maxRssBytes: 0,
  ...o,
});

describe('threadCpuMs', () => {
  it.runIf(existsSync('/proc/thread-self/stat'))(
    'counts the calling thread’s CPU: it grows with work, and never by more than the process’s',
    () => {
      const before = threadCpuMs();
      expect(before).toBeTypeOf('number');
      const process0 = process.cpuUsage();
      // Work until the thread's own count has moved by 50 ms (10 ms ticks), however busy the host.
      const deadline = performance.now() + 10_000;
      let after = before as number;
      let x = 0;
      while (after - (before as number) < 50 && performance.now() < deadline) {
        for (let i = 0; i < 100_000; i++) x += Math.sqrt(x + i);
        after = threadCpuMs() as number;
      }
      const processMs = (() => {
        const u = process.cpuUsage(process0);
        return (u.user + u.system) / 1000;
      })();
      expect(x).toBeGreaterThan(0);
      expect(after - (before as number)).toBeGreaterThanOrEqual(50);
      // The thread is part of the process: its count cannot pass the process's (a tick of slack for
      // each of user and system time, which /proc counts in whole ticks).
      expect(after - (before as number)).toBeLessThanOrEqual(processMs + 20);
    },
  );
});

describe('mainThreadFigures', () => {
  it('gives the 1× share and the marginal main-thread cost per order', () => {
    const f = mainThreadFigures(
      child({ cpuMs: 4000, mainThreadCpuMs: 1500, orders: 3000 }),
      child({ cpuMs: 7000, mainThreadCpuMs: 4000, orders: 13000 }),
      child({ cpuMs: 700, mainThreadCpuMs: 300 }),
      child({ cpuMs: 1400, mainThreadCpuMs: 800 }),
    );
    expect(f.mainThreadShare).toBe(0.375);
    // ((4000 − 1500) − (800 − 300)) ms ÷ 10,000 orders = 200 µs.
    expect(f.engineMicrosPerOrderMarginalMainThread).toBe(200);
  });

  it('gives nothing when a child could not tell its main thread’s CPU', () => {
    const withIt = child({ cpuMs: 100, mainThreadCpuMs: 50 });
    expect(mainThreadFigures(withIt, withIt, withIt, child({ cpuMs: 100 }))).toEqual({});
  });
});
