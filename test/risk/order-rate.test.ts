import { describe, expect, it } from 'vitest';
import {
  createOrderRate,
  nextPlacementAt,
  placementsInWindow,
  recordPlacement,
} from '../../src/risk/index.ts';

describe('orders-per-minute window', () => {
  it('counts placements of the last 60 s and says when the next one fits', () => {
    let w = createOrderRate();
    w = recordPlacement(w, 1_000);
    w = recordPlacement(w, 2_000);
    expect(placementsInWindow(w, 60_999)).toBe(2);
    expect(placementsInWindow(w, 61_000)).toBe(1);
    expect(nextPlacementAt(w, 10_000, 2)).toBe(61_000);
    expect(nextPlacementAt(w, 10_000, 3)).toBe(10_000);
  });

  it('is a value: recording returns a new window and leaves the old one as it was', () => {
    const a = recordPlacement(createOrderRate(), 0);
    const b = recordPlacement(a, 1);
    expect(placementsInWindow(a, 1)).toBe(1);
    expect(placementsInWindow(b, 1)).toBe(2);
  });

  it('holds a clock that steps back at the newest placement', () => {
    const w = recordPlacement(recordPlacement(createOrderRate(), 5_000), 4_000);
    expect(placementsInWindow(w, 5_000)).toBe(2);
  });
});
