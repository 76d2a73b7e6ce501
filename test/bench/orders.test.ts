// The orders benchmark's pure parts (bench/orders.ts): its configs are valid capibot configs whose
// strategies accept their params, and its figures follow from the runs as BENCHMARKS.md defines them.
// The benchmark itself (child processes, minutes) is `npm run bench -- --only orders`.
import { describe, expect, it } from 'vitest';
import marketMaker from '../../bench/market-maker.ts';
import {
  emaCrossConfigText,
  emaCrossParams,
  marketMakerConfigText,
  ordersFigures,
  paired,
  type OrdersRun,
} from '../../bench/orders.ts';
import { parseConfigText } from '../../src/config/load.ts';
import { parseStrategyParams } from '../../src/strategy/define.ts';
import emaCross from '../../strategies/ema-cross.ts';

const run = (orders: number, cpuMs: number, peakRssMiB = 100): OrdersRun => ({
  orders,
  fills: orders,
  rejections: 0,
  cpuMs,
  wallMs: cpuMs,
  peakRssMiB,
  replayPeakRssMiB: peakRssMiB,
  withReportPeakRssMiB: peakRssMiB,
  heapUsedAtEndMiB: 30,
  secondHalfRatio: 1.05,
});

describe('orders benchmark configs', () => {
  it('n ema-cross instances with distinct periods; the quiet twin never sees a cross', () => {
    const ids = new Set<string>();
    for (const quiet of [false, true]) {
      const c = parseConfigText(emaCrossConfigText(32, quiet), 'orders.yaml', {});
      expect(c.strategies).toHaveLength(32);
      expect(c.risk.drawdownHaltPct).toBe('95');
      for (const s of c.strategies) {
        const p = parseStrategyParams(emaCross, s.id, s.params);
        expect(p.notional.toFixed()).toBe('50');
        expect(p.minGapBps.toFixed()).toBe(quiet ? '1000000' : '0.5');
        ids.add(`${quiet}:${p.fastPeriod}/${p.slowPeriod}`);
      }
    }
    expect(ids.size).toBe(64);
    expect(emaCrossParams(0)).toEqual({ fastPeriod: 4, slowPeriod: 12 });
  });

  it('the market maker quotes perTick orders every N-th ticker', () => {
    const c = parseConfigText(marketMakerConfigText(5, 100), 'mm.yaml', {});
    const s = c.strategies[0];
    expect(s).toBeDefined();
    expect(parseStrategyParams(marketMaker, 'mm', s?.params ?? {})).toMatchObject({ perTick: 5, every: 100 });
  });
});

describe('orders benchmark figures', () => {
  it('marginal cost, growth beyond the quiet runs, and memory ratios', () => {
    // Quiet runs 1,000 ms; a one-time order-path cost of 500 ms; 100 µs per order, then 120 µs.
    const strategies = [
      paired('1', run(5_000, 1_000 + 500 + 500, 100), run(0, 1_000)),
      paired('8', run(30_000, 1_100 + 500 + 3_000, 110), run(0, 1_100)),
      paired('32', run(100_000, 1_200 + 500 + 3_000 + 8_400, 140), run(0, 1_200)),
    ];
    expect(strategies[0]?.microsPerOrder).toBe(200);
    const sparse = paired('sparse', run(2_000, 1_400, 200), run(5, 1_000));
    const month = paired('month', run(200_000, 21_200, 230), run(5, 1_000));
    const f = ordersFigures(strategies, month, sparse);
    expect(f.marginalMicrosPerOrder).toBe(Number(((11_100 * 1000) / 95_000).toFixed(1)));
    expect(f.marginalMicrosPerOrderMiddle).toBe(Number(((2_600 * 1000) / 25_000).toFixed(1)));
    expect(f.perOrderGrowth).toBe(1.2);
    expect([f.microsPerOrderBeyondQuietLow, f.microsPerOrderBeyondQuietHigh]).toEqual([100, 120]);
    expect(f.peakRssRatio).toBe(1.4);
    expect(f.mmPeakRssRatio).toBe(1.15);
    expect(f.mmMarginalMicrosPerOrder).toBe(100);
    expect(f.mmSecondHalfRatio).toBe(1.05);
    expect([f.ordersSmallest, f.ordersMiddle, f.ordersLargest, f.mmOrders]).toEqual([
      5_000, 30_000, 100_000, 200_000,
    ]);
    expect(() => ordersFigures(strategies.slice(0, 2), month, sparse)).toThrow(/three/);
  });
});
