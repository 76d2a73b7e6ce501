// HeapBound: a backtest collects its heap when the old generation outgrew the slack over what the last
// collection left live, and only then (large arrays go straight to the large-object space it counts).
import { describe, expect, it } from 'vitest';
import { HeapBound } from '../../src/backtest/heap-bound.ts';

const MiB = 1024 * 1024;

describe('HeapBound', () => {
  it('collects once the old generation grew by more than its slack, then counts from what stayed', () => {
    const bound = new HeapBound(8 * MiB);
    bound.check();
    expect(bound.collections).toBe(0);
    // 16 MiB that stays reachable: past the slack, so a collection runs (and finds it live).
    const kept = Array.from({ length: 4 }, () => new Array<number>(512 * 1024).fill(1));
    bound.check();
    expect(bound.collections).toBe(1);
    // Nothing new since: what the collection left is the new base.
    bound.check();
    expect(bound.collections).toBe(1);
    expect(kept.length).toBe(4);
  });
});
