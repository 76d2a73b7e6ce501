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
  it.runIf(existsSync('/proc/thread-self/stat'))('counts the calling thread’s CPU, growing with work', () => {
    const before = threadCpuMs();
    expect(before).toBeTypeOf('number');
    const until = performance.now() + 60;
    let x = 0;
    while (performance.now() < until) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    const after = threadCpuMs() as number;
    // 10 ms ticks: 60 ms of spinning shows as at least 30 (a busy host may take the core away).
    expect(after - (before as number)).toBeGreaterThanOrEqual(30);
    expect(after - (before as number)).toBeLessThan(5000);
  });
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
