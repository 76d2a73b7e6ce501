// Smoke test of the executor benchmark: it runs on tiny inputs and returns figures of the documented
// shape. Not a timed test: nothing here asserts how fast anything is.
import { describe, expect, it } from 'vitest';
import { benchExecutor } from '../../bench/executor.ts';

describe('benchExecutor (tiny run)', () => {
  it('returns the headline figures and their detail', async () => {
    const r = await benchExecutor({
      saturation: { seconds: 12, warmupSeconds: 2, perTick: 120 },
      latency: { warmupTicks: 5, sampleTicks: 10, rounds: 2, ordersPerTick: 3 },
    });
    for (const k of [
      'budgetUtilisation',
      'responses429',
      'meanOrdersPerBatch',
      'tickToRequestP50Ms',
      'tickToRequestP99Ms',
    ] as const) {
      expect(Number.isFinite(r[k]), k).toBe(true);
    }
    // Behaviour the figures rest on (not speed): the flood outruns the budget, batches are full,
    // the simulator never refuses, the window never overflows.
    expect(r.responses429).toBe(0);
    expect(r.saturation.bindingPool).toBe('uid');
    expect(r.meanOrdersPerBatch).toBe(20);
    expect(r.saturation.superseded).toBeGreaterThan(0);
    expect(r.saturation.peakWindowFill.uid).toBeLessThanOrEqual(1);
    expect(r.budgetUtilisation).toBeGreaterThan(0);
    expect(r.budgetUtilisation).toBeLessThanOrEqual(r.saturation.utilisationCeiling + 1e-9);
    expect(r.latency.rounds).toHaveLength(2);
    expect(r.latency.rounds.map((x) => x.samples)).toEqual([10, 10]);
    expect(r.latency.missed).toBe(0);
    expect(r.tickToRequestP50Ms).toBeLessThanOrEqual(r.tickToRequestP99Ms);
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });
});
