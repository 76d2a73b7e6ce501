import { describe, expect, it } from 'vitest';
import {
  defaultOrder,
  rankRows,
  type MetricValues,
  type SweepMetric,
} from '../../../src/backtest/sweep/rank.ts';

const row = (index: number, netPnl: string, sharpe: number | null = null, maxDrawdown = '0') => ({
  index,
  metrics: { netPnl, sharpe, maxDrawdown } as unknown as MetricValues,
});

describe('rankRows', () => {
  it('ranks money exactly, best first, ties in grid order', () => {
    const rows = [row(1, '0.1'), row(2, '0.30000000000000000001'), row(3, '0.3'), row(4, '0.3')];
    expect(rankRows(rows, 'netPnl', 'desc').map((r) => [r.rank, r.index])).toEqual([
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 1],
    ]);
  });

  it('puts a null metric last in either order', () => {
    const rows = [row(1, '0', null), row(2, '0', 1.5), row(3, '0', -2)];
    expect(rankRows(rows, 'sharpe', 'desc').map((r) => r.index)).toEqual([2, 3, 1]);
    expect(rankRows(rows, 'sharpe', 'asc').map((r) => r.index)).toEqual([3, 2, 1]);
  });

  it('ranks costs ascending by default', () => {
    const costs: SweepMetric[] = [
      'feesPaid',
      'maxDrawdown',
      'maxDrawdownFraction',
      'ordersRejected',
      'responses429',
    ];
    for (const m of costs) expect(defaultOrder(m)).toBe('asc');
    expect(defaultOrder('netPnl')).toBe('desc');
    expect(defaultOrder('sharpe')).toBe('desc');
    const rows = [row(1, '0', null, '5'), row(2, '0', null, '1.5')];
    expect(rankRows(rows, 'maxDrawdown', defaultOrder('maxDrawdown')).map((r) => r.index)).toEqual([2, 1]);
  });
});
