// starter: a capibot strategy plugin, started from the template of `capibot new-strategy`. A small
// but complete strategy: while flat it rests a post-only buy a little below the mid; once that fills
// it rests a take-profit sell above the entry price; a resting entry the market walked away from is
// replaced. Its test (the .test.ts file next to it) runs it through the real engine in virtual time.
//
// What to keep when you change it:
// - prices and sizes relative to the market (bps of the mid, a quote notional). Signals may be
//   floats (t.bid, t.ask, t.price are numbers); whatever becomes an order goes through
//   ctx.roundPrice / ctx.roundSize (or ctx.place), which snap it to the tick and step exactly;
//   money you count (entry prices, positions) stays exact (Dec);
// - decisions from the exchange's truth (ctx.position, ctx.openOrders), not from what you sent;
// - a bounded number of orders: here at most one entry or one exit at a time.
import { dec, defineStrategy, symbolId, z, type Intent } from '../../src/strategy/index.ts';

/** A decimal param: "2.5" or 2.5 in the config, an exact Dec in the strategy. */
const decimal = (def: string, description: string) =>
  z.coerce
    .string()
    .regex(/^\d+(?:\.\d+)?$/, { error: 'expected a non-negative decimal such as "2.5"' })
    .transform((s) => dec(s))
    .prefault(def)
    .describe(description);

export const params = z.strictObject({
  symbol: z.string().default('cmt_btcusdt').describe('Exchange symbol traded. Default: cmt_btcusdt.'),
  notional: decimal(
    '100',
    'Entry size as quote notional (USDT), rounded down to the size step. Default: 100.',
  ),
  entryOffsetBps: decimal('3', 'The entry rests this many basis points below the mid. Default: 3.'),
  takeProfitBps: decimal('3', 'The exit rests this many basis points above the entry price. Default: 3.'),
  refreshMs: z
    .number()
    .int()
    .positive()
    .default(10_000)
    .describe('A resting entry older than this is replaced (ms). Default: 10000.'),
});

const BPS = 10_000;

export default defineStrategy({
  name: 'starter',
  version: '0.1.0',
  description: 'Rests a post-only buy below the mid and a take-profit above the entry.',
  params,
  symbols: (p) => [p.symbol],
  create(ctx, p) {
    const symbol = symbolId(p.symbol);
    const { priceTick, minSize } = ctx.spec(symbol);

    return {
      onTicker: (t): Intent[] | undefined => {
        const open = ctx.openOrders(symbol);
        const pos = ctx.position(symbol);
        // A signal: floats are fine here. Snapped exactly below, before it becomes an order.
        const mid = (t.bid + t.ask) / 2;

        if (pos.long.gt(0)) {
          // In a position: exactly one take-profit exit. A plain limit (not post-only): if the
          // market is already above the target it fills at once instead of being refused.
          if (open.some((o) => o.side === 'close_long')) return;
          const entry = pos.longEntryPrice ?? t.last;
          const price = ctx.roundPrice(symbol, entry.times(p.takeProfitBps.plus(BPS)).div(BPS), 'up');
          const cancels = open
            .filter((o) => o.side === 'open_long' && o.status !== 'canceling')
            .map((o) => ctx.cancel(o));
          return [...cancels, ctx.place({ symbol, side: 'close_long', size: pos.long, price, tag: 'tp' })];
        }

        if (ctx.tradingState() !== 'ACTIVE') return; // only reducing orders pass when not ACTIVE
        const entryOrder = open.find((o) => o.side === 'open_long');
        if (entryOrder !== undefined) {
          // Replace a stale entry; the new one is placed once the cancel went through.
          const stale = ctx.now() - entryOrder.createdAt >= p.refreshMs;
          return stale && entryOrder.status !== 'canceling' ? [ctx.cancel(entryOrder)] : undefined;
        }
        if (open.length > 0) return; // an exit or a cancel is still on its way

        const size = ctx.roundSize(symbol, Number(p.notional) / mid, 'down');
        if (size.lt(minSize)) {
          ctx.log.warn({ notional: p.notional.toFixed() }, 'notional below the minimum size');
          return;
        }
        // Post-only never takes liquidity; keep it at least one tick below the best ask.
        const target = ctx.roundPrice(symbol, mid * (1 - Number(p.entryOffsetBps) / BPS), 'down');
        const maxBid = t.bestAsk.minus(priceTick);
        const price = target.gt(maxBid) ? maxBid : target;
        return [ctx.place({ symbol, side: 'open_long', size, price, orderType: 'postOnly', tag: 'entry' })];
      },
      onFill: (f) => {
        ctx.log.info({ side: f.side, size: f.size.toFixed(), price: f.price.toFixed() }, 'fill');
      },
    };
  },
});
