// grid: a symmetric grid of limit orders around a reference price (the mid when the strategy
// starts, optionally re-centred while flat). Level k (k = ±1..±levels) sits k × spacingBps away from
// the reference. Below the reference each armed level rests a buy (open_long); when it fills, the
// level holds inventory and rests its exit one level up (close_long); when the exit fills, the level
// re-arms its buy. Above the reference it is the mirror image with shorts. Inventory is bounded: no
// new entry on a side once the position of that side plus its resting entries would exceed
// `maxInventoryLevels` level sizes.
//
// Level state changes only on order updates from the exchange (an entry or exit that finished with a
// filled quantity), so what the grid believes follows what actually traded. Prices are relative to
// the reference and rounded to the tick; the level size is a quote notional at the reference price.
// After a restart the levels start armed again: inventory held from before still counts against the
// bound (through the position) but gets no exit from the grid.
import {
  z,
  defineStrategy,
  isTerminal,
  symbolId,
  ZERO,
  type Dec,
  type Intent,
  type Order,
  type OrderSide,
  type SymbolId,
  type Ticker,
} from '../src/strategy/index.ts';
import { distanceBps, isWorking, midOf, shiftBps, sizeForNotional } from './lib/orders.ts';
import { decimalParam, intParam, symbolParam } from './lib/params.ts';

export const params = z.strictObject({
  symbol: symbolParam('cmt_btcusdt'),
  levels: intParam(5, 'Grid levels on each side of the reference price.', 1, 50),
  spacingBps: decimalParam(
    '4',
    'Distance between neighbouring levels, in basis points of the reference price.',
    { gt: '0' },
  ),
  levelNotional: decimalParam(
    '200',
    'Size of each level as quote notional (USDT) at the reference price, rounded down to the size step.',
    {
      gt: '0',
    },
  ),
  maxInventoryLevels: intParam(
    3,
    'Bound on inventory per side, in level sizes: position plus resting entries never exceed it.',
    1,
    50,
  ),
  recenterBps: decimalParam(
    '0',
    'Re-centre the grid on the mid when the strategy is flat and the mid is more than this many basis points from the reference (0 = never).',
  ),
  postOnly: z.boolean().default(true).describe('Rest every grid order as post-only (maker). Default: true.'),
});

export type GridParams = z.output<typeof params>;

/** What a level holds: nothing (its entry is armed) or the quantity its entry filled. */
type LevelState = { readonly phase: 'armed' } | { readonly phase: 'holding'; readonly qty: Dec };

const ARMED: LevelState = { phase: 'armed' };

interface Wanted {
  readonly tag: string;
  readonly side: OrderSide;
  readonly size: Dec;
  /** The level price; an order resting at this price or better is kept. */
  readonly price: Dec;
  readonly buy: boolean;
}

export const entryTag = (k: number): string => `grid:e${k}`;
export const exitTag = (k: number): string => `grid:x${k}`;
const TAG = /^grid:([ex])(-?\d+)$/;

