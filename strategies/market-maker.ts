// market-maker: post-only quotes on both sides of the mid, `levels` deep, skewed by inventory.
// Every ticker it computes the quotes it wants and converges the resting ones towards them: a quote
// whose price drifted by `requoteBps` or that is older than `maxQuoteAgeMs` is cancelled and its
// replacement placed in the same tick (the engine sends the cancels first and batches the
// placements, up to 20 per request).
//
// Inventory: the net position (long − short, from fills) shifts both quotes by up to `skewBps`
// (long inventory moves the quotes down, so the ask fills sooner and the bid later) and stops the
// opening side once `maxInventoryNotional` is reached. In hedge mode a bid first covers an open short
// (close_short) and an ask first sells an open long (close_long). When the risk gate's trading state
// is REDUCING only those reducing quotes stay; when HALTED every quote is cancelled.
//
// Quotes are post-only and never cross the book: a bid is at most ask − tick, an ask at least bid + tick.
import {
  z,
  decMax,
  decMin,
  defineStrategy,
  symbolId,
  ONE,
  type Dec,
  type Intent,
  type Order,
  type OrderSide,
  type SymbolId,
  type Ticker,
} from '../src/strategy/index.ts';
import { isReached, isWorking, midOf, shiftBps, sizeForNotional } from './lib/orders.ts';
import { decimalParam, intParam, symbolParam } from './lib/params.ts';

export const params = z.strictObject({
  symbol: symbolParam('cmt_ethusdt'),
  levels: intParam(2, 'Quotes on each side of the mid.', 1, 10),
  halfSpreadBps: decimalParam('2', 'Distance of the innermost quotes from the mid, in basis points.', {
    gt: '0',
  }),
  levelSpacingBps: decimalParam('2', 'Distance between quote levels on one side, in basis points.'),
  quoteNotional: decimalParam(
    '200',
    'Size of each quote as quote notional (USDT) at the mid, rounded down to the size step.',
    { gt: '0' },
  ),
  maxInventoryNotional: decimalParam(
    '1000',
    'Net position (USDT at the mid) at which the opening side stops quoting and the skew is full.',
    {
      gt: '0',
    },
  ),
  skewBps: decimalParam(
    '2',
    'Shift of all quotes at full inventory, in basis points, against the inventory.',
  ),
  requoteBps: decimalParam(
    '1',
    'A resting quote is replaced when its wanted price moved by at least this many basis points of the mid.',
    {
      gt: '0',
    },
  ),
  maxQuoteAgeMs: intParam(
    30_000,
    'A resting quote older than this is replaced (ms of clock time).',
    1,
    86_400_000,
  ),
});

export type MarketMakerParams = z.output<typeof params>;

interface Quote {
  readonly tag: string;
  readonly side: OrderSide;
  readonly size: Dec;
  readonly price: Dec;
}

const BPS = 10_000;

