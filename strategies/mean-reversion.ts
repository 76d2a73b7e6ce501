// mean-reversion: Bollinger-like bands around a rolling mean of the last price. While flat it rests
// a buy limit at the lower band and a sell limit at the upper band (re-quoted as the bands move);
// once an entry fills it cancels the other entry and rests an exit at the mean; if the exit has not
// filled after `maxHoldMs` a time stop closes the position at market.
//
// All prices derive from the recent prices (mean ± k standard deviations, rounded to the tick), all
// sizes from a quote notional at the current price. The position is read from ctx.position()
// (fills), never inferred from orders sent.
import {
  z,
  defineStrategy,
  symbolId,
  type Dec,
  type Intent,
  type Order,
  type OrderSide,
  type StrategyContext,
  type SymbolId,
  type Ticker,
} from '../src/strategy/index.ts';
import { RollingStats } from './lib/indicators.ts';
import { isReached, isWorking, sizeForNotional, UnsettledOrders } from './lib/orders.ts';
import { decimalParam, intParam, symbolParam } from './lib/params.ts';

export const params = z.strictObject({
  symbol: symbolParam('cmt_ethusdt'),
  window: intParam(
    30,
    'Number of tickers in the rolling window of the mean and the standard deviation.',
    2,
    100_000,
  ),
  bandWidth: decimalParam('2', 'Distance of the bands from the mean, in standard deviations.', { gt: '0' }),
  minBandBps: decimalParam(
    '1',
    'Lower bound of the band distance from the mean, in basis points (keeps entries outside the noise when prices stand still).',
  ),
  notional: decimalParam(
    '300',
    'Entry size as quote notional (USDT), converted at the current price and rounded down to the size step.',
    {
      gt: '0',
    },
  ),
  requoteBps: decimalParam(
    '1',
    'A resting entry or exit is replaced when its target price moved by at least this many basis points.',
    {
      gt: '0',
    },
  ),
  maxHoldMs: intParam(
    60_000,
    'Time stop: a position older than this is closed at market (ms of clock time).',
    1,
    86_400_000,
  ),
  postOnlyEntries: z
    .boolean()
    .default(true)
    .describe(
      'Entries are post-only (maker); a band inside the spread is clamped to the best price on its side. Default: true.',
    ),
});

export type MeanReversionParams = z.output<typeof params>;

const TAG = { buy: 'mr:buy', sell: 'mr:sell', exit: 'mr:exit', stop: 'mr:stop' } as const;

interface Wanted {
  readonly tag: string;
  readonly side: OrderSide;
  readonly size: Dec;
  readonly price: Dec;
  readonly postOnly: boolean;
}

