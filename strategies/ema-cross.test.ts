import { describe, expect, it } from 'vitest';
import { dec } from '../src/strategy/index.ts';
import {
  backtestConfig,
  describeOrder,
  hold,
  ramp,
  runStrategy,
  series,
  strategyMarbles,
} from '../src/strategy/testing/index.ts';
import emaCross, { params } from './ema-cross.ts';

const BTC = 'cmt_btcusdt';
const FAST = { fastPeriod: 2, slowPeriod: 4, minGapBps: 0 };
/** Flat, up 100 (a cross up), flat, down 150 (a cross down), flat. */
const UP_THEN_DOWN = [
  ...hold('64000', 6),
  ...ramp('64000', '64100', 6, '0.1'),
  ...hold('64100', 4),
  ...ramp('64100', '63950', 6, '0.1'),
  ...hold('63950', 4),
];

describe('ema-cross', () => {
  it('enters long with an IOC through the ask on a cross up, then flips short in one tick on a cross down', async () => {
    const run = await runStrategy({ strategy: emaCross, params: FAST, ticks: series(UP_THEN_DOWN) });
    expect(run.disabled).toBeUndefined();
    expect(run.orders.map(describeOrder)).toEqual([
      // 500 USDT at 64020 → 0.0078 BTC (rounded down to the 0.0001 step); ask 64020.1 + 5 ticks.
      'open_long 0.0078 @ 64020.6 ioc #ema:open → filled 0.0078',
      'close_long 0.0078 @ 64069.4 ioc #ema:close → filled 0.0078',
      'open_short 0.0078 @ 64069.4 ioc #ema:open → filled 0.0078',
    ]);
    const [entry, close, flip] = run.orders;
    expect(close?.createdAt).toBe(flip?.createdAt); // the flip is one batch
    expect(entry?.createdAt).toBeLessThan(close?.createdAt ?? 0);
    // IOC limits fill as taker at the best opposite price, not at the limit: ask 64020.1, bid 64069.9.
    expect(run.fills.map((f) => `${f.side} ${f.price.toFixed()}`)).toEqual([
      'open_long 64020.1',
      'close_long 64069.9',
      'open_short 64069.9',
    ]);
    expect(run.summary.positions[BTC]).toEqual({ long: dec(0), short: dec('0.0078') });
    expect(run.summary.realizedPnl.toFixed()).toBe(dec('64069.9').minus('64020.1').times('0.0078').toFixed());
    expect(run.summary.refusals).toEqual({});
  });

  it('sends market orders when execution is `market`, and only goes flat on a cross down when shorting is off', async () => {
    const run = await runStrategy({
      strategy: emaCross,
      params: { ...FAST, execution: 'market', allowShort: false },
      ticks: series(UP_THEN_DOWN),
      config: { paper: { slippageBps: '0' } },
    });
    expect(run.orders.map(describeOrder)).toEqual([
      'open_long 0.0078 market #ema:open → filled 0.0078',
      'close_long 0.0078 market #ema:close → filled 0.0078',
    ]);
    expect(run.fills.map((f) => f.price.toFixed())).toEqual(['64020.1', '64069.9']);
    expect(run.summary.positions[BTC]).toEqual({ long: dec(0), short: dec(0) });
  });

  it('closes on the protective stop while the trend has not crossed, and does not re-enter until the next cross', async () => {
    // A slow drift down keeps the EMAs within the 1 bps hysteresis: only the stop can close.
    const prices = [
      ...hold('64000', 6),
      ...ramp('64000', '64100', 6, '0.1'),
      ...hold('64100', 4),
      ...ramp('64100', '63900', 70, '0.1'),
      ...hold('63900', 4),
    ];
    const run = await runStrategy({
      strategy: emaCross,
      params: { ...FAST, minGapBps: 1, stopLossPct: '0.1' },
      ticks: series(prices),
    });
    expect(run.orders.map((o) => `${o.side} #${o.tag ?? ''} ${o.status}`)).toEqual([
      'open_long #ema:open filled',
      'close_long #ema:stop filled',
    ]);
    const entry = run.fills[0]?.price ?? dec(0);
    const stop = run.orders[1];
    const seen = run.tickerAt(BTC, stop?.createdAt ?? 0)?.last ?? dec(0);
    // Triggered at the first price 0.1 % below the entry, not earlier.
    expect(seen.lte(entry.times('0.999'))).toBe(true);
    const before = run.tickerAt(BTC, (stop?.createdAt ?? 0) - 1_000)?.last ?? dec(0);
    expect(before.gt(entry.times('0.999'))).toBe(true);
  });

  it('does nothing during warm-up and on a flat market', async () => {
    const run = await runStrategy({ strategy: emaCross, params: FAST, ticks: series(hold('64000', 20)) });
    expect(run.intents).toEqual([]);
  });

  it('rejects inconsistent params with a readable error', () => {
    const r = params.safeParse({ fastPeriod: 10, slowPeriod: 5 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('fastPeriod must be smaller than slowPeriod');
    expect(params.safeParse({ notional: '-1' }).success).toBe(false);
    expect(params.parse({ notional: 250 }).notional.toFixed()).toBe('250');
  });

  it('emits the entry in the frame of the cross (marble test, flat position)', () => {
    strategyMarbles(
      {
        strategy: emaCross,
        params: { ...FAST, execution: 'market' },
        assert: (a, e) => expect(a).toEqual(e),
      },
      (m) => {
        const tickers$ = m.tickers('-a-a-a-a-a-b-c-', { a: '64000', b: '64050', c: '64100' });
        m.expectObservable(m.run({ tickers$ })).toBe('-----------x---', {
          x: 'place open_long 0.0078 market #ema:open',
        });
      },
    );
  });

  it('trades the bundled 5-minute sample with its defaults: the `npm start` backtest (config/example.yaml)', async () => {
    const { record, summary } = await backtestConfig('config/example.yaml');
    expect(record.run.tickers).toBe(300);
    expect(summary.fills).toBeGreaterThanOrEqual(4);
    // Flips: a close and an opposite open placed in the same tick.
    const orders = [...record.orders].sort((a, b) => a.createdAt - b.createdAt);
    const flips = orders.filter(
      (o, i) =>
        o.side.startsWith('close') &&
        orders[i + 1]?.createdAt === o.createdAt &&
        orders[i + 1]?.side.startsWith('open'),
    );
    expect(flips.length).toBeGreaterThanOrEqual(1);
    expect(summary.ordersRejected).toBe(0);
    expect(summary.rejectionsByReason).toEqual({});
    expect(summary.responses429).toBe(0);
  });

  it('backtests config/ema-cross.yaml: taker entries only, one position at a time', async () => {
    const { record, summary } = await backtestConfig('config/ema-cross.yaml');
    expect(summary.fills).toBeGreaterThanOrEqual(4);
    expect(record.orders.every((o) => o.orderType === 'ioc')).toBe(true);
    expect(record.orders.every((o) => o.status === 'filled')).toBe(true);
    // Never more than one entry's size open: every open is followed by its close before the next open.
    let open = 0;
    for (const o of [...record.orders].sort(
      (a, b) => a.createdAt - b.createdAt || (a.side.startsWith('close') ? -1 : 1),
    )) {
      open += o.side.startsWith('open') ? 1 : -1;
      expect(open).toBeLessThanOrEqual(1);
    }
    expect(summary.ordersRejected).toBe(0);
  });
});
