import { describe, expect, it } from 'vitest';
import { dec, decSum, type Dec } from '../src/strategy/index.ts';
import {
  backtestConfig,
  DEFAULT_START_MS,
  describeIntent,
  hold,
  runStrategy,
  series,
} from '../src/strategy/testing/index.ts';
import meanReversion from './mean-reversion.ts';

const ETH = 'cmt_ethusdt';
const eth = (prices: readonly string[]) => series(prices, { symbol: ETH });
const W5 = { window: 5 };
/** Mean 3420, population σ = √0.4 ≈ 0.632 after the fifth tick. */
const WARM = ['3420', '3421', '3419', '3420', '3420'];

/** Mean of the `window` prices up to and including tick `i`. */
function meanAt(prices: readonly string[], i: number, window: number): Dec {
  const w = prices.slice(i - window + 1, i + 1).map((p) => dec(p));
  return decSum(w).div(w.length);
}

const tickIndex = (at: number) => (at - DEFAULT_START_MS) / 1_000;

describe('mean-reversion', () => {
  it('rests a buy at the lower band and a sell at the upper band once the window is full', async () => {
    const run = await runStrategy({ strategy: meanReversion, params: W5, ticks: eth(WARM) });
    // 3420 ∓ 2σ = 3418.735 / 3421.265: the buy rounds down, the sell up; 300 USDT → 0.087 ETH.
    expect(run.intents.map((i) => describeIntent(i.intent))).toEqual([
      'place open_long 0.087 @ 3418.73 postOnly #mr:buy',
      'place open_short 0.087 @ 3421.27 postOnly #mr:sell',
    ]);
    expect(tickIndex(run.intents[0]?.at ?? 0)).toBe(4);
  });

  it('exits at the mean after an entry fills, and cancels the other entry', async () => {
    const prices = [...WARM, '3418', '3418', '3418.5', '3419', '3419.5', ...hold('3420', 3)];
    const run = await runStrategy({ strategy: meanReversion, params: W5, ticks: eth(prices) });
    const [entry, other] = run.orders;
    expect(entry).toMatchObject({ side: 'open_long', tag: 'mr:buy', status: 'filled' });
    expect(other).toMatchObject({ side: 'open_short', tag: 'mr:sell', status: 'canceled' });
    const exits = run.orders.filter((o) => o.tag === 'mr:exit');
    expect(exits).toHaveLength(1);
    const exit = exits[0];
    expect(exit).toMatchObject({ side: 'close_long', orderType: 'normal', status: 'filled' });
    // The exit rests at the rolling mean of the tick it was placed on (rounded up to the tick).
    const mean = meanAt(prices, tickIndex(exit?.createdAt ?? 0), 5);
    expect(exit?.price?.toFixed()).toBe(mean.round(2, 3).toFixed());
    expect(run.summary.positions[ETH]).toEqual({ long: dec(0), short: dec(0) });
    expect(run.summary.realizedPnl.gt(0)).toBe(true);
    // Flat again: the entries are back.
    expect(
      run.orders
        .filter((o) => o.status === 'open')
        .map((o) => o.tag)
        .sort(),
    ).toEqual(['mr:buy', 'mr:sell']);
  });

  it('closes at market on the time stop when the exit has not filled after maxHoldMs', async () => {
    const prices = [...WARM, '3418', ...hold('3417', 10)];
    const run = await runStrategy({
      strategy: meanReversion,
      params: { ...W5, maxHoldMs: 5_000 },
      ticks: eth(prices),
    });
    const stop = run.orders.find((o) => o.tag === 'mr:stop');
    expect(stop).toMatchObject({ side: 'close_long', status: 'filled' });
    expect(stop?.price).toBeUndefined(); // a market order
    // The position was first seen when the entry's fill reached the strategy; the stop came
    // maxHoldMs later, after the resting exit had been cancelled.
    const firstExit = run.orders.find((o) => o.tag === 'mr:exit');
    expect((stop?.createdAt ?? 0) - (firstExit?.createdAt ?? 0)).toBeGreaterThanOrEqual(5_000);
    expect(run.orders.filter((o) => o.tag === 'mr:exit').every((o) => o.status === 'canceled')).toBe(true);
    expect(run.summary.positions[ETH]).toEqual({ long: dec(0), short: dec(0) });
    expect(run.summary.ordersRejected).toBe(0);
  });

  it('stays out while the window fills', async () => {
    const run = await runStrategy({
      strategy: meanReversion,
      params: { window: 30 },
      ticks: eth(hold('3420', 29)),
    });
    expect(run.intents).toEqual([]);
  });

  it('backtests config/mean-reversion.yaml: band entries, exits at the mean or on the time stop', async () => {
    const { record, summary } = await backtestConfig('config/mean-reversion.yaml');
    const filled = record.orders.filter((o) => o.filledQty.gt(0));
    expect(filled.filter((o) => o.tag === 'mr:buy' || o.tag === 'mr:sell').length).toBeGreaterThanOrEqual(2);
    expect(filled.filter((o) => o.tag === 'mr:exit' || o.tag === 'mr:stop').length).toBeGreaterThanOrEqual(2);
    expect(
      record.orders
        .filter((o) => o.tag === 'mr:buy' || o.tag === 'mr:sell')
        .every((o) => o.orderType === 'postOnly'),
    ).toBe(true);
    // Every entry that filled was closed again: as much bought as sold.
    const net = decSum(
      filled.map((o) =>
        o.side === 'open_long' || o.side === 'close_short' ? o.filledQty : o.filledQty.neg(),
      ),
    );
    expect(net.eq(0)).toBe(true);
    expect(summary.ordersRejected).toBe(0);
    expect(summary.responses429).toBe(0);
  });
});
