// The pure parts of the benchmark report: the rolling-window arithmetic, percentiles, and the table
// that `npm run bench` writes into BENCHMARKS.md.
import { describe, expect, it } from 'vitest';
import {
  BEGIN_MARKER,
  END_MARKER,
  NOT_JUDGED,
  renderTable,
  replaceBetweenMarkers,
} from '../../bench/format.ts';
import { describeMachine } from '../../bench/machine.ts';
import { FIGURES, type BenchResults } from '../../bench/results.ts';
import { percentile } from '../../bench/stats.ts';
import { peakWindowFill, windowUtilisation } from '../../bench/window-fill.ts';

describe('window fill', () => {
  it('a full window renewed in bursts every window is 100 % used, whatever the phase', () => {
    const bursts = [0, 10_000, 20_000, 30_000, 40_000].map((t) => ({ t, weight: 900 }));
    for (const t0 of [5_000, 12_345, 19_999]) {
      expect(windowUtilisation(bursts, t0, t0 + 20_000, 10_000, 900)).toBeCloseTo(1, 9);
    }
    expect(peakWindowFill(bursts, 10_000, 900)).toBe(1);
  });

  it('bursts every 10.05 s fill a 10 s window 99.5 % of the time', () => {
    const bursts = Array.from({ length: 20 }, (_, i) => ({ t: i * 10_050, weight: 900 }));
    expect(windowUtilisation(bursts, 20_000, 150_000, 10_000, 900)).toBeCloseTo(10_000 / 10_050, 2);
  });

  it('finds the fullest instant of the window', () => {
    const c = [
      { t: 0, weight: 5 },
      { t: 9_999, weight: 5 },
      { t: 10_000, weight: 5 },
    ];
    expect(peakWindowFill(c, 10_000, 10)).toBe(1);
  });
});