export default defineStrategy({
  name: 'grid',
  version: '1.0.0',
  description:
    'Symmetric limit-order grid around the mid, re-arming levels as they fill, with bounded inventory.',
  params,
  symbols: (p) => [p.symbol],
  create(ctx, p) {
    const symbol: SymbolId = symbolId(p.symbol);
    const tick = ctx.spec(symbol).priceTick;
    const levels = new Map<number, LevelState>();
    const ks: number[] = [];
    for (let i = 1; i <= p.levels; i++) ks.push(-i, i);
    /** Orders whose final fill was already folded into the level states (updates may repeat). */
    const folded = new Set<string>();
    const cancelAsked = new Set<string>();
    let reference: Dec | undefined;
    let levelSize: Dec | undefined;

    const resetLevels = (): void => {
      for (const k of ks) levels.set(k, ARMED);
    };
    resetLevels();

    const levelPrice = (k: number): Dec => {
      const ref = reference ?? ZERO;
      if (k === 0) return ref;
      return ctx.roundPrice(symbol, shiftBps(ref, p.spacingBps.times(k)), k < 0 ? 'down' : 'up');
    };

    const centre = (t: Ticker): void => {
      reference = ctx.roundPrice(symbol, midOf(t));
      levelSize = sizeForNotional(ctx, symbol, p.levelNotional, reference);
      if (levelSize === undefined) {
        throw new Error(
          `levelNotional ${p.levelNotional.toFixed()} buys less than the minimum size of ${symbol} at ${reference.toFixed()}`,
        );
      }
      ctx.log.info({ reference: reference.toFixed(), size: levelSize.toFixed() }, 'grid centred');
    };

    /** Folds a finished entry or exit into its level. */
    const fold = (o: Order): void => {
      const m = o.tag !== undefined ? TAG.exec(o.tag) : null;
      if (m === null || !isTerminal(o.status) || folded.has(o.clientOid)) return;
      folded.add(o.clientOid);
      cancelAsked.delete(o.clientOid);
      if (o.filledQty.eq(0)) return;
      const k = Number(m[2]);
      const st = levels.get(k) ?? ARMED;
      const held = st.phase === 'holding' ? st.qty : ZERO;
      const qty = m[1] === 'e' ? held.plus(o.filledQty) : held.minus(o.filledQty);
      levels.set(k, qty.gt(0) ? { phase: 'holding', qty } : ARMED);
    };

    const working = (): Order[] => ctx.openOrders(symbol).filter((o) => isWorking(o, cancelAsked));
    const cancel = (o: Order): Intent => {
      cancelAsked.add(o.clientOid);
      return ctx.cancel(o);
    };

    /** The orders the grid wants resting now, nearest levels first. */
    const wanted = (entriesAllowed: boolean): Wanted[] => {
      const size = levelSize ?? ZERO;
      const pos = ctx.position(symbol);
      const cap = size.times(p.maxInventoryLevels);
      const out: Wanted[] = [];
      // Inventory per side: the position (exchange truth) or the levels' holdings, whichever is larger.
      let longUsed = ZERO;
      let shortUsed = ZERO;
      for (const k of ks) {
        const st = levels.get(k) ?? ARMED;
        if (st.phase !== 'holding') continue;
        if (k < 0) longUsed = longUsed.plus(st.qty);
        else shortUsed = shortUsed.plus(st.qty);
        // The exit rests one level closer to the reference (k = ±1 exits at the reference).
        const toward = k < 0 ? k + 1 : k - 1;
        out.push({
          tag: exitTag(k),
          side: k < 0 ? 'close_long' : 'close_short',
          size: st.qty,
          price: levelPrice(toward),
          buy: k > 0,
        });
      }
      if (pos.long.gt(longUsed)) longUsed = pos.long;
      if (pos.short.gt(shortUsed)) shortUsed = pos.short;
      if (!entriesAllowed) return out;
      for (const k of ks) {
        if ((levels.get(k) ?? ARMED).phase !== 'armed') continue;
        const buy = k < 0;
        const used = buy ? longUsed : shortUsed;
        if (used.plus(size).gt(cap)) continue;
        if (buy) longUsed = longUsed.plus(size);
        else shortUsed = shortUsed.plus(size);
        out.push({
          tag: entryTag(k),
          side: buy ? 'open_long' : 'open_short',
          size,
          price: levelPrice(k),
          buy,
        });
      }
      return out;
    };

    /** Rests every wanted order (at its level, or at the best non-crossing price) and cancels the rest. */
    const converge = (t: Ticker, want: readonly Wanted[]): Intent[] => {
      const out: Intent[] = [];
      const mine = working();
      for (const w of want) {
        const have = mine.filter((o) => o.tag === w.tag);
        const ok = (o: Order): boolean =>
          o.side === w.side &&
          o.size.eq(w.size) &&
          o.price !== undefined &&
          (w.buy ? o.price.lte(w.price) : o.price.gte(w.price));
        const keep = have.find(ok);
        for (const o of have) if (o !== keep) out.push(cancel(o));
        if (keep !== undefined) continue;
        // A post-only order must not cross the book: never above ask − tick / below bid + tick.
        let price = w.price;
        if (p.postOnly && w.buy && price.gte(t.bestAsk)) price = t.bestAsk.minus(tick);
        if (p.postOnly && !w.buy && price.lte(t.bestBid)) price = t.bestBid.plus(tick);
        if (price.lte(0)) continue;
        out.push(
          ctx.place({
            symbol,
            side: w.side,
            size: w.size,
            price,
            orderType: p.postOnly ? 'postOnly' : 'normal',
            tag: w.tag,
          }),
        );
      }
      for (const o of mine) if (!want.some((w) => w.tag === o.tag)) out.push(cancel(o));
      return out;
    };

    const flat = (): boolean => {
      const pos = ctx.position(symbol);
      return pos.long.eq(0) && pos.short.eq(0) && ks.every((k) => (levels.get(k) ?? ARMED).phase === 'armed');
    };

    return {
      onOrderUpdate: (o) => {
        fold(o);
      },
      onTicker: (t) => {
        const state = ctx.tradingState();
        if (state === 'HALTED') return;
        if (reference === undefined) centre(t);
        else if (p.recenterBps.gt(0) && flat() && distanceBps(midOf(t), reference).gt(p.recenterBps)) {
          // Cancel the old grid this tick; the new one is placed from the next ticker on.
          const old = working();
          if (old.length > 0) return old.map(cancel);
          if (ctx.openOrders(symbol).length > 0) return;
          centre(t);
          resetLevels();
        }
        return converge(t, wanted(state === 'ACTIVE'));
      },
    };
  },
});
