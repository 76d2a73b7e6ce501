// A tiny seeded PRNG (mulberry32) and a stateless hash to the unit interval. The simulator never
// uses Math.random: the same seed and the same request sequence give the same faults and ids.

/** A stream of pseudo-random numbers in [0, 1). */
export interface Rng {
  next(): number;
}

/** mulberry32: 32-bit state, good enough for fault dice and id gaps, fully deterministic. */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return {
    next(): number {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** An integer in [min, max] (both inclusive) drawn from `rng`. */
export function nextInt(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng.next() * (max - min + 1));
}

/**
 * A stateless deterministic value in [0, 1) for (seed, key): decides per-item faults (a late fill)
 * without consuming the request stream, so the decision does not depend on how often it is asked.
 */
export function hashUnit(seed: number, key: string): number {
  // FNV-1a over the key, mixed with the seed, finished with one mulberry32 step.
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mulberry32(h >>> 0).next();
}
