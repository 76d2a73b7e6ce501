// ema-cross: momentum on one symbol. A fast EMA of the last price crossing above a slow one means
// "be long", crossing below means "be short" (or flat when shorting is off). Entries are taker
// orders (IOC limit a few ticks through the book, or market); on a cross the strategy closes the
// opposite leg and opens the new one in the same tick (a position flip). A protective stop closes the
// position when the price moves `stopLossPct` against its entry; after a stop the strategy waits for
// the next cross.
//
// Everything is relative to the market: sizes are a quote notional converted at the current price,
// IOC prices are ticks away from the best price, the stop is a percentage of the entry price.
// Position sizes come from ctx.position() (fills, i.e. exchange truth), never from what the strategy
// believes it sent; while one of its orders is working or its fills have not all arrived, it waits.
import {
  z,
  defineStrategy,
  symbolId,
  type Dec,
  type Intent,
  type StrategyContext,
  type SymbolId,
  type Ticker,
} from '../src/strategy/index.ts';
import { Ema } from './lib/indicators.ts';
import { sizeForNotional, UnsettledOrders } from './lib/orders.ts';
import { decimalParam, intParam, symbolParam } from './lib/params.ts';

export const params = z
  .strictObject({
    symbol: symbolParam('cmt_btcusdt'),
    fastPeriod: intParam(4, 'Period of the fast EMA, in tickers (one per poll).', 1, 10_000),
    slowPeriod: intParam(12, 'Period of the slow EMA, in tickers; must exceed fastPeriod.', 2, 100_000),
    minGapBps: decimalParam(
      '0.5',
      'Hysteresis: the EMAs must be at least this far apart, in basis points of the slow EMA, before a cross counts.',
    ),
    notional: decimalParam(
      '500',
      'Position size as quote notional (USDT), converted at the current price and rounded down to the size step.',
      {
        gt: '0',
      },
    ),
    execution: z
      .enum(['ioc', 'market'])
      .default('ioc')
      .describe(
        'How entries and exits are sent: `ioc` = limit IOC `iocSlippageTicks` through the best price; `market` = market order. Default: ioc.',
      ),
    iocSlippageTicks: intParam(
      5,
      'For `ioc`: how many price ticks beyond the best opposite price the limit is set.',
      0,
      10_000,
    ),
    stopLossPct: decimalParam(
      '0.15',
      'Protective stop: close when the price moves this many percent against the entry price.',
      {
        gt: '0',
        max: '100',
      },
    ),
    allowShort: z
      .boolean()
      .default(true)
      .describe('Go short on a downward cross (otherwise only flat). Default: true.'),
  })
  .refine((p) => p.fastPeriod < p.slowPeriod, {
    error: 'fastPeriod must be smaller than slowPeriod',
    path: ['fastPeriod'],
  });

export type EmaCrossParams = z.output<typeof params>;

type Regime = 'up' | 'down';
type Target = 'long' | 'short' | 'flat';

/** Builds the taker order that buys (`buy`) or sells `size`, per the configured execution style. */
function takerOrder(
  ctx: StrategyContext,
  p: EmaCrossParams,
  symbol: SymbolId,
  t: Ticker,
  side: 'open_long' | 'open_short' | 'close_long' | 'close_short',
  size: Dec,
  tag: string,
): Intent {
  if (p.execution === 'market') return ctx.place({ symbol, side, size, tag });
  const buy = side === 'open_long' || side === 'close_short';
  const slip = ctx.spec(symbol).priceTick.times(p.iocSlippageTicks);
  const price = buy
    ? ctx.roundPrice(symbol, t.bestAsk.plus(slip), 'up')
    : ctx.roundPrice(symbol, t.bestBid.minus(slip), 'down');
  return ctx.place({ symbol, side, size, price, orderType: 'ioc', tag });
}

export default defineStrategy({
  name: 'ema-cross',
  version: '1.0.0',
  description: 'EMA crossover momentum with IOC or market entries, position flips and a protective stop.',
  params,
  symbols: (p) => [p.symbol],
  create(ctx, p) {
    const symbol = symbolId(p.symbol);
    const minGapBps = p.minGapBps.toNumber();
    const fast = new Ema(p.fastPeriod);
    const slow = new Ema(p.slowPeriod);
    const unsettled = new UnsettledOrders();
    let regime: Regime | undefined;
    let warm = false;
    let target: Target = 'flat';
    /** The entry of the current signal is still to be sent (one attempt per signal: no chasing). */
    let entryDue = false;

    const stopHit = (t: Ticker): boolean => {
      const pos = ctx.position(symbol);
      const away = p.stopLossPct.div(100);
      if (pos.long.gt(0) && pos.longEntryPrice !== undefined)
        return t.last.lte(pos.longEntryPrice.times(away.neg().plus(1)));
      if (pos.short.gt(0) && pos.shortEntryPrice !== undefined)
        return t.last.gte(pos.shortEntryPrice.times(away.plus(1)));
      return false;
    };

    return {
      onOrderUpdate: (o) => {
        unsettled.update(o);
      },
      onTicker: (t) => {
        // Signals in floats (t.price is the last price as a number); orders below stay exact.
        const f = fast.update(t.price);
        const s = slow.update(t.price);
        if (!slow.ready) return;

        // 1. Signal: a regime change after warm-up is a cross (the regime at warm-up only sets the scene).
        const gap = (s * minGapBps) / 10_000;
        const next: Regime | undefined = f - s > gap ? 'up' : s - f > gap ? 'down' : regime;
        if (!warm) {
          warm = true;
          regime = next;
        } else if (next !== regime && next !== undefined) {
          regime = next;
          target = next === 'up' ? 'long' : p.allowShort ? 'short' : 'flat';
          entryDue = target !== 'flat';
        }

        // 2. Wait while an order of ours works or its fills are not in the position yet.
        if (ctx.openOrders(symbol).length > 0 || unsettled.any(symbol)) return;
        const state = ctx.tradingState();
        if (state === 'HALTED') return;

        // 3. Protective stop: flat until the next cross.
        let exitTag = 'ema:close';
        if (target !== 'flat' && stopHit(t)) {
          ctx.log.info({ last: t.last.toFixed(), target }, 'protective stop');
          target = 'flat';
          entryDue = false;
          exitTag = 'ema:stop';
        }

        // 4. Bring the position to the target: close what is wrong first, then open (a flip is both).
        const pos = ctx.position(symbol);
        const out: Intent[] = [];
        if (target !== 'long' && pos.long.gt(0))
          out.push(takerOrder(ctx, p, symbol, t, 'close_long', pos.long, exitTag));
        if (target !== 'short' && pos.short.gt(0))
          out.push(takerOrder(ctx, p, symbol, t, 'close_short', pos.short, exitTag));
        if (entryDue && state === 'ACTIVE') {
          entryDue = false;
          const size = sizeForNotional(ctx, symbol, p.notional, t.last);
          if (size === undefined)
            ctx.log.warn({ notional: p.notional.toFixed() }, 'notional below the minimum size: no entry');
          else if (target === 'long' && pos.long.eq(0))
            out.push(takerOrder(ctx, p, symbol, t, 'open_long', size, 'ema:open'));
          else if (target === 'short' && pos.short.eq(0))
            out.push(takerOrder(ctx, p, symbol, t, 'open_short', size, 'ema:open'));
        }
        return out;
      },
    };
  },
});
