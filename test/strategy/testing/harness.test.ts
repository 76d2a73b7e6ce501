// The strategy test harness itself: inline ticks and recordings through the real engine and simulator,
// deterministic results, what it reports about refusals, disabled strategies and the kill switch,
// and the marble helpers on a stream-style (RxJS) strategy.
import { filter, map, pairwise } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { BadInputError, ConfigError } from '../../../src/core/errors.ts';
import { isTerminal } from '../../../src/core/orders.ts';
import {
  dec,
  defineStrategy,
  symbolId,
  z,
  type Intent,
  type StrategyContext,
} from '../../../src/strategy/index.ts';
import {
  DEFAULT_START_MS,
  describeIntent,
  describeOrder,
  hold,
  ramp,
  runStrategy,
  series,
  strategyMarbles,
  toPolls,
} from '../../../src/strategy/testing/index.ts';

const BTC = 'cmt_btcusdt';
const ETH = 'cmt_ethusdt';

/** Buys 0.001 BTC at market on every tick whose last ends in 5 (a simple, countable behaviour). */
const buyOnFives = defineStrategy({
  name: 'buy-on-fives',
  version: '0',
  params: z.object({ size: z.string().default('0.001') }),
  symbols: () => [BTC],
  create: (ctx: StrategyContext, p) => ({
    onTicker: (t) =>
      t.last.toFixed().endsWith('5')
        ? ctx.place({ symbol: BTC, side: 'open_long', size: p.size, tag: 'five' })
        : undefined,
  }),
});

/** Stream style: a place whenever the last price rises through 100 (RxJS operators on tickers$). */
const breakout = defineStrategy({
  name: 'breakout',
  version: '0',
  params: z.object({}),
  symbols: () => [ETH],
  create: (ctx) => ({
    run: ({ tickers$ }) =>
      tickers$.pipe(
        pairwise(),
        filter(([a, b]) => a.last.lte(100) && b.last.gt(100)),
        map(([, b]): Intent =>
          ctx.place({
            symbol: ETH,
            side: 'open_long',
            size: '0.01',
            price: b.bestAsk,
            orderType: 'ioc',
            tag: 'breakout',
          }),
        ),
      ),
  }),
});

