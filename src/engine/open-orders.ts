// The engine's live orders by client_oid, with their exposure summed for the risk gate as they change
// (risk/exposure.ts): a decision reads a few sums instead of copying and scanning every live order.
// Invariant: `exposure()` equals `openOrderExposure([...values()])` (test/engine/open-orders.test.ts).
import { frozenCopy } from '../core/copies.ts';
import type { Footprint } from '../core/footprint.ts';
import type { ClientOid, StrategyId, SymbolId } from '../core/ids.ts';
import { isProtectivePlan } from '../core/intents.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import { awaitsOutcome } from '../reconcile/history-headroom.ts';
import {
  addOpeningWork,
  NO_OPENING_WORK,
  orderExposure,
  type OpenOrderExposure,
  type OpeningWork,
} from '../risk/exposure.ts';

export class OpenOrders {
  readonly #orders = new Map<ClientOid, Order>();
  /** Per symbol: the opening work of the orders in #orders (entries are replaced, never mutated). */
  readonly #opening = new Map<SymbolId, OpeningWork>();
  /** Orders in #orders that are not terminal (the engine keeps terminal ones out; counted anyway). */
  #live = 0;
  /** The last summary handed out, until something changes. */
  #exposure: OpenOrderExposure | undefined;
  /** Per symbol: how many held orders await the outcome of their placement (`awaitsOutcome`). */
  readonly #unknown = new Map<SymbolId, number>();
  /** Held protective plans waiting for their trigger (stopLoss / takeProfit): most runs have none. */
  #protective = 0;
  /**
   * Per strategy: its held orders in the order of #orders, frozen, until one of them changes.
   * Strategies read their open orders on every ticker; most tickers change none of them.
   */
  readonly #byStrategy = new Map<StrategyId, readonly Order[]>();
  /**
   * The frozen copy strategies see of each held order, made once per revision (the engine's own
   * objects stay unfrozen: order-updates.ts says why).
   */
  readonly #views = new Map<ClientOid, { readonly of: Order; readonly view: Order }>();

  get size(): number {
    return this.#orders.size;
  }

  get(clientOid: ClientOid): Order | undefined {
    return this.#orders.get(clientOid);
  }

  values(): IterableIterator<Order> {
    return this.#orders.values();
  }

  /**
   * The held orders of `strategy`, in the order of `values()`, as a frozen array of frozen copies:
   * the same array until one of them is set or deleted.
   */
  ofStrategy(strategy: StrategyId): readonly Order[] {
    let list = this.#byStrategy.get(strategy);
    if (list === undefined) {
      const out: Order[] = [];
      for (const o of this.#orders.values()) if (o.strategy === strategy) out.push(this.#view(o));
      list = Object.freeze(out);
      this.#byStrategy.set(strategy, list);
    }
    return list;
  }

  #view(o: Order): Order {
    const held = this.#views.get(o.clientOid);
    if (held !== undefined && held.of === o) return held.view;
    const view = frozenCopy(o);
    this.#views.set(o.clientOid, { of: o, view });
    return view;
  }

  /**
   * The frozen copy a strategy sees of `order`: for the revision held here, the one `ofStrategy`
   * lists (so an order update and `ctx.openOrders()` hand the same object); else a new one.
   */
  viewOf(order: Order): Order {
    return this.#orders.get(order.clientOid) === order ? this.#view(order) : frozenCopy(order);
  }

  /** True when some held order is a protective plan waiting for its trigger (cheap: kept counted). */
  hasProtectivePlans(): boolean {
    return this.#protective > 0;
  }

  /** True when an order of `symbol` awaits the outcome of its placement (cheap: kept counted). */
  hasUnknown(symbol: SymbolId): boolean {
    return (this.#unknown.get(symbol) ?? 0) > 0;
  }

  /** Adds an order or replaces the held version of it. */
  set(order: Order): void {
    const before = this.#orders.get(order.clientOid);
    this.#orders.set(order.clientOid, order);
    this.#byStrategy.delete(order.strategy);
    if (before !== undefined) this.#byStrategy.delete(before.strategy);
    if (before !== undefined) this.#countUnknown(before, -1);
    this.#countUnknown(order, 1);
    if (before !== undefined) this.#countProtective(before, -1);
    this.#countProtective(order, 1);
    if (before !== undefined && sameExposure(before, order)) return;
    this.#exposure = undefined;
    if (before !== undefined) this.#account(before, -1);
    this.#account(order, 1);
  }

  delete(clientOid: ClientOid): boolean {
    const before = this.#orders.get(clientOid);
    if (before === undefined) return false;
    this.#orders.delete(clientOid);
    this.#views.delete(clientOid);
    this.#byStrategy.delete(before.strategy);
    this.#exposure = undefined;
    this.#account(before, -1);
    this.#countUnknown(before, -1);
    this.#countProtective(before, -1);
    return true;
  }

  #countProtective(order: Order, sign: 1 | -1): void {
    if (order.status === 'untriggered' && isProtectivePlan(order)) this.#protective += sign;
  }

  #countUnknown(order: Order, sign: 1 | -1): void {
    if (!awaitsOutcome(order)) return;
    this.#unknown.set(order.symbol, (this.#unknown.get(order.symbol) ?? 0) + sign);
  }

  /**
   * The collections' sizes (core/footprint.ts): the live orders, per symbol their sums, and the
   * cached lists (one per strategy at most).
   */
  footprint(): Footprint {
    return {
      orders: this.#orders.size,
      opening: this.#opening.size,
      unknown: this.#unknown.size,
      byStrategy: this.#byStrategy.size,
      views: this.#views.size,
    };
  }

  /** The gate's view of these orders: a snapshot (later changes do not show through). */
  exposure(): OpenOrderExposure {
    this.#exposure ??= Object.freeze({ live: this.#live, opening: new Map(this.#opening) });
    return this.#exposure;
  }

  #account(order: Order, sign: 1 | -1): void {
    if (!isTerminal(order.status)) this.#live += sign;
    const e = orderExposure(order);
    if (e === undefined) return;
    this.#opening.set(e.symbol, addOpeningWork(this.#opening.get(e.symbol) ?? NO_OPENING_WORK, e, sign));
  }
}

/** True when both versions of an order add exactly the same exposure (decimals are immutable). */
function sameExposure(a: Order, b: Order): boolean {
  return (
    a.symbol === b.symbol &&
    a.side === b.side &&
    a.size === b.size &&
    a.filledQty === b.filledQty &&
    a.price === b.price &&
    isTerminal(a.status) === isTerminal(b.status)
  );
}
