import { describe, expect, it } from 'vitest';
import { dec, type Order } from '../src/strategy/index.ts';
import { readRecording } from '../src/market/recording/reader.ts';
import {
  backtestConfig,
  describeIntent,
  hold,
  runStrategy,
  series,
  strategyMarbles,
  type StrategyRun,
} from '../src/strategy/testing/index.ts';
import marketMaker from './market-maker.ts';

const ETH = 'cmt_ethusdt';
const SAMPLE = 'data/binance-btc-eth-20240719-1s.ndjson.gz';
const eth = (prices: readonly string[]) => series(prices, { symbol: ETH });
const buys = (o: Order) => o.side === 'open_long' || o.side === 'close_short';

/** Every order was post-only and, when it was placed, priced on its own side of the book. */
function expectNeverCrossing(run: StrategyRun): void {
  expect(run.orders.length).toBeGreaterThan(0);
  for (const o of run.orders) {
    expect(o.orderType).toBe('postOnly');
    const t = run.tickerAt(o.symbol, o.createdAt);
    expect(t).toBeDefined();
    if (t === undefined || o.price === undefined) continue;
    if (buys(o))
      expect(
        o.price.lt(t.bestAsk),
        `${o.clientOid} buys at ${o.price.toFixed()} with ask ${t.bestAsk.toFixed()}`,
      ).toBe(true);
    else
      expect(
        o.price.gt(t.bestBid),
        `${o.clientOid} sells at ${o.price.toFixed()} with bid ${t.bestBid.toFixed()}`,
      ).toBe(true);
  }
}