describe('runStrategy', () => {
  it('replays inline ticks through the engine and the simulator: orders, fills, summary', async () => {
    const run = await runStrategy({
      strategy: buyOnFives,
      ticks: series(['64000', '64005', '64010', '64015']),
    });
    expect(run.orders.map(describeOrder)).toEqual([
      'open_long 0.001 market #five → filled 0.001',
      'open_long 0.001 market #five → filled 0.001',
    ]);
    expect(run.fills).toHaveLength(2);
    // Market orders fill at the ask (last + one tick) plus the config's default 1 bps slippage,
    // rounded up to the tick (against the taker): 64005.1 × 1.0001 = 64011.501 → 64011.6.
    expect(run.fills.map((f) => f.price.toFixed())).toEqual(['64011.6', '64021.6']);
    expect(run.summary).toMatchObject({
      ticks: 4,
      ordersPlaced: 2,
      ordersFilled: 2,
      fills: 2,
      rateLimited: 0,
      tradingState: 'ACTIVE',
    });
    expect(run.summary.positions[BTC]?.long.toFixed()).toBe('0.002');
    expect(run.summary.requestsByEndpoint['tickers']).toBe(4); // every poll goes through the weight budget
    expect(run.tickerAt(BTC, run.orders[0]?.createdAt ?? 0)?.last.toFixed()).toBe('64005');
  });

  it('hands a strategy its order updates and fills frozen, one object per order change, the one ctx.openOrders() lists', async () => {
    const seen: { orders: unknown[]; fills: unknown[] } = { orders: [], fills: [] };
    const listed: boolean[] = [];
    const watching = defineStrategy({
      name: 'watching',
      version: '0',
      params: z.object({}),
      symbols: () => [BTC],
      create: (ctx: StrategyContext) => ({
        onTicker: (t) =>
          t.last.toFixed().endsWith('5')
            ? ctx.place({ symbol: BTC, side: 'open_long', size: '0.001' })
            : undefined,
        onOrderUpdate: (o) => {
          seen.orders.push(o);
          // While the order is open, ctx.openOrders() lists this very object.
          if (!isTerminal(o.status)) listed.push(ctx.openOrders().includes(o));
        },
        onFill: (f) => {
          seen.fills.push(f);
        },
      }),
    });
    await runStrategy({ strategy: watching, ticks: series(['64000', '64005', '64010']) });
    expect(seen.fills).toHaveLength(1);
    expect(seen.orders.length).toBeGreaterThanOrEqual(2);
    for (const x of [...seen.orders, ...seen.fills]) expect(Object.isFrozen(x)).toBe(true);
    // Each update is its own object (an order's revisions are never edited in place).
    expect(new Set(seen.orders).size).toBe(seen.orders.length);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every(Boolean)).toBe(true);
    expect(() => {
      (seen.orders[0] as { status: string }).status = 'canceled';
    }).toThrow(TypeError);
  });

  it('is deterministic: the same inputs give the same orders, fills and events', async () => {
    const go = () => runStrategy({ strategy: buyOnFives, ticks: series(ramp('64000', '64100', 30, '5')) });
    const [a, b] = await Promise.all([go(), go()]);
    expect(b.orders).toEqual(a.orders);
    expect(b.fills).toEqual(a.fills);
    expect(b.events.map((e) => `${e.kind}@${e.at}`)).toEqual(a.events.map((e) => `${e.kind}@${e.at}`));
  });

  it('replays a recording by path', async () => {
    const run = await runStrategy({
      strategy: buyOnFives,
      ticks: 'data/binance-btc-eth-20240719-1s.ndjson.gz',
      params: {},
    });
    expect(run.summary.ticks).toBe(300);
    expect(run.summary.firstTickTime).toBe(1_721_347_203_000);
    expect(run.summary.ordersPlaced).toBeGreaterThan(0);
  });

  it('reports risk refusals with their reasons', async () => {
    const run = await runStrategy({ strategy: buyOnFives, params: { size: '1' }, ticks: series(['64005']) });
    expect(run.orders).toEqual([]);
    expect(run.refusals.map((r) => r.reason)).toEqual(['order_notional']);
    expect(run.summary.refusals).toEqual({ order_notional: 1 });
  });

  it('meets 429s when the simulator allows less weight than the budget (simLimits), and none otherwise', async () => {
    const ticks = series(hold('64005', 12));
    const venue = await runStrategy({ strategy: buyOnFives, ticks });
    expect(venue.summary.rateLimited).toBe(0);
    // A tickers read weighs 40: the simulator now takes one per 10 s, the budget still sends one a second.
    const tight = await runStrategy({ strategy: buyOnFives, ticks, simLimits: { ipWeightPerWindow: 45 } });
    expect(tight.summary.rateLimited).toBeGreaterThan(0);
  });

  it('honours config sections exactly as a config file writes them, and refuses bad ones', async () => {
    const run = await runStrategy({
      strategy: buyOnFives,
      params: { size: '1' },
      config: { risk: { maxOrderNotional: '100000', maxPositionNotional: '100000' } },
      ticks: series(['64005']),
    });
    expect(run.summary.ordersFilled).toBe(1);
    await expect(
      runStrategy({ strategy: buyOnFives, config: { risk: { maxOpenOrders: 0 } }, ticks: series(['64005']) }),
    ).rejects.toThrow(ConfigError);
  });

  it('reports a strategy that throws as disabled, and cancels its orders', async () => {
    const flaky = defineStrategy({
      name: 'flaky',
      version: '0',
      params: z.object({}),
      symbols: () => [BTC],
      create: (ctx) => {
        let n = 0;
        return {
          onTicker: (t) => {
            n++;
            if (n === 3) throw new Error('boom');
            return n === 1
              ? ctx.place({
                  symbol: BTC,
                  side: 'open_long',
                  size: '0.001',
                  price: t.last.minus(50),
                  orderType: 'postOnly',
                })
              : undefined;
          },
        };
      },
    });
    const run = await runStrategy({ strategy: flaky, ticks: series(hold('64000', 5)) });
    expect(run.disabled?.reason).toMatch(
      /^onTicker threw boom \(test\/strategy\/testing\/harness\.test\.ts:\d+:\d+\)$/,
    );
    expect(run.orders.map((o) => o.status)).toEqual(['canceled']);
  });

  it('lets a test pull the kill switch between ticks', async () => {
    const run = await runStrategy({
      strategy: buyOnFives,
      ticks: series(['64005', '64015', '64025']),
      beforeTick: (poll, c) => {
        if (poll.t > DEFAULT_START_MS) c.killSwitch('test');
      },
    });
    expect(run.summary.tradingState).toBe('HALTED');
    expect(run.orders).toHaveLength(1);
    expect(run.refusals.map((r) => r.reason)).toEqual(['halted', 'halted']);
  });
});

