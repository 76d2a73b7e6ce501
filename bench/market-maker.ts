// Fixture strategy for bench/orders.ts: a market maker's order traffic without its inventory. Every
// `every`-th ticker of its symbol it quotes `perTick` immediate-or-cancel orders `offsetBps` away from
// the market, alternately a bid below the best bid and an ask above the best ask, one price tick apart
// per level. Far from the market, the simulator accepts and cancels each at once: nothing fills, no
// position builds up, and the risk gate never has a reason to refuse, so the month's order count is
// exactly perTick × the quoting polls. `every: 100` is the same month with 1 % of the orders.
import { z } from 'zod';
import { dec } from '../src/core/decimal.ts';
import type { Intent } from '../src/core/intents.ts';
import { defineStrategy } from '../src/strategy/define.ts';

const BPS = dec(10_000);

export const params = z.strictObject({
  symbol: z.string().default('cmt_btcusdt'),
  perTick: z.number().int().min(1).max(1_000).default(5),
  every: z.number().int().min(1).max(1_000_000).default(1),
  offsetBps: z.number().positive().max(400).default(100),
});

export default defineStrategy({
  name: 'bench-market-maker',
  version: '1',
  description:
    'Quotes immediate-or-cancel bids and asks far from the market every N tickers (benchmark load).',
  params,
  symbols: (p) => [p.symbol],
  create: (ctx, p) => {
    const below = BPS.minus(p.offsetBps).div(BPS);
    const above = BPS.plus(p.offsetBps).div(BPS);
    let seen = 0;
    return {
      onTicker: (t) => {
        if (seen++ % p.every !== 0) return undefined;
        const spec = ctx.spec(t.symbol);
        const bid = t.bestBid.times(below);
        const ask = t.bestAsk.times(above);
        const out: Intent[] = [];
        for (let i = 0; i < p.perTick; i++) {
          const level = Math.floor(i / 2);
          const buy = i % 2 === 0;
          out.push(
            ctx.place({
              symbol: t.symbol,
              side: buy ? 'open_long' : 'open_short',
              size: spec.minSize,
              price: buy
                ? ctx.roundPrice(t.symbol, bid.minus(spec.priceTick.times(level)), 'down')
                : ctx.roundPrice(t.symbol, ask.plus(spec.priceTick.times(level)), 'up'),
              orderType: 'ioc',
              tag: `mm:${buy ? 'b' : 'a'}${level}`,
            }),
          );
        }
        return out;
      },
    };
  },
});
