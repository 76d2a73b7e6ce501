// Close intents are capped by the position the venue will see (src/risk/closable.ts): the account's
// leg, as folded from the fills seen, less the closes of ours already resting or in flight on that
// leg and the fills the venue applied that we have not seen yet (a close we are canceling holds only
// the latter). A close larger than that would be
// refused by the venue (40015 "close larger than the closable position"); instead it is
//   - shrunk to the closable size, rounded down to the size step (CloseCapped event, counted in
//     `closesCapped`, logged), or
//   - dropped when that is below the minimum order size (the caller refuses it as `closable_size`,
//     like a risk refusal: journaled, counted in rejectionsByReason, RiskRefused event).
// Each capped intent is counted and logged once, where it is capped.
//
// The position is account-wide (every strategy's fills on the symbol), as the venue's is. Terminal
// close orders whose filled quantity runs ahead of their applied fills are remembered here until
// those fills arrive (`track`); only the orders seen since start are (a restart reconciles fills
// before strategies run).
import type { Logger } from 'pino';
import { ZERO, decToString, type Dec } from '../core/decimal.ts';
import type { Footprint } from '../core/footprint.ts';
import type { ClientOid, SymbolId } from '../core/ids.ts';
import type { PlaceIntent } from '../core/intents.ts';
import type { ContractSpec } from '../core/market.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import {
  capClose,
  closableSize,
  closedLeg,
  pendingCloseOf,
  pendingCloses,
  type CloseCap,
} from '../risk/closable.ts';
import type { HedgePosition } from '../risk/exposure.ts';
import type { Counters } from './metrics.ts';
import type { OpenOrders } from './open-orders.ts';

export interface CloseCapDeps {
  readonly open: OpenOrders;
  readonly specs: ReadonlyMap<SymbolId, ContractSpec>;
  /** The account-wide legs of a symbol, as folded from the fills seen (absent: flat). */
  readonly position: (symbol: SymbolId) => HedgePosition | undefined;
  readonly counters: Counters;
  readonly log: Logger;
}

/** The outcome for one place intent: `intent` is what goes on (shrunk when capped). */
export type CloseCapOutcome =
  | { readonly kind: 'full'; readonly intent: PlaceIntent }
  | { readonly kind: 'shrunk'; readonly intent: PlaceIntent; readonly closable: Dec }
  | { readonly kind: 'dropped'; readonly closable: Dec; readonly detail: string };

export class CloseCapper {
  readonly #open: OpenOrders;
  readonly #specs: ReadonlyMap<SymbolId, ContractSpec>;
  readonly #position: (symbol: SymbolId) => HedgePosition | undefined;
  readonly #counters: Counters;
  readonly #log: Logger;
  /** Terminal close orders whose fills are still in transit (filledQty > fills applied). */
  readonly #inTransit = new Map<ClientOid, Order>();

  constructor(deps: CloseCapDeps) {
    this.#open = deps.open;
    this.#specs = deps.specs;
    this.#position = deps.position;
    this.#counters = deps.counters;
    this.#log = deps.log;
  }

  /** A committed order change: a terminal close with fills still to come is remembered until they do. */
  track(order: Order): void {
    const leg = closedLeg(order.side);
    // Live orders are read from the open-order index; only terminal ones are kept here.
    if (leg !== undefined && isTerminal(order.status) && pendingCloseOf(order, leg).gt(0))
      this.#inTransit.set(order.clientOid, order);
    else this.#inTransit.delete(order.clientOid);
  }

  /**
   * Terminal closes whose fills are still in transit (footprint.ts): each leaves when its fills
   * arrive, so the count stays with the fills not yet seen (none is forgotten if they never come).
   */
  footprint(): Footprint {
    return { inTransit: this.#inTransit.size };
  }

  /**
   * The size a new close of `leg` on `symbol` may take now; for a plan order (`plan`), the venue's
   * position whatever rests on it (a plan reserves nothing until it fires).
   */
  closable(symbol: SymbolId, leg: 'long' | 'short', plan = false): Dec {
    const ofSymbol = (orders: Iterable<Order>): Order[] => [...orders].filter((o) => o.symbol === symbol);
    const pending = pendingCloses(ofSymbol(this.#open.values()), leg, plan).plus(
      pendingCloses(ofSymbol(this.#inTransit.values()), leg, plan),
    );
    const pos = this.#position(symbol);
    return closableSize(pos?.[leg] ?? ZERO, pending);
  }

  /** Caps a place intent (opening intents pass untouched). Counts and logs a capped one. */
  cap(strategy: string, intent: PlaceIntent): CloseCapOutcome {
    const leg = closedLeg(intent.side);
    const spec = this.#specs.get(intent.symbol);
    // Without the contract's size rules there is nothing to round to: the venue decides.
    if (leg === undefined || spec === undefined) return { kind: 'full', intent };
    const closable = this.closable(intent.symbol, leg, intent.triggerPrice !== undefined);
    const c: CloseCap = capClose(intent.size, closable, spec);
    if (c.kind === 'full') return { kind: 'full', intent };
    const asked = decToString(intent.size);
    const left = decToString(closable);
    if (c.kind === 'dropped') {
      return {
        kind: 'dropped',
        closable,
        detail:
          `${intent.side} of ${asked} ${intent.symbol}: the position the venue will see leaves ${left} ` +
          `to close (after the closes resting or in flight and the fills not seen yet), below the minimum size ${decToString(spec.minSize)}`,
      };
    }
    this.#counters.closesCapped++;
    this.#log.info(
      {
        strategy,
        symbol: intent.symbol,
        side: intent.side,
        asked,
        size: decToString(c.size),
        closable: left,
      },
      'close intent shrunk to the closable size',
    );
    return { kind: 'shrunk', intent: { ...intent, size: c.size }, closable };
  }
}
