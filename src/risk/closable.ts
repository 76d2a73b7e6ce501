// The closable size: how much of a position a new close order may still take without the venue
// refusing it (40015 "close larger than the closable position"). Pure; shared by regular close
// orders (src/engine/close-cap.ts) and, later, reduce-only plan (trigger) orders.
//
// The venue checks a close against ITS position minus the close orders resting there on that leg.
// Our position is folded from the fills we have seen, which lag the venue: order history can report a
// close filled (or partly filled) before its fills arrive. So, per close order of ours on the leg:
//   - working (created … open): it holds `size − fills applied` of our position. At the venue that
//     is the part already filled there but not yet seen here (gone from the venue's position) plus
//     the part still resting (reserved).
//   - terminal, or `canceling`: `filledQty − fills applied`, the fills the venue applied that we have
//     not seen yet. The unfilled rest of a close we asked to cancel is NOT reserved: the executor
//     sends cancels ahead of placements, so the venue takes the cancel before a replacement close
//     (the usual "cancel the take-profit, close at market"). Should the canceling close fill first,
//     that fill counts as soon as history or fills show it; until then the venue may refuse the
//     replacement (40015), a race no local view can see coming.
// Plan (trigger) orders reserve nothing at the venue until they fire: an untriggered plan holds only
// fills not seen yet (none), a fired one (its child known) holds what its child holds. A new plan is
// capped by the leg less the fills not seen yet, not by the closes resting: a stop and a target of
// one leg may coexist, the venue checks the close when it fires (`closable(…, plan)` in close-cap.ts).
// Invariant: closable = max(0, position − Σ pending) never exceeds what the venue would accept, given
// what we know (and that cancels go first); it is exact when our view of every filled quantity is.
import { ZERO, roundToStep, type Dec } from '../core/decimal.ts';
import { isTerminal, isUntriggeredPlan, type Order, type OrderSide } from '../core/orders.ts';

export type Leg = 'long' | 'short';

/** The leg a close side reduces; undefined for opening sides. */
export function closedLeg(side: OrderSide): Leg | undefined {
  if (side === 'close_long') return 'long';
  if (side === 'close_short') return 'short';
  return undefined;
}

/** What an order needs to say how much of a position it holds. */
export type CloseOrderView = Pick<Order, 'side' | 'status' | 'size' | 'filledQty' | 'fillsQty'> &
  Partial<Pick<Order, 'triggerPrice' | 'planOrderId'>>;

/**
 * The part of `leg`'s position (as folded from the fills seen) that `order` already holds: zero for
 * orders that do not close that leg, never negative (an overfill is not a negative reservation).
 */
export function pendingCloseOf(order: CloseOrderView, leg: Leg): Dec {
  if (closedLeg(order.side) !== leg) return ZERO;
  const applied = order.fillsQty ?? ZERO;
  const working = !isTerminal(order.status) && order.status !== 'canceling' && !isUntriggeredPlan(order);
  const held = (working ? order.size : order.filledQty).minus(applied);
  return held.gt(0) ? held : ZERO;
}

/**
 * Σ pendingCloseOf over `orders` (any mix of symbols' orders must be filtered by the caller). With
 * `unseenOnly`, each order counts only the fills the venue applied that we have not seen (what a
 * new plan order is capped by: the venue's position, whatever rests on it).
 */
export function pendingCloses(orders: Iterable<CloseOrderView>, leg: Leg, unseenOnly = false): Dec {
  let sum = ZERO;
  for (const o of orders) sum = sum.plus(unseenOnly ? unseenFillsOf(o, leg) : pendingCloseOf(o, leg));
  return sum;
}

/** The fills of a close of `leg` that the venue applied and we have not seen yet (≥ 0). */
export function unseenFillsOf(order: CloseOrderView, leg: Leg): Dec {
  if (closedLeg(order.side) !== leg) return ZERO;
  const unseen = order.filledQty.minus(order.fillsQty ?? ZERO);
  return unseen.gt(0) ? unseen : ZERO;
}

/** The size a new close may take: the position less the closes already resting or in flight, ≥ 0. */
export function closableSize(position: Dec, pending: Dec): Dec {
  const left = position.minus(pending);
  return left.gt(0) ? left : ZERO;
}

/** The size rules of the contract that a capped size must follow. */
export interface SizeRules {
  readonly sizeStep: Dec;
  readonly minSize: Dec;
}

/**
 * What becomes of a close of `wanted` when `closable` is left:
 * - `full`: it fits; the size is `wanted`, untouched (its own step is the venue's business);
 * - `shrunk`: it is cut to `closable` rounded DOWN to the size step (so it still fits);
 * - `dropped`: that rounded size is below the minimum order size (or nothing is left): no order.
 */
export type CloseCap =
  | { readonly kind: 'full'; readonly size: Dec }
  | { readonly kind: 'shrunk'; readonly size: Dec }
  | { readonly kind: 'dropped'; readonly size: Dec };

export function capClose(wanted: Dec, closable: Dec, rules: SizeRules): CloseCap {
  if (wanted.lte(closable)) return { kind: 'full', size: wanted };
  const size = closable.gt(0) ? roundToStep(closable, rules.sizeStep, 'down') : ZERO;
  if (size.gt(0) && size.gte(rules.minSize)) return { kind: 'shrunk', size };
  return { kind: 'dropped', size: ZERO };
}
