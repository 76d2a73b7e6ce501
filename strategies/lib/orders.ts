// Small helpers over the context's read-only views, shared by the example strategies.
import {
  isTerminal,
  ZERO,
  type Dec,
  type Order,
  type StrategyContext,
  type SymbolId,
  type Ticker,
} from '../../src/strategy/index.ts';

const BPS = 10_000;

/** (best bid + best ask) / 2, or the last price when a side of the book is missing. */
export function midOf(t: Ticker): Dec {
  if (t.bestBid.gt(0) && t.bestAsk.gt(0)) return t.bestBid.plus(t.bestAsk).div(2);
  return t.last;
}

/** `price` moved by `bps` basis points (negative moves it down); not rounded. */
export function shiftBps(price: Dec, bps: Dec): Dec {
  return price.times(bps.plus(BPS)).div(BPS);
}

/** |a − b| / b in basis points. */
export function distanceBps(a: Dec, b: Dec): Dec {
  return a.minus(b).abs().times(BPS).div(b);
}

/**
 * The size worth `notional` (quote) at `price`, rounded DOWN to the size step; undefined when that is
 * below the symbol's minimum size (the order would be refused).
 */
export function sizeForNotional(
  ctx: StrategyContext,
  symbol: SymbolId,
  notional: Dec,
  price: Dec,
): Dec | undefined {
  const size = ctx.roundSize(symbol, notional.div(price), 'down');
  return size.gte(ctx.spec(symbol).minSize) && size.gt(0) ? size : undefined;
}

/** Remaining (unfilled) size of an order. */
export function remainingOf(o: Order): Dec {
  const r = o.size.minus(o.filledQty);
  return r.gt(0) ? r : ZERO;
}

/** An order that may still trade and that no cancel was asked for. */
export function isWorking(o: Order, cancelAsked: ReadonlySet<string> = new Set()): boolean {
  return !isTerminal(o.status) && o.status !== 'canceling' && !cancelAsked.has(o.clientOid);
}

/** True for sides that buy (open a long or cover a short). */
export function isBuy(side: Order['side']): boolean {
  return side === 'open_long' || side === 'close_short';
}

/**
 * The market has reached a resting limit order: it is probably filling or filled already, which
 * reconciliation will tell shortly. Replacing it now would risk trading twice (or a close beyond the
 * position), so strategies leave such an order alone for the moment.
 */
export function isReached(o: Order, t: Ticker): boolean {
  if (o.price === undefined) return true;
  return isBuy(o.side) ? o.price.gte(t.bestAsk) : o.price.lte(t.bestBid);
}

/**
 * Every fill of a terminal order has reached the position. An order may be reported `filled` by
 * order history before its fills arrive; until they do, ctx.position() does not show it yet.
 */
export function isSettled(o: Order): boolean {
  return isTerminal(o.status) && (o.fillsQty ?? ZERO).gte(o.filledQty);
}

/**
 * The strategy's own orders that are still working OR whose fills are not all in the position yet.
 * Fed from onOrderUpdate; a strategy that sizes from ctx.position() waits while this is not empty,
 * so it never acts twice on the same exposure.
 */
export class UnsettledOrders {
  readonly #orders = new Map<string, Order>();

  update(o: Order): void {
    if (isSettled(o)) this.#orders.delete(o.clientOid);
    else this.#orders.set(o.clientOid, o);
  }

  /** A finished order of `symbol` whose fills have not all reached the position yet. */
  awaitingFills(symbol?: SymbolId): boolean {
    for (const o of this.#orders.values())
      if ((symbol === undefined || o.symbol === symbol) && isTerminal(o.status)) return true;
    return false;
  }

  any(symbol?: SymbolId): boolean {
    for (const o of this.#orders.values()) if (symbol === undefined || o.symbol === symbol) return true;
    return false;
  }

  list(): readonly Order[] {
    return [...this.#orders.values()];
  }
}
