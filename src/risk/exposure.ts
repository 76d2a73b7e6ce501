// Notional figures the gate compares with its limits. Exact decimals throughout.
import { ZERO, type Dec } from '../core/decimal.ts';
import type { SymbolId } from '../core/ids.ts';
import { isOpening, isTerminal, type Order } from '../core/orders.ts';

/** Hedge-mode position in one symbol: both legs as sizes ≥ 0 in base coin. */
export interface HedgePosition {
  readonly long: Dec;
  readonly short: Dec;
}

/** Size still to fill of an order (never negative). */
export function remainingSize(o: Order): Dec {
  const r = o.size.minus(o.filledQty);
  return r.gt(0) ? r : ZERO;
}

/**
 * Gross notional of a symbol if every working opening order filled: both position legs at the last
 * price, plus the remaining size of each live opening order at its limit price (last price for
 * market orders).
 */
export function grossExposure(
  symbol: SymbolId,
  position: HedgePosition | undefined,
  openOrders: readonly Order[],
  last: Dec,
): Dec {
  let total = position !== undefined ? position.long.plus(position.short).times(last) : ZERO;
  for (const o of openOrders) {
    if (o.symbol !== symbol || isTerminal(o.status) || !isOpening(o.side)) continue;
    total = total.plus(remainingSize(o).times(o.price ?? last));
  }
  return total;
}

/** Number of orders not yet terminal. */
export function liveOrderCount(orders: readonly Order[]): number {
  let n = 0;
  for (const o of orders) if (!isTerminal(o.status)) n++;
  return n;
}