export default defineStrategy({
  name: 'mean-reversion',
  version: '1.0.0',
  description: 'Band-extreme limit entries, exits at the rolling mean, and a time stop.',
  params,
  symbols: (p) => [p.symbol],
  create(ctx: StrategyContext, p: MeanReversionParams) {
    const symbol: SymbolId = symbolId(p.symbol);
    const stats = new RollingStats(p.window);
    const bandWidth = p.bandWidth.toNumber();
    const minBandBps = p.minBandBps.toNumber();
    const requoteBps = p.requoteBps.toNumber();
    const unsettled = new UnsettledOrders();
    const cancelAsked = new Set<string>();
    /** Clock time at which the current position was first seen; undefined while flat. */
    let heldSince: number | undefined;

    const working = (): Order[] => ctx.openOrders(symbol).filter((o) => isWorking(o, cancelAsked));
    const cancel = (o: Order): Intent => {
      cancelAsked.add(o.clientOid);
      return ctx.cancel(o);
    };

    /** Keeps each wanted order resting (replacing one whose price or size is off) and cancels the rest. */
    const converge = (t: Ticker, wanted: readonly Wanted[], mean: number): Intent[] => {
      const out: Intent[] = [];
      const mine = working();
      const tolerance = (mean * requoteBps) / 10_000;
      for (const w of wanted) {
        const have = mine.filter((o) => o.tag === w.tag);
        // An order the market has reached is left alone until reconciliation says what became of it.
        if (have.some((o) => isReached(o, t))) continue;
        const keep = have.find(
          (o) =>
            o.side === w.side &&
            o.size.eq(w.size) &&
            o.price !== undefined &&
            o.price.minus(w.price).abs().lt(tolerance),
        );
        for (const o of have) if (o !== keep) out.push(cancel(o));
        if (keep === undefined) {
          out.push(
            ctx.place({
              symbol,
              side: w.side,
              size: w.size,
              price: w.price,
              orderType: w.postOnly ? 'postOnly' : 'normal',
              tag: w.tag,
            }),
          );
        }
      }
      for (const o of mine) if (!wanted.some((w) => w.tag === o.tag) && !isReached(o, t)) out.push(cancel(o));
      return out;
    };

    return {
      onOrderUpdate: (o) => {
        unsettled.update(o);
        if (o.status === 'filled' || o.status === 'canceled' || o.status === 'rejected')
          cancelAsked.delete(o.clientOid);
      },
      onTicker: (t) => {
        stats.push(t.price);
        if (!stats.full) return;
        const state = ctx.tradingState();
        if (state === 'HALTED') return;
        // A finished order whose fills are still on their way: the position is about to change.
        if (unsettled.awaitingFills(symbol)) return;

        // Signals in floats; every price below is snapped to the tick by ctx.roundPrice.
        const mean = stats.mean();
        const width = bandWidth * stats.stdDev();
        const minWidth = (mean * minBandBps) / 10_000;
        const half = Math.max(width, minWidth);
        const pos = ctx.position(symbol);

        if (pos.long.eq(0) && pos.short.eq(0)) {
          heldSince = undefined;
          if (state !== 'ACTIVE') return converge(t, [], mean);
          const lower = ctx.roundPrice(symbol, mean - half, 'down');
          const upper = ctx.roundPrice(symbol, mean + half, 'up');
          // A post-only order must not cross: clamp to the best price on its own side.
          const buyAt = p.postOnlyEntries && lower.gte(t.bestAsk) ? t.bestBid : lower;
          const sellAt = p.postOnlyEntries && upper.lte(t.bestBid) ? t.bestAsk : upper;
          const size = sizeForNotional(ctx, symbol, p.notional, t.last);
          if (size === undefined) return converge(t, [], mean);
          return converge(
            t,
            [
              { tag: TAG.buy, side: 'open_long', size, price: buyAt, postOnly: p.postOnlyEntries },
              { tag: TAG.sell, side: 'open_short', size, price: sellAt, postOnly: p.postOnlyEntries },
            ],
            mean,
          );
        }

        // In a position: exit at the mean, or at market once the time stop is reached.
        heldSince ??= ctx.now();
        const long = pos.long.gt(0);
        const side: OrderSide = long ? 'close_long' : 'close_short';
        const size = long ? pos.long : pos.short;
        if (ctx.now() - heldSince >= p.maxHoldMs) {
          const open = ctx.openOrders(symbol);
          if (open.some((o) => o.tag === TAG.stop)) return;
          // Cancel the exit first: while it works it holds the position, and a close beyond the
          // position is refused. The market close goes once nothing else is open.
          if (open.length > 0) return converge(t, [], mean);
          ctx.log.info({ heldMs: ctx.now() - heldSince }, 'time stop');
          return ctx.place({ symbol, side, size, tag: TAG.stop });
        }
        // Exit price: the mean, but never worse than where the market already is.
        const exitAt = long ? ctx.roundPrice(symbol, mean, 'up') : ctx.roundPrice(symbol, mean, 'down');
        const price = long
          ? exitAt.lt(t.bestBid)
            ? t.bestBid
            : exitAt
          : exitAt.gt(t.bestAsk)
            ? t.bestAsk
            : exitAt;
        return converge(t, [{ tag: TAG.exit, side, size, price, postOnly: false }], mean);
      },
    };
  },
});
