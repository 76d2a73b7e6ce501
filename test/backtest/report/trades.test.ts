import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, ZERO } from '../../../src/core/decimal.ts';
import { ORDER_SIDES, type OrderSide } from '../../../src/core/orders.ts';
import type { ReportFill } from '../../../src/backtest/report/fills.ts';
import { buildReport } from '../../../src/backtest/report/index.ts';
import { summarize } from '../../../src/backtest/report/summary.ts';
import { buildTrades, TradeBuilder, type Trade } from '../../../src/backtest/report/trades.ts';
import { MIN, roundTrip, T0 } from './fixtures.ts';

let seq = 0;
function rf(
  side: OrderSide,
  t: number,
  size: string,
  price: string,
  extra: { fee?: string; pnl?: string; strategy?: string | null; symbol?: string } = {},
): ReportFill {
  seq++;
  const strategy = extra.strategy === undefined ? 's1' : extra.strategy;
  return {
    tradeId: String(seq),
    orderId: String(seq),
    ...(strategy !== null ? { strategy } : {}),
    symbol: extra.symbol ?? 'cmt_btcusdt',
    side,
    positionSide: side.endsWith('long') ? 'LONG' : 'SHORT',
    orderSide: side === 'open_long' || side === 'close_short' ? 'BUY' : 'SELL',
    direction: side.toUpperCase(),
    createdTime: t,
    price: dec(price),
    size: dec(size),
    value: dec(price).times(size),
    fee: dec(extra.fee ?? '0'),
    realizedPnl: dec(extra.pnl ?? '0'),
  };
}

const text = (t: Trade): Record<string, unknown> => ({
  strategy: t.strategy,
  side: t.side,
  entryTime: t.entryTime,
  exitTime: t.exitTime,
  size: t.size.toFixed(),
  entryPrice: t.entryPrice?.toFixed() ?? null,
  exitPrice: t.exitPrice?.toFixed() ?? null,
  pnl: t.pnl.toFixed(),
  fees: t.fees.toFixed(),
  netPnl: t.netPnl.toFixed(),
  durationMs: t.durationMs,
  exitReason: t.exitReason,
});

describe('buildTrades', () => {
  it('makes one trade of a long round trip', () => {
    const trades = buildTrades(
      [
        rf('open_long', T0 + MIN, '2', '100', { fee: '0.16' }),
        rf('close_long', T0 + 3 * MIN, '2', '110', { fee: '0.176', pnl: '20' }),
      ],
      T0 + 4 * MIN,
    );
    expect(trades.map(text)).toEqual([
      {
        strategy: 's1',
        side: 'long',
        entryTime: T0 + MIN,
        exitTime: T0 + 3 * MIN,
        size: '2',
        entryPrice: '100',
        exitPrice: '110',
        pnl: '20',
        fees: '0.336',
        netPnl: '19.664',
        durationMs: 2 * MIN,
        exitReason: 'strategy',
      },
    ]);
  });

  it('averages scale-ins and partial closes by size', () => {
    const [t] = buildTrades(
      [
        rf('open_short', T0, '1', '100'),
        rf('open_short', T0 + 1, '3', '104'), // entry (100 + 312) / 4 = 103
        rf('close_short', T0 + 2, '2', '101', { pnl: '4' }),
        rf('close_short', T0 + 3, '2', '99', { pnl: '8' }), // exit (202 + 198) / 4 = 100
      ],
      T0 + 10,
    );
    expect(text(t!)).toMatchObject({
      side: 'short',
      size: '4',
      entryPrice: '103',
      exitPrice: '100',
      pnl: '12',
    });
    expect(t!.fills).toBe(4);
  });

  it('splits a flip long → short into two trades', () => {
    const trades = buildTrades(
      [
        rf('open_long', T0, '2', '100', { fee: '0.1' }),
        rf('close_long', T0 + MIN, '2', '110', { fee: '0.1', pnl: '20' }),
        rf('open_short', T0 + MIN, '1', '110', { fee: '0.05' }),
        rf('close_short', T0 + 2 * MIN, '1', '115', { fee: '0.05', pnl: '-5' }),
      ],
      T0 + 3 * MIN,
    );
    expect(trades.map((t) => [t.side, t.entryTime, t.exitTime, t.netPnl.toFixed()])).toEqual([
      ['long', T0, T0 + MIN, '19.8'],
      ['short', T0 + MIN, T0 + 2 * MIN, '-5.1'],
    ]);
  });

  it('keeps a trade open at the end of the data, with its fees and partial closes', () => {
    const trades = buildTrades(
      [
        rf('open_long', T0, '3', '100', { fee: '0.3' }),
        rf('close_long', T0 + MIN, '1', '120', { fee: '0.1', pnl: '20' }),
      ],
      T0 + 5 * MIN,
    );
    expect(trades.map(text)).toEqual([
      {
        strategy: 's1',
        side: 'long',
        entryTime: T0,
        exitTime: null,
        size: '3',
        entryPrice: '100',
        exitPrice: '120',
        pnl: '20',
        fees: '0.4',
        netPnl: '19.6',
        durationMs: 5 * MIN,
        exitReason: 'end_of_data',
      },
    ]);
    expect(trades[0]!.openSize.toFixed()).toBe('2');
  });

  it('keeps strategies, symbols and hedge legs apart', () => {
    const trades = buildTrades(
      [
        rf('open_long', T0, '1', '100'),
        rf('open_long', T0 + 1, '1', '100', { strategy: 's2' }),
        rf('open_long', T0 + 2, '1', '10', { symbol: 'cmt_ethusdt' }),
        rf('open_short', T0 + 3, '1', '100'),
        rf('close_long', T0 + 4, '1', '101', { pnl: '1' }),
      ],
      T0 + 10,
    );
    expect(trades.map((t) => [t.strategy, t.symbol, t.side, t.exitTime])).toEqual([
      ['s1', 'cmt_btcusdt', 'long', T0 + 4],
      ['s2', 'cmt_btcusdt', 'long', null],
      ['s1', 'cmt_ethusdt', 'long', null],
      ['s1', 'cmt_btcusdt', 'short', null],
    ]);
  });

  it('keeps a close on a flat leg (an orphan close) as a trade of its own', () => {
    const trades = buildTrades(
      [rf('close_long', T0, '1', '100', { pnl: '3', fee: '1', strategy: null })],
      T0 + 1,
    );
    expect(trades.map(text)).toEqual([
      {
        strategy: null,
        side: 'long',
        entryTime: T0,
        exitTime: T0,
        size: '0',
        entryPrice: null,
        exitPrice: '100',
        pnl: '3',
        fees: '1',
        netPnl: '2',
        durationMs: 0,
        exitReason: 'unknown',
      },
    ]);
  });

  it('is incremental: the builder returns each trade as the fill closing it arrives', () => {
    const b = new TradeBuilder();
    expect(b.add(rf('open_long', T0, '1', '100'))).toBeUndefined();
    expect(b.openTrades(T0 + 5)).toHaveLength(1);
    const closed = b.add(rf('close_long', T0 + 5, '1', '100'));
    expect(closed?.exitTime).toBe(T0 + 5);
    expect(b.openTrades(T0 + 5)).toEqual([]);
  });
});

