// ema-cross: momentum on one symbol. A fast EMA of the last price crossing above a slow one means
// "be long", crossing below means "be short" (or flat when shorting is off). Entries are taker
// orders (IOC limit a few ticks through the book, or market); on a cross the strategy closes the
// opposite leg and opens the new one in the same tick (a position flip). A protective stop closes the
// position when the price moves `stopLossPct` against its entry; after a stop the strategy waits for
// the next cross. With `stopOnExchange` the stop is a plan order resting at the exchange (ctx.stopLoss),
// placed once the entry has filled: it protects the position even while this bot is down, and the
// engine cancels it when the strategy closes the leg itself.
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
  type Order,
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
    stopOnExchange: z
      .boolean()
      .default(false)
      .describe(
        'Send the protective stop to the exchange as a stop-loss plan order once the entry has filled (it survives the bot); otherwise the strategy closes the position itself when it sees the stop price. Default: false.',
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

    // The stop's distance as factors of the entry price, worked out once (onTicker runs per poll).
    const away = p.stopLossPct.div(100);
    const longStopFactor = away.neg().plus(1);
    const shortStopFactor = away.plus(1);

    /** The stop price of a leg entered at `entry`: `stopLossPct` against it, on the price tick. */
    const stopPrice = (leg: 'long' | 'short', entry: Dec): Dec =>
      leg === 'long'
        ? ctx.roundPrice(symbol, entry.times(longStopFactor), 'down')
        : ctx.roundPrice(symbol, entry.times(shortStopFactor), 'up');

    /** The exchange-side stop of each open leg that has none resting yet. */
    const exchangeStops = (resting: readonly Order[]): Intent[] => {
      const pos = ctx.position(symbol);
      const out: Intent[] = [];
      for (const leg of ['long', 'short'] as const) {
        const entry = leg === 'long' ? pos.longEntryPrice : pos.shortEntryPrice;
        const side = leg === 'long' ? 'close_long' : 'close_short';
        if (entry === undefined || pos[leg].lte(0) || resting.some((o) => o.side === side)) continue;
        const stop = ctx.stopLoss({ symbol, leg, triggerPrice: stopPrice(leg, entry) });
        if (stop !== undefined) out.push(stop);
      }
      return out;
    };

    const stopHit = (t: Ticker): boolean => {
      const pos = ctx.position(symbol);
      if (pos.long.gt(0) && pos.longEntryPrice !== undefined)
        return t.last.lte(pos.longEntryPrice.times(longStopFactor));
      if (pos.short.gt(0) && pos.shortEntryPrice !== undefined)
        return t.last.gte(pos.shortEntryPrice.times(shortStopFactor));
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

        // 2. Wait while an order of ours works or its fills are not in the position yet (a stop
        //    resting at the exchange is not work in progress).
        const open = ctx.openOrders(symbol);
        const stops = open.filter((o) => o.status === 'untriggered');
        const working = unsettled.list().some((o) => o.symbol === symbol && o.status !== 'untriggered');
        if (open.length > stops.length || working) return;
        const state = ctx.tradingState();
        if (state === 'HALTED') return;

        // 3. Protective stop: flat until the next cross. On the exchange, a position without its
        //    stop gets one; a stop that fired leaves the leg flat and the target waits for a cross.
        let exitTag = 'ema:close';
        const pos0 = ctx.position(symbol);
        if (p.stopOnExchange) {
          if ((target === 'long' && pos0.long.eq(0)) || (target === 'short' && pos0.short.eq(0)))
            if (!entryDue) target = 'flat';
        } else if (target !== 'flat' && stopHit(t)) {
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
        if (p.stopOnExchange && out.length === 0) out.push(...exchangeStops(stops));
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