describe('market-maker', () => {
  it('quotes both sides of the mid, two levels deep, post-only, in one batch', async () => {
    const run = await runStrategy({ strategy: marketMaker, ticks: eth(hold('3420', 3)) });
    // Mid 3420: ±2 bps and ±4 bps, bids rounded down and asks up to the 0.01 tick; 200 USDT → 0.058 ETH.
    expect(run.intents.map((i) => describeIntent(i.intent))).toEqual([
      'place open_long 0.058 @ 3419.31 postOnly #mm:b0',
      'place open_short 0.058 @ 3420.69 postOnly #mm:a0',
      'place open_long 0.058 @ 3418.63 postOnly #mm:b1',
      'place open_short 0.058 @ 3421.37 postOnly #mm:a1',
    ]);
    expect(run.summary.requestsByEndpoint['batchOrders']).toBe(1);
  });

  it('replaces stale quotes in one tick: the cancels, then the new quotes as one batch', async () => {
    // The mid moves 1.5 bps (more than requoteBps, less than the half spread: no quote is reached).
    const run = await runStrategy({
      strategy: marketMaker,
      ticks: eth([...hold('3420', 2), ...hold('3420.5', 2)]),
    });
    const at = run.intents[4]?.at;
    const moved = run.intents.filter((i) => i.at === at).map((i) => describeIntent(i.intent));
    expect(moved.slice(0, 4).every((s) => s.startsWith('cancel '))).toBe(true);
    expect(moved.slice(4)).toEqual([
      'place open_long 0.058 @ 3419.81 postOnly #mm:b0',
      'place open_short 0.058 @ 3421.19 postOnly #mm:a0',
      'place open_long 0.058 @ 3419.13 postOnly #mm:b1',
      'place open_short 0.058 @ 3421.87 postOnly #mm:a1',
    ]);
    expect(run.summary.requestsByEndpoint['batchOrders']).toBe(2);
    expect(run.summary.requestsByEndpoint['cancelOrder']).toBe(4);
    // Quotes that did not move are left alone.
    expect(run.intents.filter((i) => i.at !== at && i.at !== run.intents[0]?.at)).toEqual([]);
  });

  it('skews its quotes against the inventory and sells it first (close_long)', async () => {
    // The bid at 3419.31 fills when the ask trades through it; then the strategy is long 0.058.
    const params = { skewBps: '4', maxInventoryNotional: '400' };
    const run = await runStrategy({
      strategy: marketMaker,
      params,
      ticks: eth([...hold('3420', 3), ...hold('3419', 3)]),
    });
    expect(run.orders[0]?.status).toBe('filled');
    const last = run.intents[run.intents.length - 1]?.at;
    const after = run.intents
      .filter((i) => i.at === last && i.intent.kind === 'place')
      .map((i) => describeIntent(i.intent));
    // Flat at mid 3419 the quotes would be 3418.31 / 3419.69; long 0.058 (≈ half the limit) moves
    // both down by ≈ 2 bps, and the inner ask closes the long instead of opening a short.
    expect(after).toEqual([
      'place open_long 0.058 @ 3417.63 postOnly #mm:b0',
      'place close_long 0.058 @ 3419.01 postOnly #mm:a0',
      'place open_short 0.058 @ 3419.69 postOnly #mm:a1',
    ]);
  });

  it('never crosses the book on a jumpy market (post-only quotes are always on their own side)', async () => {
    const jumpy = [
      '3420',
      '3421.5',
      '3419',
      '3419',
      '3423',
      '3418.2',
      '3418.2',
      '3420.7',
      '3417',
      '3422',
      '3422',
      '3416.4',
      '3419.9',
    ];
    const run = await runStrategy({ strategy: marketMaker, ticks: eth(jumpy) });
    expectNeverCrossing(run);
  });

  it('steps back when the risk gate says REDUCING: opening quotes cancelled, only the closing quote stays', async () => {
    // A tiny drawdown limit: the first fill's fee and mark-to-market move trading to REDUCING.
    const run = await runStrategy({
      strategy: marketMaker,
      config: {
        paper: { startingBalance: '1000' },
        risk: { drawdownReducePct: '0.001', drawdownHaltPct: '50' },
      },
      ticks: eth([...hold('3420', 3), ...hold('3419', 6)]),
    });
    const change = run.events.find((e) => e.kind === 'TradingStateChanged');
    expect(change).toMatchObject({ from: 'ACTIVE', to: 'REDUCING' });
    const since = change?.at ?? 0;
    const placedAfter = run.orders.filter((o) => o.createdAt >= since);
    expect(placedAfter.map((o) => o.side)).toEqual(['close_long']);
    expect(run.orders.filter((o) => o.side !== 'close_long' && o.status === 'open')).toEqual([]);
    // It stepped back by itself: the gate had nothing to refuse.
    expect(run.refusals).toEqual([]);
  });

  it('cancels everything and quotes nothing while HALTED (marble test)', () => {
    strategyMarbles(
      {
        strategy: marketMaker,
        state: { tradingState: () => 'HALTED' },
        assert: (a, e) => expect(a).toEqual(e),
      },
      (m) => {
        const tickers$ = m.tickers('-a-b-', { a: '3420', b: '3425' }, ETH);
        m.expectObservable(m.run({ tickers$ })).toBe('-----');
      },
    );
  });

  it('backtests config/market-maker.yaml: post-only, never crossing, inventory within its limit', async () => {
    const { record, summary } = await backtestConfig('config/market-maker.yaml');
    // The book at each poll of the recording, to check every quote against the book it was placed on.
    const books = new Map<number, { bid: string; ask: string }>();
    for await (const poll of readRecording(SAMPLE)) {
      const w = poll.tickers.find((x) => x.symbol === ETH);
      if (w !== undefined) books.set(poll.t, { bid: w.best_bid, ask: w.best_ask });
    }
    expect(record.orders.length).toBeGreaterThan(20);
    for (const o of record.orders) {
      expect(o.orderType).toBe('postOnly');
      const book = books.get(o.createdAt);
      expect(book, `no poll at ${o.createdAt}`).toBeDefined();
      if (book === undefined || o.price === undefined) continue;
      if (buys(o))
        expect(o.price.lt(book.ask), `${o.clientOid} buys at ${o.price.toFixed()} with ask ${book.ask}`).toBe(
          true,
        );
      else
        expect(
          o.price.gt(book.bid),
          `${o.clientOid} sells at ${o.price.toFixed()} with bid ${book.bid}`,
        ).toBe(true);
    }
    expect(summary.fills).toBeGreaterThanOrEqual(4);
    expect(summary.ordersCanceled).toBeGreaterThan(10); // stale quotes were replaced
    // The exchange refuses nothing: a close computed from a position whose closing fill history has
    // reported but fills not brought yet is capped by the framework (`closable_size`) instead of
    // meeting 40015 at the venue (issue #18). Quotes being canceled still count in the exposure
    // until history confirms the cancel, so the risk gate may hold a replacement back a moment.
    expect(summary.ordersRejected).toBe(0);
    expect(Object.keys(summary.rejectionsByReason).sort()).toEqual(['closable_size', 'position_notional']);
    expect(summary.rejectionsByReason['closable_size']).toBeLessThanOrEqual(2);
    expect(summary.responses429).toBe(0);
    // Net inventory stayed within maxInventoryNotional (1000 USDT) plus one quote.
    let net = dec(0);
    const sideOf = new Map(record.orders.map((o) => [o.clientOid as string, o.side]));
    for (const f of record.fills) {
      const side = sideOf.get(f.clientOid ?? '');
      net = side === 'open_long' || side === 'close_short' ? net.plus(f.size) : net.minus(f.size);
      expect(net.abs().times('3430').lte(dec('1200'))).toBe(true);
    }
  });
});
