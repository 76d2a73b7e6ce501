// Notional figures the gate compares with its limits. Exact decimals throughout.
//
// The gate reads the live orders either as a list or as an `OpenOrderExposure`: the same figures
// summed ahead of time (the engine keeps one up to date as orders change, so a decision does not scan
// every live order). Both give exactly the same decisions: decimal sums and products are exact, and
// Σ remaining × (price ?? last) = Σ_limit remaining × price + (Σ_market remaining) × last.
import { ZERO, type Dec } from '../core/decimal.ts';
import type { SymbolId } from '../core/ids.ts';
import { isOpening, isTerminal, type Order } from '../core/orders.ts';

/** Hedge-mode position in one symbol: both legs as sizes ≥ 0 in base coin. */
export interface HedgePosition {
  readonly long: Dec;
  readonly short: Dec;
}

/** The live opening orders of one symbol, summed. */
export interface OpeningWork {
  /** Σ remaining size × limit price over the live opening limit orders. */
  readonly limitNotional: Dec;
  /** Σ remaining size over the live opening market orders (valued at the last price when checked). */
  readonly marketSize: Dec;
}

/** What the gate needs from the live orders, summed: equal to `openOrderExposure(orders)`. */
export interface OpenOrderExposure {
  /** Number of live (non-terminal) orders. */
  readonly live: number;
  /** Per symbol with live opening orders; absent means none. */
  readonly opening: ReadonlyMap<SymbolId, OpeningWork>;
}

/** The live orders as the gate takes them: the orders themselves, or their exposure summed. */
export type OpenOrdersView = readonly Order[] | OpenOrderExposure;

/** The share of one order in an `OpeningWork`; undefined when it adds nothing (terminal, closing). */
export interface OrderExposure {
  readonly symbol: SymbolId;
  readonly limitNotional: Dec;
  readonly marketSize: Dec;
}

export const NO_OPENING_WORK: OpeningWork = Object.freeze({ limitNotional: ZERO, marketSize: ZERO });

/** The sign of a decimal: -1, 0 or 1 (the gate runs on every intent; this compares nothing). */
export function signOf(d: Dec): -1 | 0 | 1 {
  return d.sign();
}

/** Size still to fill of an order (never negative). */
export function remainingSize(o: Order): Dec {
  const r = signOf(o.filledQty) === 0 ? o.size : o.size.minus(o.filledQty);
  return signOf(r) > 0 ? r : ZERO;
}

/** What one order adds to the opening work of its symbol (undefined: terminal or closing). */
export function orderExposure(o: Order): OrderExposure | undefined {
  if (isTerminal(o.status) || !isOpening(o.side)) return undefined;
  const r = remainingSize(o);
  return o.price !== undefined
    ? { symbol: o.symbol, limitNotional: r.times(o.price), marketSize: ZERO }
    : { symbol: o.symbol, limitNotional: ZERO, marketSize: r };
}

/** `w` with one order's share added (`sign` 1) or taken out again (`sign` -1). Exact. */
export function addOpeningWork(w: OpeningWork, e: OrderExposure, sign: 1 | -1): OpeningWork {
  return {
    limitNotional: shifted(w.limitNotional, e.limitNotional, sign),
    marketSize: shifted(w.marketSize, e.marketSize, sign),
  };
}

/** a + sign × b, without arithmetic when b is zero. */
function shifted(a: Dec, b: Dec, sign: 1 | -1): Dec {
  if (signOf(b) === 0) return a;
  return sign === 1 ? a.plus(b) : a.minus(b);
}

/** The exposure summary of a list of orders (terminal ones are ignored). */
export function openOrderExposure(orders: readonly Order[]): OpenOrderExposure {
  const opening = new Map<SymbolId, OpeningWork>();
  for (const o of orders) {
    const e = orderExposure(o);
    if (e !== undefined)
      opening.set(e.symbol, addOpeningWork(opening.get(e.symbol) ?? NO_OPENING_WORK, e, 1));
  }
  return { live: liveOrderCount(orders), opening };
}

function isList(v: OpenOrdersView): v is readonly Order[] {
  return Array.isArray(v);
}

/**
 * Gross notional of a symbol if every working opening order filled: both position legs at the last
 * price, plus the remaining size of each live opening order at its limit price (last price for
 * market orders).
 */
export function grossExposure(
  symbol: SymbolId,
  position: HedgePosition | undefined,
  openOrders: OpenOrdersView,
  last: Dec,
): Dec {
  let total = position !== undefined ? position.long.plus(position.short).times(last) : ZERO;
  if (!isList(openOrders)) {
    const w = openOrders.opening.get(symbol);
    if (w === undefined) return total;
    // Zero terms are skipped: the sum is the same value.
    if (signOf(w.limitNotional) !== 0)
      total = signOf(total) === 0 ? w.limitNotional : total.plus(w.limitNotional);
    if (signOf(w.marketSize) !== 0) total = total.plus(w.marketSize.times(last));
    return total;
  }
  for (const o of openOrders) {
    if (o.symbol !== symbol || isTerminal(o.status) || !isOpening(o.side)) continue;
    total = total.plus(remainingSize(o).times(o.price ?? last));
  }
  return total;
}

/** Number of orders not yet terminal. */
export function liveOrderCount(orders: OpenOrdersView): number {
  if (!isList(orders)) return orders.live;
  let n = 0;
  for (const o of orders) if (!isTerminal(o.status)) n++;
  return n;
}
