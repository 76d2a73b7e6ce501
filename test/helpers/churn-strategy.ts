// An order-heavy strategy for memory tests (test/engine/bounded-memory.property.test.ts): on every
// ticker it places and cancels without pause, so a run of a few thousand polls makes 100 k orders
// and walks every path an order can take.
//
//   quotes   resting limit orders `quoteGap` ticks outside the book, bids and asks alternately, each
//            canceled once it has rested `restTicks` tickers (a cancel_order; some fill first)
//   far      immediate-or-cancel orders 100 bps outside the book: accepted, canceled by the venue
//   take     one marketable immediate-or-cancel open (a fill); every `protectEvery`-th carries a
//            stop-loss (a plan order the engine places once the fill is in, cancels once flat)
//   closes   every leg the strategy holds is closed at once by a marketable immediate-or-cancel close
//
// It holds at most quotes × restTicks resting quotes and its stop-losses: the open orders stay few
// whatever the run's length, which is what lets a test hold memory to them.
import { dec, type Dec } from '../../src/core/decimal.ts';
import type { Intent } from '../../src/core/intents.ts';
import type { Ticker } from '../../src/core/market.ts';
import { defineStrategy, z } from '../../src/strategy/index.ts';
import type { StrategyContext } from '../../src/strategy/types.ts';

export const churnParams = z.strictObject({
  symbols: z.array(z.string()).min(1).default(['cmt_btcusdt']),
  quotes: z.number().int().min(0).max(8).default(2),
  restTicks: z.number().int().min(1).max(8).default(2),
  quoteGap: z.number().int().min(1).max(1_000).default(20),
  far: z.number().int().min(0).max(16).default(4),
  take: z.boolean().default(true),
  /** 0: never. */
  protectEvery: z.number().int().min(0).default(0),
});

export type ChurnParams = z.infer<typeof churnParams>;

const QUOTE = 'q:';
const FAR_BELOW = dec('0.99');
const FAR_ABOVE = dec('1.01');
const TAKE_BELOW = dec('0.995');
const TAKE_ABOVE = dec('1.005');
const STOP_BELOW = dec('0.9');
const STOP_ABOVE = dec('1.1');

export default defineStrategy({
  name: 'churn',
  version: '1',
  description: 'Places and cancels orders on every ticker (memory tests).',
  params: churnParams,
  symbols: (p) => p.symbols,
  create: (ctx, p) => {
    const ticks = new Map<string, number>();
    return {
      onTicker: (t) => {
        const n = (ticks.get(t.symbol) ?? 0) + 1;
        ticks.set(t.symbol, n);
        return [...stale(ctx, t, n, p), ...closes(ctx, t), ...opens(ctx, t, n, p)];
      },
    };
  },
});

/** Cancels of the quotes that have rested `restTicks` tickers (their tag holds the ticker number). */
function stale(ctx: StrategyContext, t: Ticker, n: number, p: ChurnParams): Intent[] {
  const out: Intent[] = [];
  for (const o of ctx.openOrders(t.symbol)) {
    if (o.status === 'canceling' || o.tag?.startsWith(QUOTE) !== true) continue;
    const placedAt = Number(o.tag.slice(QUOTE.length).split(':')[0]);
    if (n - placedAt >= p.restTicks) out.push(ctx.cancel(o));
  }
  return out;
}

/** Closes every leg held, at a marketable price (the close cap shrinks what is already closing). */
function closes(ctx: StrategyContext, t: Ticker): Intent[] {
  const pos = ctx.position(t.symbol);
  const out: Intent[] = [];
  if (pos.long.gt(0))
    out.push(
      ctx.place({
        symbol: t.symbol,
        side: 'close_long',
        size: pos.long,
        price: ctx.roundPrice(t.symbol, t.bestBid.times(TAKE_BELOW), 'down'),
        orderType: 'ioc',
      }),
    );
  if (pos.short.gt(0))
    out.push(
      ctx.place({
        symbol: t.symbol,
        side: 'close_short',
        size: pos.short,
        price: ctx.roundPrice(t.symbol, t.bestAsk.times(TAKE_ABOVE), 'up'),
        orderType: 'ioc',
      }),
    );
  return out;
}

function opens(ctx: StrategyContext, t: Ticker, n: number, p: ChurnParams): Intent[] {
  const spec = ctx.spec(t.symbol);
  const size = spec.minSize;
  const out: Intent[] = [];
  for (let i = 0; i < p.quotes; i++) {
    const buy = (n + i) % 2 === 0;
    const gap = spec.priceTick.times(p.quoteGap * (1 + Math.floor(i / 2)));
    out.push(
      ctx.place({
        symbol: t.symbol,
        side: buy ? 'open_long' : 'open_short',
        size,
        price: buy ? t.bestBid.minus(gap) : t.bestAsk.plus(gap),
        // Unique per quote: the executor supersedes queued placements sharing a tag.
        tag: `${QUOTE}${n}:${i}`,
      }),
    );
  }
  /** An immediate-or-cancel open of the minimum size at `price`, with its stop-loss if given. */
  const ioc = (buy: boolean, price: Dec, stopLoss?: Dec): Intent =>
    ctx.place({
      symbol: t.symbol,
      side: buy ? 'open_long' : 'open_short',
      size,
      price,
      orderType: 'ioc',
      ...(stopLoss !== undefined ? { stopLoss } : {}),
    });
  /** `below` rounded down for a buy, `above` rounded up for a sell. */
  const outward = (buy: boolean, below: Dec, above: Dec): Dec =>
    buy ? ctx.roundPrice(t.symbol, below, 'down') : ctx.roundPrice(t.symbol, above, 'up');
  for (let i = 0; i < p.far; i++) {
    const buy = i % 2 === 0;
    out.push(ioc(buy, outward(buy, t.bestBid.times(FAR_BELOW), t.bestAsk.times(FAR_ABOVE))));
  }
  if (p.take) {
    const buy = n % 2 === 0;
    // Marketable: a buy above the ask, a sell below the bid (rounded away from the book).
    const price = buy
      ? ctx.roundPrice(t.symbol, t.bestAsk.times(TAKE_ABOVE), 'up')
      : ctx.roundPrice(t.symbol, t.bestBid.times(TAKE_BELOW), 'down');
    const protect = p.protectEvery > 0 && n % p.protectEvery === 0;
    out.push(
      ioc(buy, price, protect ? outward(buy, t.last.times(STOP_BELOW), t.last.times(STOP_ABOVE)) : undefined),
    );
  }
  return out;
}
