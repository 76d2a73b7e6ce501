import { describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import {
  groupedDecimal,
  humanDuration,
  humanMoney,
  humanPercent,
  humanPrice,
  humanRatio,
  humanTime,
  tickDecimals,
} from '../../../src/backtest/report/format.ts';
import { renderSummaryText, summarize, summaryRows } from '../../../src/backtest/report/index.ts';
import { roundTrip } from './fixtures.ts';

describe('formatting for people', () => {
  it('groups thousands and rounds half up, without a negative zero', () => {
    expect(groupedDecimal(dec('1234567.891'), 2)).toBe('1,234,567.89');
    expect(groupedDecimal(dec('-1234.565'), 2)).toBe('-1,234.57');
    expect(groupedDecimal(dec('999.995'), 2)).toBe('1,000.00');
    expect(groupedDecimal(dec('-0.001'), 2)).toBe('0.00');
    expect(groupedDecimal(dec('12'), 0)).toBe('12');
  });

  it('prints money at 2 decimals, prices at the tick, percentages and ratios at 2 decimals', () => {
    expect(humanMoney('507.28203272')).toBe('507.28');
    expect(humanMoney(null)).toBe('n/a');
    expect(tickDecimals(dec('0.5'))).toBe(1);
    expect(tickDecimals(dec('0.01'))).toBe(2);
    expect(tickDecimals(dec('1'))).toBe(0);
    expect(humanPrice('46321.5', 1)).toBe('46,321.5');
    expect(humanPrice('46321', 2)).toBe('46,321.00');
    expect(humanPercent(0.12345)).toBe('12.35 %');
    expect(humanPercent(-0.187654)).toBe('-18.77 %');
    expect(humanPercent(null)).toBe('n/a');
    expect(humanRatio(-31.4159)).toBe('-31.42');
  });

  it('prints durations and UTC times unambiguously', () => {
    expect(humanDuration(250)).toBe('250 ms');
    expect(humanDuration(12_000)).toBe('12s');
    expect(humanDuration(5 * 60_000 + 3_000)).toBe('5m 03s');
    expect(humanDuration(2 * 3_600_000 + 10 * 60_000)).toBe('2h 10m');
    expect(humanDuration(3 * 86_400_000 + 4 * 3_600_000 + 5 * 60_000)).toBe('3d 4h 05m');
    expect(humanDuration(null)).toBe('n/a');
    expect(humanTime(Date.UTC(2022, 0, 5, 13, 4, 5))).toBe('2022-01-05 13:04:05 UTC');
    expect(humanTime(Date.UTC(2022, 0, 5, 13, 4, 5, 7))).toBe('2022-01-05 13:04:05.007 UTC');
  });
});

describe('the terminal summary', () => {
  const s = summarize(roundTrip());

  it('uses the same formatting as the page', () => {
    const rows = new Map(summaryRows(s));
    expect(rows.get('Fees paid')).toBe('0.34');
    expect(rows.get('Net PnL')).toBe('19.66');
    expect(rows.get('Starting balance')).toBe('1,000.00');
    expect(rows.get('Total return')).toBe('1.97 %');
    expect(rows.get('Buy and hold return')).toBe('10.00 %');
    expect(rows.get('Return vs buy and hold')).toBe('-8.03 %');
    expect(rows.get('CAGR')).toBe('n/a');
    expect(rows.get('Trades (closed)')).toBe('1');
    expect(rows.get('Average trade duration')).toBe('2m 00s');
  });

  it('aligns the labels', () => {
    const text = renderSummaryText(s);
    expect(text).toMatch(/^Fees paid {2,}0\.34$/m);
    expect(text.endsWith('\n')).toBe(true);
  });
});
