// The benchmark strategy: on every ticker of its symbols it quotes `perTick` immediate-or-cancel bids
// `offsetBps` below the best bid, one tick apart, each tagged with its level (`L0`, `L1`, …). Far from
// the market, the simulator accepts and cancels them at once (nothing fills, the book stays empty);
// the tags let the executor supersede a level still queued by the newer quote of the same level.
import { z } from 'zod';
import { dec } from '../src/core/decimal.ts';
import type { Intent } from '../src/core/intents.ts';
import { defineStrategy } from '../src/strategy/define.ts';

const BPS = dec(10_000);

export const quoterParams = z.object({
  symbols: z.array(z.string()).min(1),
  perTick: z.number().int().min(1).max(10_000),
  offsetBps: z.number().positive().max(400).default(100),
});

export const quoter = defineStrategy({
  name: 'bench-quoter',
  version: '1',
  description: 'Quotes a ladder of far immediate-or-cancel bids on every ticker (benchmark load).',
  params: quoterParams,
  symbols: (p) => p.symbols,
  create: (ctx, p) => {
    const factor = BPS.minus(p.offsetBps).div(BPS);
    return {
      onTicker: (t) => {
        const tick = ctx.spec(t.symbol).priceTick;
        const size = ctx.spec(t.symbol).minSize;
        const top = t.bestBid.times(factor);
        const out: Intent[] = [];
        for (let i = 0; i < p.perTick; i++) {
          out.push(
            ctx.place({
              symbol: t.symbol,
              side: 'open_long',
              size,
              price: ctx.roundPrice(t.symbol, top.minus(tick.times(i)), 'down'),
              orderType: 'ioc',
              tag: `L${i}`,
            }),
          );
        }
        return out;
      },
    };
  },
});
