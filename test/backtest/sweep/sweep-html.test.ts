import { describe, expect, it } from 'vitest';
import type { Grid } from '../../../src/backtest/sweep/grid.ts';
import { SWEEP_METRICS, type MetricValues } from '../../../src/backtest/sweep/rank.ts';
import type { SweepResult, SweepRow } from '../../../src/backtest/sweep/run-sweep.ts';
import { metricText, renderSweepHtml, sweepHeatmap } from '../../../src/backtest/sweep/sweep-html.ts';

function metrics(netPnl: string, sharpe: number | null): MetricValues {
  const m = Object.fromEntries(SWEEP_METRICS.map((k) => [k, null])) as Record<string, string | number | null>;
  return { ...m, netPnl, sharpe } as MetricValues;
}

function row(
  index: number,
  rank: number | null,
  params: Record<string, unknown>,
  m: MetricValues | null,
): SweepRow {
  return {
    rank,
    index,
    params,
    metrics: m,
    config: `c${index}.yaml`,
    command: `capibot backtest --config c${index}.yaml`,
  };
}

const grid: Grid = {
  params: [
    ['fast', [5, 10]],
    ['slow', [20, 40]],
    ['size', ['1', '2']],
  ],
};

function result(): SweepResult {
  return {
    config: 'sma.yaml',
    grid: 'grid.yaml',
    data: 'data/<b>x</b>.ndjson',
    strategy: 'sma',
    metric: 'netPnl',
    order: 'desc',
    combinations: 8,
    rows: [
      row(1, 1, { fast: 5, slow: 20, size: '1' }, metrics('1234.5', 1)),
      row(2, 3, { fast: 5, slow: 20, size: '2' }, metrics('-3', null)),
      row(3, 2, { fast: 5, slow: 40, size: '1' }, metrics('10', 0.5)),
      row(4, 4, { fast: 10, slow: 20, size: '1' }, metrics('-20.004', -1)),
      row(5, null, { fast: 10, slow: 40, size: '1' }, null),
    ],
  };
}

describe('sweepHeatmap', () => {
  it('shows the best metric per pair of the first two varying params, null when no ranked run has one', () => {
    const h = sweepHeatmap(result(), grid)!;
    expect(h.rowParam).toBe('fast');
    expect(h.colParam).toBe('slow');
    expect(h.cells).toEqual([
      ['1234.5', '10'], // fast 5: best of 1234.5 and −3 at slow 20
      ['-20.004', null], // the fast 10 / slow 40 run failed
    ]);
  });

  it('takes the lowest for an ascending metric', () => {
    const h = sweepHeatmap({ ...result(), order: 'asc' }, grid)!;
    expect(h.cells[0]![0]).toBe('-3');
  });

  it('skips params with one value and needs two varying ones', () => {
    expect(
      sweepHeatmap(result(), {
        params: [
          ['fast', [5, 10]],
          ['slow', [20]],
        ],
      }),
    ).toBeUndefined();
    const h = sweepHeatmap(result(), {
      params: [
        ['fast', [5, 10]],
        ['slow', [20]],
        ['size', ['1', '2']],
      ],
    })!;
    expect([h.rowParam, h.colParam]).toEqual(['fast', 'size']);
  });
});

describe('sweep.html', () => {
  const html = renderSweepHtml(result(), grid);

  it('is deterministic and offline', () => {
    expect(renderSweepHtml(result(), grid)).toBe(html);
    expect(html).toContain(`content="default-src 'none'`);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('has one table row per sweep row, formatted for people, and escapes texts', () => {
    const table = html.slice(html.indexOf('<table id="sweep-table"'));
    expect(table.match(/<tr title=/g)).toHaveLength(5);
    expect(html).toContain('1,234.50');
    expect(html).toContain('data/&lt;b&gt;x&lt;/b&gt;.ndjson');
    expect(html).not.toContain('<b>x</b>');
    expect(html).toContain('<table class="heatmap">');
  });

  it('formats each kind of metric', () => {
    expect(metricText('netPnl', '-1234.567')).toBe('-1,234.57');
    expect(metricText('totalReturn', 0.12345)).toBe('12.35 %');
    expect(metricText('trades', 12)).toBe('12');
    expect(metricText('sharpe', 1.23456)).toBe('1.23');
    expect(metricText('sharpe', null)).toBe('n/a');
  });
});