describe('trades add up to the run', () => {
  const fillArb = fc.record({
    side: fc.constantFrom(...ORDER_SIDES),
    dt: fc.integer({ min: 0, max: 60_000 }),
    size: fc.integer({ min: 1, max: 5 }),
    price: fc.integer({ min: 1, max: 100_000 }),
    fee: fc.integer({ min: -100, max: 1_000 }),
    pnl: fc.integer({ min: -100_000, max: 100_000 }),
    strategy: fc.constantFrom('a', 'b', null),
    symbol: fc.constantFrom('x', 'y'),
  });

  it('Σ netPnl of the trades = realized PnL − fees, exactly, and every fill is in one trade', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { maxLength: 60 }), (specs) => {
        let t = T0;
        const fills = specs.map((s) => {
          t += s.dt;
          return rf(s.side, t, String(s.size), dec(s.price).div(100).toFixed(), {
            fee: dec(s.fee).div(1000).toFixed(),
            pnl: dec(s.pnl).div(1000).toFixed(),
            strategy: s.strategy,
            symbol: s.symbol,
          });
        });
        const trades = buildTrades(fills, t);
        let net = ZERO;
        let expected = ZERO;
        let count = 0;
        for (const tr of trades) {
          net = net.plus(tr.netPnl);
          count += tr.fills;
          expect(tr.durationMs).toBeGreaterThanOrEqual(0);
          expect(tr.netPnl.eq(tr.pnl.minus(tr.fees))).toBe(true);
        }
        for (const f of fills) expected = expected.plus(f.realizedPnl).minus(f.fee);
        expect(net.eq(expected)).toBe(true);
        expect(count).toBe(fills.length);
      }),
    );
  });

  it('holds for a whole report: Σ trades netPnl = summary realizedPnl − feesPaid', () => {
    const report = JSON.parse(buildReport(roundTrip()).json) as {
      summary: { realizedPnl: string; feesPaid: string };
      trades: { netPnl: string }[];
    };
    const sum = report.trades.reduce((a, t) => a.plus(t.netPnl), ZERO);
    expect(sum.eq(dec(report.summary.realizedPnl).minus(report.summary.feesPaid))).toBe(true);
    expect(summarize(roundTrip()).trades).toBe(1);
  });
});
