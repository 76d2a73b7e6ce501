// Every summary figure users compare with Freqtrade / QuantStats / vectorbt, against hand-computed
// cases: a run shorter than a day, one with no trades, one ending with a position open, a flip, and
// an eight-day run with daily returns.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { buildReport } from '../../../src/backtest/report/index.ts';
import { DrawdownTracker, periodReturns } from '../../../src/backtest/report/metrics.ts';
import { summarize } from '../../../src/backtest/report/summary.ts';
import type { RunRecord } from '../../../src/backtest/report/types.ts';
import { equity, fill, MIN, order, price, roundTrip, T0 } from './fixtures.ts';

const DAY = 86_400_000;
const r6 = (x: number): number => Number(x.toFixed(6));

describe('a run shorter than a day (the long round trip)', () => {
  const s = summarize(roundTrip());

  it('gives balance, return and buy and hold', () => {
    expect(s.startingBalance).toBe('1000'); // 1019.664 − net 19.664
    expect(s.finalEquity).toBe('1019.664');
    expect(s.totalReturn).toBe(0.019664);
    expect(s.buyAndHoldReturn).toBe(0.1); // BTC 100 → 110
  });

  it('leaves the figures that need a day or a week of data null, never NaN', () => {
    expect(s.cagr).toBeNull();
    expect(s.sharpe).toBeNull();
    expect(s.sortino).toBeNull();
    expect(s.calmar).toBeNull();
    expect(s.dailyReturns).toBe(1);
  });

  it('gives the trade figures', () => {
    expect(s.trades).toBe(1);
    expect(s.openTrades).toBe(0);
    expect(s.tradeWinRate).toBe(1);
    expect(s.profitFactor).toBeNull(); // no losing trade
    expect(s.expectancy).toBe('19.664');
    expect(s.bestTrade).toBe('19.664');
    expect(s.worstTrade).toBe('19.664');
    expect(s.avgTradeDurationMs).toBe(2 * MIN);
  });

  it('times the max drawdown: peak at the start, trough at +1 min, recovered at +2 min', () => {
    expect(s.maxDrawdownStart).toBe(T0);
    expect(s.maxDrawdownEnd).toBe(T0 + MIN);
    expect(s.maxDrawdownDurationMs).toBe(2 * MIN); // from the peak at T0 to the recovery at +2 min
  });

  it('breaks the trades down by strategy and by symbol', () => {
    const row = {
      trades: 1,
      openTrades: 0,
      winRate: 1,
      realizedPnl: '20',
      fees: '0.336',
      netPnl: '19.664',
      profitFactor: null,
      expectancy: '19.664',
      bestTrade: '19.664',
      worstTrade: '19.664',
      avgTradeDurationMs: 2 * MIN,
    };
    expect(s.byStrategy).toEqual({ s1: row });
    expect(s.bySymbol).toEqual({ cmt_btcusdt: { ...row, buyAndHoldReturn: 0.1 } });
  });
});

describe('a two-day run with no trades', () => {
  const base = roundTrip();
  const rec: RunRecord = {
    ...base,
    run: { ...base.run, lastTickTime: T0 + 2 * DAY },
    orders: [],
    fills: [],
    equity: [equity(T0, '1000'), equity(T0 + DAY, '1000'), equity(T0 + 2 * DAY, '1000')],
    prices: { cmt_btcusdt: [price(T0, '100'), price(T0 + 2 * DAY, '90')] },
    startingBalance: dec('1000'),
  };
  const s = summarize(rec);

  it('has zero return, a CAGR of 0 and the market change of its only symbol', () => {
    expect(s.totalReturn).toBe(0);
    expect(s.cagr).toBe(0);
    expect(s.buyAndHoldReturn).toBe(-0.1);
  });

  it('has no trade figure and no drawdown times', () => {
    expect(s.trades).toBe(0);
    expect(s.openTrades).toBe(0);
    for (const k of [
      'tradeWinRate',
      'profitFactor',
      'expectancy',
      'bestTrade',
      'worstTrade',
      'avgTradeDurationMs',
      'maxDrawdownStart',
      'maxDrawdownEnd',
      'maxDrawdownDurationMs',
      'calmar',
      'sharpe',
      'sortino',
    ] as const) {
      expect(s[k], k).toBeNull();
    }
    expect(s.byStrategy['s1']).toMatchObject({ trades: 0, openTrades: 0, netPnl: '0', expectancy: null });
  });
});

