// Tests of the starter strategy, run by `npx vitest run`. runStrategy replays ticks in virtual time
// through the real engine, risk gate and simulator: what passes here behaves the same in a backtest.
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/strategy/index.ts';
import { describeOrder, hold, runStrategy, series } from '../../src/strategy/testing/index.ts';
import strategy from './starter.ts';

describe('starter', () => {
  it('buys a dip below the mid, then takes profit above the entry', async () => {
    // One tick per second: steady at 64000, a dip to 63970, a rise to 64010.
    const ticks = series([...hold('64000', 3), ...hold('63970', 5), ...hold('64010', 6)], {
      symbol: 'cmt_btcusdt',
    });
    const run = await runStrategy({ strategy, params: { symbol: 'cmt_btcusdt', notional: '100' }, ticks });

    expect(run.disabled).toBeUndefined();
    expect(run.orders.slice(0, 2).map(describeOrder)).toEqual([
      // 3 bps below the mid of 64000, rounded down to the 0.1 tick; 100 USDT → 0.0015 BTC.
      'open_long 0.0015 @ 63980.8 postOnly #entry → filled 0.0015',
      // 3 bps above the entry price, rounded up.
      'close_long 0.0015 @ 64000 #tp → filled 0.0015',
    ]);
    expect(run.summary.positions['cmt_btcusdt']).toEqual({ long: dec(0), short: dec(0) });
    expect(run.summary.realizedPnl.toFixed()).toBe('0.0288');
    expect(run.summary.refusals).toEqual({});
  });

  it('places nothing when the notional is below the minimum size', async () => {
    const run = await runStrategy({
      strategy,
      params: { symbol: 'cmt_btcusdt', notional: '1' },
      ticks: series(hold('64000', 3)),
    });
    expect(run.intents).toEqual([]);
  });
});
