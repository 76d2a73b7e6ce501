// A persistent rolling-window log of (time, weights) entries: the data structure behind the weight
// budget and the risk gate's orders-per-minute limit.
//
// An entry recorded at time t counts while `now - t < windowMs`; at `t + windowMs` it has expired.
// Each entry stores the running (cumulative) sum of every weight dimension, so the sum over the live
// entries and the earliest time at which a cost would fit are found by binary search: every query is
// O(log n) and an append is amortised O(1).
//
// Immutability: a `WindowLog` value never changes. Values share one append-only backing store; a log
// only reads its own range [start, end). Appending to the newest log of a backing store extends it in
// place (older logs do not see the new entry); appending to an older log, which would overwrite
// entries a newer log sees, copies its live range first (copy-on-write). Dead entries before `start`
// are dropped by an occasional compaction into a fresh backing store.

import { doubleList } from './object-lists.ts';

interface Backing {
  readonly times: number[];
  /** cums[d][i]: sum of dimension d over entries 0..i. */
  readonly cums: number[][];
  /** Sum of each dimension over entries dropped before index 0 (by compaction). */
  readonly base: readonly number[];
}

export interface WindowLog {
  readonly windowMs: number;
  readonly dims: number;
  readonly start: number;
  readonly end: number;
  readonly backing: Backing;
}

/** Dead entries a backing store may keep before an append compacts it (when they outnumber the live ones). */
export const COMPACT_MIN_DEAD = 256;

export function createWindowLog(windowMs: number, dims: number): WindowLog {
  if (!(windowMs > 0) || !Number.isFinite(windowMs))
    throw new RangeError(`windowMs must be > 0, got ${windowMs}`);
  if (!Number.isInteger(dims) || dims < 1)
    throw new RangeError(`dims must be a positive integer, got ${dims}`);
  return Object.freeze({ windowMs, dims, start: 0, end: 0, backing: newBacking(dims, [], () => 0) });
}

function cumAt(b: Backing, d: number, i: number): number {
  return i < 0 ? (b.base[d] ?? 0) : (b.cums[d]?.[i] ?? 0);
}

function timeAt(b: Backing, i: number): number {
  return b.times[i] ?? Number.NaN;
}

/** First index in [lo, hi) whose time is > t, or hi. */
function firstAfter(b: Backing, lo: number, hi: number, t: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timeAt(b, mid) > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Drops the entries that have expired at `now`. */
export function expire(log: WindowLog, now: number): WindowLog {
  const start = firstAfter(log.backing, log.start, log.end, now - log.windowMs);
  if (start === log.start) return log;
  return Object.freeze({ windowMs: log.windowMs, dims: log.dims, start, end: log.end, backing: log.backing });
}

/** Number of live entries (call `expire` first for a figure at a given time). */
export function entryCount(log: WindowLog): number {
  return log.end - log.start;
}

/** Sum of dimension `d` over the live entries. */
export function sumOf(log: WindowLog, d: number): number {
  return cumAt(log.backing, d, log.end - 1) - cumAt(log.backing, d, log.start - 1);
}

/**
 * The log's live entries and its backing store's length, named `<name>` and `<name>Backing`
 * (core/footprint.ts). An append compacts the backing once its dead entries reach COMPACT_MIN_DEAD
 * and outnumber the live ones: it holds at most max(live, COMPACT_MIN_DEAD) dead entries besides.
 */
export function windowFootprint(name: string, log: WindowLog): Record<string, number> {
  return { [name]: log.end - log.start, [`${name}Backing`]: log.backing.times.length };
}

/** Time of the newest entry, or undefined when the log is empty. */
export function newestTime(log: WindowLog): number | undefined {
  return log.end > log.start ? timeAt(log.backing, log.end - 1) : undefined;
}

/**
 * Earliest time ≥ `now` at which adding `cost` to dimension `d` keeps its window sum ≤ `limit`, given
 * only the entries already in the log (expired at `now` first). `Infinity` when `cost > limit`.
 */
export function fitTime(log: WindowLog, now: number, d: number, cost: number, limit: number): number {
  if (cost > limit) return Number.POSITIVE_INFINITY;
  const live = expire(log, now);
  const b = live.backing;
  const before = cumAt(b, d, live.start - 1);
  const excess = cumAt(b, d, live.end - 1) - before + cost - limit;
  if (excess <= 0) return now;
  // Smallest k whose expiry frees at least `excess`: cums are non-decreasing, so binary search.
  let lo = live.start;
  let hi = live.end - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumAt(b, d, mid) - before >= excess) hi = mid;
    else lo = mid + 1;
  }
  return Math.max(now, timeAt(b, lo) + live.windowMs);
}