describe('inline ticks', () => {
  const opts = {
    startMs: 1_000,
    stepMs: 1_000,
    defaultSymbol: BTC,
    tickOf: (s: string) => (s === BTC ? '0.1' : '0.01'),
  };

  it('put ticks of one time in one poll, with bid and ask a tick either side of last by default', () => {
    const polls = toPolls(
      [{ at: 0, last: '64000' }, { at: 0, symbol: ETH, last: '3420', bid: '3419.5' }, { last: '64001' }],
      opts,
    );
    expect(
      polls.map((p) => [p.t, p.tickers.map((w) => `${w.symbol} ${w.best_bid}/${w.last}/${w.best_ask}`)]),
    ).toEqual([
      [1_000, ['cmt_btcusdt 63999.9/64000/64000.1', 'cmt_ethusdt 3419.5/3420/3420.01']],
      [2_000, ['cmt_btcusdt 64000.9/64001/64001.1']],
    ]);
  });

  it('refuse floats, times going backwards and a symbol twice in one poll', () => {
    expect(() => toPolls([{ last: 64000.5 as unknown as string }], opts)).toThrow(BadInputError);
    expect(() =>
      toPolls(
        [
          { at: 5, last: '1' },
          { at: 4, last: '1' },
        ],
        opts,
      ),
    ).toThrow(/backwards/);
    expect(() =>
      toPolls(
        [
          { at: 0, last: '1' },
          { at: 0, last: '2' },
        ],
        opts,
      ),
    ).toThrow(/twice/);
  });

  it('ramp rounds every step to the tick', () => {
    expect(ramp('100', '101', 4, '0.25')).toEqual(['100', '100.25', '100.75', '101']);
    expect(dec(ramp('64000', '63000', 3, '0.1')[1] ?? '0').toFixed()).toBe('63500');
  });
});

describe('strategyMarbles', () => {
  it('tests a stream-style strategy frame by frame on the real host', () => {
    strategyMarbles({ strategy: breakout, assert: (a, e) => expect(a).toEqual(e) }, (m) => {
      const tickers$ = m.tickers('-a-b-c-b-c-', { a: '99', b: '100', c: '100.5' });
      m.expectObservable(m.run({ tickers$ })).toBe('-----x---x-', {
        x: describeIntent({
          kind: 'place',
          symbol: symbolId(ETH),
          side: 'open_long',
          size: dec('0.01'),
          price: dec('100.51'),
          orderType: 'ioc',
          tag: 'breakout',
        }),
      });
    });
  });

  it('shows a strategy the host disables (an invalid intent) as `disabled: <reason>`', () => {
    const bad = defineStrategy({
      name: 'bad',
      version: '0',
      params: z.object({}),
      symbols: () => [BTC],
      create: (ctx) => ({ onTicker: () => ctx.place({ symbol: BTC, side: 'open_long', size: '0.00001' }) }),
    });
    strategyMarbles({ strategy: bad, assert: (a, e) => expect(a).toEqual(e) }, (m) => {
      const out: string[] = [];
      m.run({ tickers$: m.tickers('-a-', { a: '64000' }) }).subscribe((s) => out.push(s));
      m.flush();
      expect(out).toHaveLength(1);
      expect(out[0]).toMatch(/^disabled: .*size 0\.00001 is not a multiple of 0\.0001/);
    });
  });
});
