// The aggressive strategy of the chaos run (`npm run chaos`): on every ticker of each of its symbols it
// cancels its oldest working orders and places a batch — resting bids and asks a few ticks off the
// book, one marketable order crossing the book, now and then a market order, and a closing order when
// a leg grows too big — so a short run produces hundreds of placements (batched per symbol), many
// cancels, immediate fills and later fills of resting orders. Deterministic: a step counter, no dice.
//
// `plans: true` (on in the chaos config) adds plan (trigger) orders: every other ticker per symbol one
// trigger order `planTicks` from the last price (alternately an open_long firing on a rise and an
// open_short firing on a fall, at market or as a limit), and now and then a stop-loss on a leg; the
// oldest-first cancels take plans like any other working order, so plans are placed, fired (their
// children fill or rest), canceled before and after firing, and refused (a stop larger than the leg
// the venue holds by the time it fires).
//
// `quiet: true` (the chaos run's final settle) places nothing: only recovery and reconciliation run.
import { dec, defineStrategy, z, type Intent, type SymbolId, type Ticker } from '../../src/strategy/index.ts';

const DEFAULT_SIZES: Readonly<Record<string, string>> = {
  cmt_btcusdt: '0.001',
  cmt_ethusdt: '0.01',
};

export default defineStrategy({
  name: 'chaos-storm',
  version: '1.0.0',
  description: 'Chaos-run strategy: many batched placements and cancels per tick across its symbols',
  params: z.strictObject({
    symbols: z.array(z.string()).min(1).default(['cmt_btcusdt', 'cmt_ethusdt']),
    /** Order size per symbol (base coin); symbols not named use 10 × the symbol's minimum size. */
    sizes: z.record(z.string(), z.string()).default({ ...DEFAULT_SIZES }),
    /** Resting orders placed per ticker and symbol (alternating bids and asks). */
    restingPerTick: z.number().int().min(0).max(19).default(3),
    /** Oldest working orders canceled per ticker and symbol. */
    cancelsPerTick: z.number().int().min(0).default(2),
    /** Working orders per symbol beyond which every extra one is canceled at once. */
    maxWorking: z.number().int().min(1).default(10),
    /** A leg this many sizes long gets a marketable closing order. */
    maxLegSizes: z.number().int().min(1).default(4),
    /** Ticks a marketable limit order crosses the book by. */
    crossTicks: z.number().int().min(1).default(5),
    /** Every n-th ticker per symbol also sends a market order (0 = never). */
    marketEvery: z.number().int().min(0).default(5),
    /** Also place plan (trigger) orders and stop-losses. */
    plans: z.boolean().default(false),
    /** Ticks between a trigger order's trigger price and the last price. */
    planTicks: z.number().int().min(1).default(20),
    /** Every n-th ticker per symbol also places a stop-loss on its bigger leg (0 = never). */
    stopEvery: z.number().int().min(0).default(6),
    /** Place nothing (the final settle of a chaos run). */
    quiet: z.boolean().default(false),
  }),
  symbols: (p) => p.symbols,
  create: (ctx, p) => {
    const steps = new Map<SymbolId, number>();

    const sizeOf = (symbol: SymbolId): string =>
      p.sizes[symbol] ?? ctx.spec(symbol).minSize.times(10).toFixed();

    const onTicker = (t: Ticker): Intent[] => {
      if (p.quiet) return [];
      const symbol = t.symbol;
      const step = steps.get(symbol) ?? 0;
      steps.set(symbol, step + 1);
      const tick = ctx.spec(symbol).priceTick;
      const size = sizeOf(symbol);
      const out: Intent[] = [];

      // Cancels first: the oldest working orders, plus everything beyond maxWorking.
      const open = ctx.openOrders(symbol);
      const working = open.filter((o) => o.status !== 'canceling');
      const cancels = Math.min(working.length, p.cancelsPerTick + Math.max(0, working.length - p.maxWorking));
      for (const o of working.slice(0, cancels)) out.push(ctx.cancel(o));

      // Resting orders 1..6 ticks off the book (inside the band, so market moves fill some of them).
      for (let i = 0; i < p.restingPerTick; i++) {
        const off = tick.times(1 + ((step + i) % 6));
        out.push(
          (step + i) % 2 === 0
            ? ctx.place({ symbol, side: 'open_long', size, price: t.bestBid.minus(off) })
            : ctx.place({ symbol, side: 'open_short', size, price: t.bestAsk.plus(off) }),
        );
      }

      // One marketable limit order, alternating sides: an immediate fill.
      const cross = tick.times(p.crossTicks);
      out.push(
        step % 2 === 0
          ? ctx.place({ symbol, side: 'open_long', size, price: t.bestAsk.plus(cross) })
          : ctx.place({ symbol, side: 'open_short', size, price: t.bestBid.minus(cross) }),
      );
      if (p.marketEvery > 0 && step % p.marketEvery === p.marketEvery - 1) {
        out.push(ctx.place({ symbol, side: step % 2 === 0 ? 'open_short' : 'open_long', size }));
      }

      if (p.plans && step % 2 === 1) {
        // A trigger order: alternately on a rise (open_long) and a fall (open_short); every other
        // pair executes as a limit crossing the book at its trigger, the others at market.
        const away = tick.times(p.planTicks);
        const up = step % 4 === 1;
        const trigger = up ? t.last.plus(away) : t.last.minus(away);
        const limit = step % 8 >= 4 ? { price: up ? trigger.plus(cross) : trigger.minus(cross) } : {};
        out.push(
          ctx.place({ symbol, side: up ? 'open_long' : 'open_short', size, triggerPrice: trigger, ...limit }),
        );
      }
      if (p.plans && p.stopEvery > 0 && step % p.stopEvery === p.stopEvery - 1) {
        // A stop-loss of one size on the bigger leg, `planTicks` against it, unless one rests already.
        const pos = ctx.position(symbol);
        const leg = pos.long.gte(pos.short) ? 'long' : 'short';
        const away = tick.times(p.planTicks);
        const resting = open.some((o) => o.tag === 'stop-loss' && o.status === 'untriggered');
        const stop = resting
          ? undefined
          : ctx.stopLoss({
              symbol,
              leg,
              size,
              triggerPrice: leg === 'long' ? t.last.minus(away) : t.last.plus(away),
            });
        if (stop !== undefined) out.push(stop);
      }

      // Keep both legs bounded: a marketable close when a leg is long enough and none is in flight.
      const pos = ctx.position(symbol);
      const limit = dec(size).times(p.maxLegSizes);
      if (pos.long.gte(limit) && !open.some((o) => o.side === 'close_long')) {
        out.push(ctx.place({ symbol, side: 'close_long', size, price: t.bestBid.minus(cross) }));
      }
      if (pos.short.gte(limit) && !open.some((o) => o.side === 'close_short')) {
        out.push(ctx.place({ symbol, side: 'close_short', size, price: t.bestAsk.plus(cross) }));
      }
      return out;
    };
    return { onTicker };
  },
});
