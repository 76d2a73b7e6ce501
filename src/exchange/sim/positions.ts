// Hedge-mode positions: per symbol an independent long leg and short leg. A leg keeps its open
// quantity and the entry cost of that quantity (Σ size × price of the opening fills still held), so
// the average entry is cost / qty and a full close realises exactly Σ close value − Σ open value.
import { ZERO, type Dec } from '../../core/decimal.ts';
import type { OrderSide } from '../../core/orders.ts';

export interface Leg {
  readonly qty: Dec;
  /** Entry cost of the open quantity. */
  readonly cost: Dec;
  /** Realised PnL of every close on this leg so far (gross of fees). */
  readonly realizedPnl: Dec;
}

export interface SymbolPosition {
  readonly long: Leg;
  readonly short: Leg;
}

export const EMPTY_LEG: Leg = { qty: ZERO, cost: ZERO, realizedPnl: ZERO };
export const EMPTY_POSITION: SymbolPosition = { long: EMPTY_LEG, short: EMPTY_LEG };

export type LegName = 'long' | 'short';

export function legOf(side: OrderSide): LegName {
  return side === 'open_long' || side === 'close_long' ? 'long' : 'short';
}

/** Buy sides: open_long and close_short take from the asks. */
export function isBuy(side: OrderSide): boolean {
  return side === 'open_long' || side === 'close_short';
}

export function averageEntry(leg: Leg): Dec | undefined {
  return leg.qty.gt(0) ? leg.cost.div(leg.qty) : undefined;
}

export interface FillEffect {
  readonly position: SymbolPosition;
  /** PnL realised by this fill: 0 when opening; (exit − entry) × size for a long close, mirrored for a short. */
  readonly realizedPnl: Dec;
}

/**
 * Applies one fill to the position. Opening adds size and cost; closing removes size and the
 * proportional share of the cost (all of it when the leg goes flat, so nothing is lost to rounding).
 * The caller guarantees a close never exceeds the leg (the core reserves closable quantity).
 */
export function applyFill(pos: SymbolPosition, side: OrderSide, size: Dec, price: Dec): FillEffect {
  const name = legOf(side);
  const leg = pos[name];
  const value = size.times(price);
  if (side === 'open_long' || side === 'open_short') {
    const next: Leg = { qty: leg.qty.plus(size), cost: leg.cost.plus(value), realizedPnl: leg.realizedPnl };
    return { position: { ...pos, [name]: next }, realizedPnl: ZERO };
  }
  if (size.gt(leg.qty))
    throw new RangeError(`close of ${size.toFixed()} exceeds the ${name} leg ${leg.qty.toFixed()}`);
  const removedCost = size.eq(leg.qty) ? leg.cost : leg.cost.times(size).div(leg.qty);
  const pnl = name === 'long' ? value.minus(removedCost) : removedCost.minus(value);
  const next: Leg = {
    qty: leg.qty.minus(size),
    cost: leg.cost.minus(removedCost),
    realizedPnl: leg.realizedPnl.plus(pnl),
  };
  return { position: { ...pos, [name]: next }, realizedPnl: pnl };
}
