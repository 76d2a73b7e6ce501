import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repoModule, v8Facts } from '../helpers/v8-natives.ts';
import {
  append,
  createWindowLog,
  entries,
  entryCount,
  expire,
  fitTime,
  readEntries,
  sumOf,
  type WindowLog,
} from '../../src/core/sliding-window.ts';

const W = 1_000;

/** Naive reference: the weights of entries with now - t < W. */
function naiveSum(list: readonly { t: number; w: number }[], now: number): number {
  return list.filter((e) => now - e.t < W).reduce((s, e) => s + e.w, 0);
}

describe('sliding window log', () => {
  it('expires an entry exactly windowMs after it was recorded', () => {
    let log = createWindowLog(W, 1);
    log = append(log, 100, [5]);
    expect(sumOf(expire(log, 1_099), 0)).toBe(5);
    expect(sumOf(expire(log, 1_100), 0)).toBe(0);
  });

  it('gives the exact earliest fit time', () => {
    let log = createWindowLog(W, 1);
    log = append(log, 0, [4]);
    log = append(log, 300, [4]);
    log = append(log, 600, [2]);
    expect(fitTime(log, 700, 0, 0, 10)).toBe(700);
    expect(fitTime(log, 700, 0, 1, 10)).toBe(1_000); // the entry at 0 must expire
    expect(fitTime(log, 700, 0, 5, 10)).toBe(1_300); // ...and the one at 300
    expect(fitTime(log, 700, 0, 11, 10)).toBe(Number.POSITIVE_INFINITY);
  });

  it('is persistent: older values read as before, appending to them forks (copy-on-write)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 9 }), fc.nat()), {
          maxLength: 200,
        }),
        (ops) => {
          // Each version keeps its own naive list; each op appends to a randomly chosen earlier version.
          const versions: { log: WindowLog; list: { t: number; w: number }[]; now: number }[] = [
            { log: createWindowLog(W, 1), list: [], now: 0 },
          ];
          for (const [dt, w, pick] of ops) {
            const from = versions[pick % versions.length]!;
            const now = from.now + dt;
            const log = append(expire(from.log, now), now, [w]);
            versions.push({ log, list: [...from.list, { t: now, w }], now });
          }
          for (const v of versions) {
            expect(sumOf(expire(v.log, v.now), 0)).toBe(naiveSum(v.list, v.now));
            for (let probe = 0; probe < 3; probe++) {
              const cost = probe * 4;
              const limit = 20;
              const at = fitTime(v.log, v.now, 0, cost, limit);
              // At `at` it fits; one ms earlier it did not (unless it fit already at `now`).
              expect(naiveSum(v.list, at) + cost).toBeLessThanOrEqual(limit);
              if (at > v.now) expect(naiveSum(v.list, at - 1) + cost).toBeGreaterThan(limit);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps its memory bounded under long linear use (compaction)', () => {
    let log = createWindowLog(W, 2);
    for (let t = 0; t < 100_000; t += 3) log = append(expire(log, t), t, [1, 2]);
    expect(entryCount(log)).toBeLessThanOrEqual(334);
    expect(log.backing.times.length).toBeLessThan(2_000);
    expect(sumOf(log, 1)).toBe(2 * entryCount(log));
    expect(entries(log).every((e) => e.weights[0] === 1 && e.weights[1] === 2)).toBe(true);
  });

  it('reads the live entries into columns as `entries` lists them, after any expiry and compaction', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 700 }), fc.nat(9), fc.nat(9)), { maxLength: 400 }),
        fc.nat(2),
        (ops, read) => {
          let log = createWindowLog(W, 2);
          let now = 0;
          for (const [dt, a, b] of ops) {
            now += dt;
            log = append(expire(log, now), now, [a, b]);
          }
          const times: number[] = [-1];
          const columns = [[-1], [-1]].slice(0, read);
          readEntries(expire(log, now), times, columns);
          const listed = entries(expire(log, now));
          // Appended after what the arrays held, one column per dimension asked for.
          expect(times).toEqual([-1, ...listed.map((e) => e.t)]);
          columns.forEach((c, d) => expect(c).toEqual([-1, ...listed.map((e) => e.weights[d])]));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses time going backwards and negative weights', () => {
    const log = append(createWindowLog(W, 1), 10, [1]);
    expect(() => append(log, 9, [1])).toThrow(RangeError);
    expect(() => append(log, 11, [-1])).toThrow(RangeError);
  });
});

describe('the backing store keeps one hidden class (V8)', () => {
  it('a new log’s arrays and a compacted one’s are of the same kinds, compacted by optimized code too', () => {
    // Optimized window code that met one kind is thrown away when the other arrives (core/object-lists.ts).
    const facts = v8Facts(`
      const sw = await import(${repoModule('src/core/sliding-window.ts')});
      const same = (a, b) => %HaveSameMap(a, b);
      const kinds = (fresh, compacted) =>
        compacted !== fresh &&
        same(fresh.times, compacted.times) &&
        same(fresh.cums, compacted.cums) &&
        same(fresh.cums[0], compacted.cums[0]) &&
        same(fresh.base, compacted.base);
      const fill = (log, from) => {
        for (let at = from; at < from + 2000; at++) log = sw.append(sw.expire(log, at), at, [1, 2]);
        return log;
      };
      const fresh = sw.createWindowLog(10, 2).backing;
      const log = fill(sw.createWindowLog(10, 2), 1_700_000_000_000);
      const byInterpreter = kinds(fresh, log.backing);
      %PrepareFunctionForOptimization(sw.append);
      sw.append(log, 1_700_000_002_000, [1, 2]);
      %OptimizeFunctionOnNextCall(sw.append);
      const optimized = fill(log, 1_700_000_003_000);
      console.log(JSON.stringify({ byInterpreter, byOptimizedCode: kinds(fresh, optimized.backing) }));`);
    expect(facts).toEqual({ byInterpreter: true, byOptimizedCode: true });
  });
});
