// PnL arithmetic for one hedge-mode leg, exact in Dec. Values (price × size) are used directly where
// the exchange gives them, so no price is ever recomputed by a division that could round.
import { ZERO, type Dec } from './decimal.ts';
import type { OrderSide } from './orders.ts';

/** A hedge-mode position leg: long and short positions on one symbol are independent. */
export type Leg = 'long' | 'short';

export function legOfSide(side: OrderSide): Leg {
  return side === 'open_long' || side === 'close_long' ? 'long' : 'short';
}

/**
 * PnL realised by closing a quantity whose entry cost is `entryCost` for `exitValue`: a long gains
 * when the exit value exceeds the entry cost, a short when it is below. Gross of fees.
 */
export function realizedOnClose(leg: Leg, entryCost: Dec, exitValue: Dec): Dec {
  return leg === 'long' ? exitValue.minus(entryCost) : entryCost.minus(exitValue);
}

/** Unrealised PnL of `qty` held at entry cost `cost`, valued at `mark`. Zero when flat. */
export function unrealizedPnl(leg: Leg, qty: Dec, cost: Dec, mark: Dec): Dec {
  if (qty.eq(0)) return ZERO;
  return realizedOnClose(leg, cost, qty.times(mark));
}