describe('percentile', () => {
  it('is nearest-rank: always a measured value', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 0.5)).toBe(50);
    expect(percentile(xs, 0.99)).toBe(99);
    expect(percentile(xs, 1)).toBe(100);
    expect(percentile([3], 0.99)).toBe(3);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

function results(over: Partial<BenchResults> = {}): BenchResults {
  return {
    date: '2026-01-02T03:04:05.000Z',
    machine: {
      cpu: 'Test CPU',
      cores: 2,
      node: 'v20.0.0',
      os: 'Linux 6 x64',
      memoryGb: 4,
      loadAverage1m: 0.5,
    },
    replay: null,
    reader: null,
    executor: null,
    money: null,
    symbols: null,
    sweepQueue: null,
    errors: { replay: 'bench/replay.ts is missing' },
    durations: {},
    ...over,
  };
}

describe('BENCHMARKS.md table', () => {
  it('shows every figure with its target and verdict, and why a figure is missing', () => {
    const r = results({
      reader: {
        ratioToBareParse: 0.93,
        readerLinesPerSecond: 1,
        bareLinesPerSecond: 1,
        batchRatioToBareParse: 1,
        lines: 1,
        runs: 1,
      },
    });
    const table = renderTable(r);
    expect(table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Figure'))).toHaveLength(
      FIGURES.length,
    );
    expect(table).toContain('| Recording reader ÷ bare `JSON.parse` | 0.93 | ≥ 0.9 | pass |');
    expect(table).toContain('not measured | ≥ 0.5 (aim 0.8) | — (bench/replay.ts is missing) |');
    expect(table).toContain('Test CPU (2 cores, 4 GB), Node v20.0.0');
  });

  it('marks a figure that misses its target', () => {
    const r = results({
      executor: {
        budgetUtilisation: 0.5,
        responses429: 3,
        meanOrdersPerBatch: 20,
        tickToRequestP50Ms: 0.30004,
        tickToRequestP99Ms: 0.9,
      } as unknown as BenchResults['executor'],
    });
    const table = renderTable(r);
    expect(table).toContain('| Weight budget used under a flood | 0.5 | ≥ 0.95 | **FAIL** |');
    expect(table).toContain('| 429 answers under the flood | 3 | = 0 | **FAIL** |');
    expect(table).toContain('| Tick-to-request p99 | 0.9 ms | ≤ 1 ms | pass |');
    expect(table).toContain('| Tick-to-request p50 | 0.3 ms | — | — |');
  });

  it('gives no verdict to a cost measured as a difference that came out at zero or less', () => {
    const table = renderTable(
      results({
        errors: {},
        replay: {
          tickersPerSecond: 1,
          ratioToBareParse: 0.2,
          peakRssRatio4x: 1.04,
          // The floor subtracted from the 1-second quiet replay measured slower than the replay.
          engineMicrosPerQuietPoll: 1.5,
          ticksEngineMicrosPerQuietPoll: -0.49,
          engineMicrosPerOrder: 0,
        },
        orders: {
          perOrderGrowth: -0.4,
          microsPerOrderBeyondQuietLow: -25,
          microsPerOrderBeyondQuietHigh: 10,
        } as unknown as NonNullable<BenchResults['orders']>,
        symbols: {
          engineRatio: 0.5,
          engineMicrosPerPollFew: -3,
          engineMicrosPerPollMany: 10,
        } as unknown as BenchResults['symbols'],
      }),
    );
    const row = (label: string): string =>
      table.split('\n').find((l) => l.startsWith(`| ${label} |`)) ?? `no row ${label}`;
    expect(row('Engine cost per quiet poll (beyond parse + tickers), 1-minute bars')).toContain(
      '| 1.5 µs | ≤ 2 µs | pass |',
    );
    for (const label of [
      'Engine cost per quiet poll, 1-second tickers',
      'Engine cost per order (placed, filled, reconciled), 1-minute bars',
      'Engine cost per poll, 200 symbols ÷ 5 (5 watched; synthetic recordings)',
      FIGURES.find((f) => f.key === 'perOrderGrowth')?.label ?? 'perOrderGrowth',
    ]) {
      expect(row(label)).toContain(`| ${NOT_JUDGED} |`);
      expect(row(label)).not.toContain('pass');
    }
  });

  it('shows rates as whole numbers and ratios to three decimals', () => {
    const table = renderTable(
      results({
        errors: {},
        replay: {
          tickersPerSecond: 123_456.7,
          ratioToBareParse: 0.2,
          marginalRatioToBareParse: 0.81234,
          peakRssRatio4x: 1.04,
        },
      }),
    );
    expect(table).toContain('| Replay throughput (1-minute bars, sma-cross) | 123,457 tickers/s | — | — |');
    expect(table).toContain(
      '| Replay ÷ bare `JSON.parse`, marginal: 1-minute bars (month), sma-cross | 0.812 | ≥ 0.5 (aim 0.8) | pass |',
    );
    expect(table).toContain('| Peak RSS, 4× recording ÷ 1× | 1.04 | ≤ 1.1 | pass |');
  });

  it('replaces only what lies between the markers', () => {
    const doc = `# T\n\nbefore\n${BEGIN_MARKER}\nold\n${END_MARKER}\nafter\n`;
    const out = replaceBetweenMarkers(doc, 'new');
    expect(out).toBe(`# T\n\nbefore\n${BEGIN_MARKER}\nnew\n${END_MARKER}\nafter\n`);
    expect(replaceBetweenMarkers(out, 'new')).toBe(out);
    expect(() => replaceBetweenMarkers('no markers', 'x')).toThrow(/markers|must hold/);
  });
});

describe('describeMachine', () => {
  it('names the cpu, cores, node version and os', () => {
    const m = describeMachine();
    expect(m.cpu.length).toBeGreaterThan(0);
    expect(m.cores).toBeGreaterThanOrEqual(1);
    expect(m.node).toBe(process.version);
    expect(m.os.length).toBeGreaterThan(0);
  });
});