describe('a run that ends with a position open', () => {
  const base = roundTrip();
  const rec: RunRecord = {
    ...base,
    orders: [order(1, 'open_long', 'filled', { size: '2', filled: '2' })],
    fills: [fill(1, 1, T0 + MIN, { size: '2', value: '200', fee: '0.16' })],
    equity: [equity(T0, '1000'), equity(T0 + 4 * MIN, '1019.84', '0', '20')],
  };
  const s = summarize(rec);
  const report = JSON.parse(buildReport(rec).json) as { trades: Record<string, unknown>[] };

  it('lists the open trade without an exit, and counts it apart from the closed ones', () => {
    expect(report.trades).toEqual([
      {
        strategy: 's1',
        symbol: 'cmt_btcusdt',
        side: 'long',
        entryTime: T0 + MIN,
        exitTime: null,
        size: '2',
        openSize: '2',
        entryPrice: '100',
        exitPrice: null,
        pnl: '0',
        fees: '0.16',
        netPnl: '-0.16',
        durationMs: 3 * MIN,
        exitReason: 'end_of_data',
        fills: 1,
      },
    ]);
    expect(s.trades).toBe(0);
    expect(s.openTrades).toBe(1);
    expect(s.expectancy).toBeNull();
    expect(s.byStrategy['s1']).toMatchObject({ trades: 0, openTrades: 1, fees: '0.16', netPnl: '-0.16' });
    expect(s.startingBalance).toBe('1000'); // 1019.84 − (0 − 0.16 + 20)
    expect(s.totalReturn).toBe(0.01984);
  });
});

describe('a flip long → short', () => {
  const base = roundTrip();
  const rec: RunRecord = {
    ...base,
    orders: [
      order(1, 'open_long', 'filled'),
      order(2, 'close_long', 'filled'),
      order(3, 'open_short', 'filled'),
      order(4, 'close_short', 'filled'),
    ],
    fills: [
      fill(1, 1, T0, { size: '2', value: '200', fee: '0.1' }),
      fill(2, 2, T0 + MIN, { size: '2', value: '220', fee: '0.1', pnl: '20' }),
      fill(3, 3, T0 + MIN, { size: '1', value: '110', fee: '0.05' }),
      fill(4, 4, T0 + 3 * MIN, { size: '1', value: '115', fee: '0.05', pnl: '-5' }),
    ],
  };
  const s = summarize(rec);

  it('counts two trades, one won (19.8) and one lost (−5.1)', () => {
    expect(s.trades).toBe(2);
    expect(s.tradeWinRate).toBe(0.5);
    expect(s.profitFactor).toBe(r6(19.8 / 5.1)); // 3.882353
    expect(s.expectancy).toBe('7.35'); // (19.8 − 5.1) ÷ 2
    expect(s.bestTrade).toBe('19.8');
    expect(s.worstTrade).toBe('-5.1');
    expect(s.avgTradeDurationMs).toBe(1.5 * MIN); // (1 min + 2 min) ÷ 2
  });
});