export default defineStrategy({
  name: 'market-maker',
  version: '1.0.0',
  description:
    'Post-only two-sided quotes around the mid with inventory skew; steps back when risk says REDUCING.',
  params,
  symbols: (p) => [p.symbol],
  create(ctx, p) {
    const symbol: SymbolId = symbolId(p.symbol);
    const tick = ctx.spec(symbol).priceTick;
    const cancelAsked = new Set<string>();

    const cancel = (o: Order): Intent => {
      cancelAsked.add(o.clientOid);
      return ctx.cancel(o);
    };

    /** The quotes wanted now. */
    const quotes = (t: Ticker): Quote[] => {
      const mid = midOf(t);
      const size = sizeForNotional(ctx, symbol, p.quoteNotional, mid);
      if (size === undefined) return [];
      const state = ctx.tradingState();
      if (state === 'HALTED') return [];
      const pos = ctx.position(symbol);
      const net = pos.long.minus(pos.short);
      const maxQty = p.maxInventoryNotional.div(mid);
      const ratio = decMax(ONE.neg(), decMin(ONE, net.div(maxQty)));
      const skew = ratio.times(p.skewBps).neg();
      const opening = state === 'ACTIVE';
      const out: Quote[] = [];
      // Room left for opening quotes on each side, and the open legs the reducing quotes may close.
      let longRoom = maxQty.minus(net);
      let shortRoom = maxQty.plus(net);
      let toCover = pos.short;
      let toSell = pos.long;
      for (let i = 0; i < p.levels; i++) {
        const away = p.halfSpreadBps.plus(p.levelSpacingBps.times(i));
        const bidPrice = decMin(
          ctx.roundPrice(symbol, shiftBps(mid, skew.minus(away)), 'down'),
          t.bestAsk.minus(tick),
        );
        const askPrice = decMax(
          ctx.roundPrice(symbol, shiftBps(mid, skew.plus(away)), 'up'),
          t.bestBid.plus(tick),
        );
        const bid = sideQuote(
          `mm:b${i}`,
          'close_short',
          'open_long',
          size,
          toCover,
          opening && longRoom.gte(size),
        );
        if (bid !== undefined && bidPrice.gt(0)) {
          out.push({ ...bid, price: bidPrice });
          if (bid.side === 'close_short') toCover = toCover.minus(bid.size);
          else longRoom = longRoom.minus(bid.size);
        }
        const ask = sideQuote(
          `mm:a${i}`,
          'close_long',
          'open_short',
          size,
          toSell,
          opening && shortRoom.gte(size),
        );
        if (ask !== undefined) {
          out.push({ ...ask, price: askPrice });
          if (ask.side === 'close_long') toSell = toSell.minus(ask.size);
          else shortRoom = shortRoom.minus(ask.size);
        }
      }
      return out;
    };

    /** A quote closes what is left of the opposite leg first (any size), else opens when allowed. */
    const sideQuote = (
      tag: string,
      reduce: OrderSide,
      open: OrderSide,
      size: Dec,
      reducible: Dec,
      mayOpen: boolean,
    ): Omit<Quote, 'price'> | undefined => {
      const closeSize = ctx.roundSize(symbol, decMin(size, reducible), 'down');
      if (closeSize.gt(0) && closeSize.gte(ctx.spec(symbol).minSize))
        return { tag, side: reduce, size: closeSize };
      return mayOpen ? { tag, side: open, size } : undefined;
    };

    /** Keeps fresh quotes, replaces stale ones (cancel + place in one tick), cancels unwanted ones. */
    const converge = (t: Ticker, want: readonly Quote[]): Intent[] => {
      const cancels: Intent[] = [];
      const places: Intent[] = [];
      const mine = ctx.openOrders(symbol).filter((o) => isWorking(o, cancelAsked));
      const tolerance = midOf(t).times(p.requoteBps).div(BPS);
      const now = ctx.now();
      for (const q of want) {
        const have = mine.filter((o) => o.tag === q.tag);
        // A quote the market has reached is left alone until reconciliation says what became of it.
        if (have.some((o) => isReached(o, t))) continue;
        const fresh = have.find(
          (o) =>
            o.side === q.side &&
            o.size.eq(q.size) &&
            o.price !== undefined &&
            o.price.minus(q.price).abs().lt(tolerance) &&
            now - o.createdAt < p.maxQuoteAgeMs,
        );
        for (const o of have) if (o !== fresh) cancels.push(cancel(o));
        if (fresh === undefined) {
          places.push(
            ctx.place({
              symbol,
              side: q.side,
              size: q.size,
              price: q.price,
              orderType: 'postOnly',
              tag: q.tag,
            }),
          );
        }
      }
      for (const o of mine)
        if (!want.some((q) => q.tag === o.tag) && !isReached(o, t)) cancels.push(cancel(o));
      return [...cancels, ...places];
    };

    return {
      onOrderUpdate: (o) => {
        if (o.status === 'filled' || o.status === 'canceled' || o.status === 'rejected')
          cancelAsked.delete(o.clientOid);
      },
      onTicker: (t) => {
        if (t.bestBid.lte(0) || t.bestAsk.lte(t.bestBid)) return;
        return converge(t, quotes(t));
      },
    };
  },
});
