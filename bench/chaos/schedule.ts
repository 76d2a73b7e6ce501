// The seeded kill schedule of a chaos run: the moments (offsets from the start of the chaos phase) at
// which the running `capibot run` gets SIGKILL. The same seed always gives the same schedule; only
// where each kill lands inside the runner's life (start-up, recovery, trading) varies with timing.
import { mulberry32, nextInt } from '../../src/exchange/sim/rng.ts';

export interface KillScheduleOptions {
  /** Length of the chaos phase; the runner alive at its end is killed too (the last entry). */
  readonly durationMs: number;
  /** Shortest and longest time between two kills (uniform). */
  readonly minGapMs: number;
  readonly maxGapMs: number;
}

export const DEFAULT_KILL_GAPS = { minGapMs: 2_000, maxGapMs: 14_000 } as const;

/**
 * Kill moments in increasing order, each ≤ durationMs; the last one is always durationMs, so the
 * chaos phase ends with a crash and the settle run starts from a killed runner's store.
 */
export function killSchedule(seed: number, o: KillScheduleOptions): number[] {
  if (!(o.minGapMs > 0) || o.maxGapMs < o.minGapMs) throw new RangeError('expected 0 < minGapMs ≤ maxGapMs');
  // A stream of its own: the sim's fault dice use the plain seed.
  const rng = mulberry32((seed ^ 0x6b11) >>> 0);
  const out: number[] = [];
  let at = nextInt(rng, o.minGapMs, o.maxGapMs);
  while (at < o.durationMs - o.minGapMs) {
    out.push(at);
    at += nextInt(rng, o.minGapMs, o.maxGapMs);
  }
  out.push(o.durationMs);
  return out;
}