describe('an eight-day run: daily Sharpe, Sortino, CAGR and Calmar', () => {
  const base = roundTrip();
  const closes = ['1000', '1010', '1000', '1020', '1010', '1030', '1020', '1040'];
  const rec: RunRecord = {
    ...base,
    run: { ...base.run, firstTickTime: T0, lastTickTime: T0 + 7 * DAY },
    equity: closes.map((e, k) => equity(T0 + k * DAY + 12 * 3_600_000, e)),
    startingBalance: dec('1000'),
  };
  const s = summarize(rec);
  // Day k's close ÷ day k−1's (the starting balance for day 0) − 1:
  const returns = [0, 10 / 1000, -10 / 1010, 20 / 1000, -10 / 1020, 20 / 1010, -10 / 1030, 20 / 1020];

  it('uses one return per UTC day', () => {
    expect(s.dailyReturns).toBe(8);
    const exact = periodReturns(rec.equity, dec('1000'), 'day').map((r) => Number(r.ret.toFixed(12)));
    expect(exact).toEqual(returns.map((r) => Number(r.toFixed(12))));
  });

  it('annualises mean ÷ sample sd by √365 (Sharpe) and mean ÷ downside deviation by √365 (Sortino)', () => {
    const n = returns.length;
    const mean = returns.reduce((a, r) => a + r, 0) / n;
    const sd = Math.sqrt(returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1));
    const down = Math.sqrt(returns.reduce((a, r) => a + Math.min(r, 0) ** 2, 0) / n);
    expect(s.sharpe).toBe(r6((mean / sd) * Math.sqrt(365)));
    expect(s.sortino).toBe(r6((mean / down) * Math.sqrt(365)));
    expect(s.sharpe).toBeGreaterThan(0);
  });

  it('compounds the return over the span for CAGR, and divides it by the max drawdown for Calmar', () => {
    expect(s.totalReturn).toBe(0.04);
    const cagr = 1.04 ** (365 / 7) - 1;
    expect(s.cagr).toBe(r6(cagr));
    expect(s.maxDrawdownFraction).toBe(0.009901); // 10 ÷ 1010
    expect(s.calmar).toBe(r6(cagr / (10 / 1010)));
    // Peak day 1, trough day 2, back at 1010 or more on day 3.
    expect(s.maxDrawdownStart).toBe(T0 + DAY + 12 * 3_600_000);
    expect(s.maxDrawdownEnd).toBe(T0 + 2 * DAY + 12 * 3_600_000);
    expect(s.maxDrawdownDurationMs).toBe(2 * DAY);
  });

  it('needs seven daily returns', () => {
    const short = summarize({ ...rec, equity: rec.equity.slice(0, 6) });
    expect(short.dailyReturns).toBe(6);
    expect(short.sharpe).toBeNull();
    expect(short.sortino).toBeNull();
  });
});

describe('buy and hold over several symbols', () => {
  const base = roundTrip();
  const rec: RunRecord = {
    ...base,
    run: { ...base.run, symbols: ['a', 'b'] },
    prices: {
      a: [price(T0, '100'), price(T0 + MIN, '110')],
      b: [price(T0, '200'), price(T0 + MIN, '180')],
      c: [price(T0, '1'), price(T0 + MIN, '5')], // not traded by the run: ignored
    },
  };

  it('is the equal-weighted mean of last ÷ first − 1 of the run’s symbols', () => {
    expect(summarize(rec).buyAndHoldReturn).toBe(0); // (1.1 + 0.9) ÷ 2 − 1
  });

  it('prefers the exact first and last prices when the record has them', () => {
    const s = summarize({ ...rec, priceRanges: { a: { first: dec('100'), last: dec('120') } } });
    expect(s.buyAndHoldReturn).toBe(0.05); // (1.2 + 0.9) ÷ 2 − 1
    expect(s.bySymbol['a']?.buyAndHoldReturn).toBe(0.2);
    expect(s.bySymbol['b']?.buyAndHoldReturn).toBe(-0.1);
    expect(Object.keys(s.bySymbol)).toEqual(['a', 'b', 'cmt_btcusdt']);
  });
});

describe('DrawdownTracker', () => {
  it('runs to the end of the data when the drawdown never recovers', () => {
    const d = new DrawdownTracker();
    [
      [0, '100'],
      [10, '120'],
      [20, '90'],
      [30, '119'],
    ].forEach(([t, e]) => d.add(t as number, dec(e as string)));
    expect(d.episode()).toEqual({ amount: dec('30'), start: 10, end: 20, durationMs: 20 });
  });
});

describe('never NaN nor Infinity', () => {
  it('builds a report for any equity curve, even through zero and below', () => {
    const curve = fc.array(fc.integer({ min: -1000, max: 5000 }), { minLength: 0, maxLength: 40 });
    fc.assert(
      fc.property(curve, fc.integer({ min: 0, max: 40 * DAY }), (xs, span) => {
        const base = roundTrip();
        const step = xs.length > 1 ? Math.floor(span / (xs.length - 1)) : 0;
        const rec: RunRecord = {
          ...base,
          run: { ...base.run, firstTickTime: T0, lastTickTime: T0 + step * Math.max(0, xs.length - 1) },
          equity: xs.map((x, k) => equity(T0 + k * step, String(x))),
        };
        // canonicalJson refuses NaN and Infinity: building the report is the check.
        const built = buildReport(rec);
        expect(built.json).not.toMatch(/NaN|Infinity/);
      }),
      { numRuns: 60 },
    );
  });
});