/**
 * Appends an entry at time `t` (must be ≥ the newest entry's time) with one weight per dimension
 * (each ≥ 0). Returns a new log; `log` itself still reads as before.
 */
export function append(log: WindowLog, t: number, weights: readonly number[]): WindowLog {
  if (weights.length !== log.dims)
    throw new RangeError(`expected ${log.dims} weights, got ${weights.length}`);
  const newest = newestTime(log);
  if (newest !== undefined && t < newest) throw new RangeError(`time went backwards: ${t} < ${newest}`);
  let { backing, start, end } = log;
  const dead = start;
  const shared = end !== backing.times.length;
  if (shared || (dead >= COMPACT_MIN_DEAD && dead > end - start)) {
    backing = copyLive(log);
    end -= start;
    start = 0;
  }
  backing.times.push(t);
  for (let d = 0; d < log.dims; d++) {
    const w = weights[d] ?? 0;
    if (!(w >= 0) || !Number.isFinite(w))
      throw new RangeError(`weight must be a finite number ≥ 0, got ${w}`);
    backing.cums[d]?.push(cumAt(backing, d, end - 1) + w);
  }
  return Object.freeze({ windowMs: log.windowMs, dims: log.dims, start, end: end + 1, backing });
}

function copyLive(log: WindowLog): Backing {
  const { backing: b, start, end } = log;
  return newBacking(
    log.dims,
    b.times.slice(start, end),
    (d) => cumAt(b, d, start - 1),
    (d) => b.cums[d]?.slice(start, end) ?? [],
  );
}

/**
 * A backing store: `times` copied into a new array, base and cums per dimension. Every one is made
 * here, with push loops, so that its arrays keep one hidden class from the first entry on and after
 * every compaction (elements kinds: core/object-lists.ts): times (epoch ms, not small integers) as
 * doubles even when empty, and no `.map`, whose result is holey or packed depending on whether the
 * calling code is optimized.
 */
function newBacking(
  dims: number,
  times: readonly number[],
  baseOf: (d: number) => number,
  cumsOf: (d: number) => number[] = () => [],
): Backing {
  const t = doubleList();
  for (const x of times) t.push(x);
  const cums: number[][] = [];
  const base: number[] = [];
  for (let d = 0; d < dims; d++) {
    cums.push(cumsOf(d));
    base.push(baseOf(d));
  }
  return { times: t, cums, base };
}

/**
 * Appends the live entries, oldest first, to `times` and their weights of dimension d to
 * `weights[d]` (for each d < weights.length): O(n), with no object per entry.
 */
export function readEntries(log: WindowLog, times: number[], weights: readonly number[][]): void {
  const b = log.backing;
  for (let i = log.start; i < log.end; i++) {
    times.push(timeAt(b, i));
    for (let d = 0; d < weights.length; d++) weights[d]?.push(cumAt(b, d, i) - cumAt(b, d, i - 1));
  }
}

/** The live entries as (time, weights) pairs, oldest first: O(n), for a few entries at a time. */
export function entries(log: WindowLog): { t: number; weights: number[] }[] {
  const out: { t: number; weights: number[] }[] = [];
  const b = log.backing;
  for (let i = log.start; i < log.end; i++) {
    out.push({ t: timeAt(b, i), weights: b.cums.map((_, d) => cumAt(b, d, i) - cumAt(b, d, i - 1)) });
  }
  return out;
}
