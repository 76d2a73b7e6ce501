// Stop-loss / take-profit plans attached to an opening order (`PlaceIntent.attach`, `ctx.place({…,
// stopLoss, takeProfit})`). The attachment is written to the store (meta `attach.<client_oid>`) in the
// order's own write-ahead transaction, so it survives a restart. Once the order has ended with a fill
// AND its fills are in the position (the venue's history can report a fill a poll before its fills
// arrive), the engine places one protective close plan per price for the filled size — the intents
// `ctx.stopLoss` / `ctx.takeProfit` would build, through the same risk gate and close cap — and
// removes the attachment in the same transaction.
// An order that ends without a fill drops it. Nothing reads a terminal order's attachment again (a
// restart restores the open orders' only), so none is kept: the meta table does not grow per order.
//
// Why not the venue's preset TP/SL fields: the venue makes those legs itself, without a client_oid,
// so no strategy could claim their fills (README design section).
import { z } from 'zod';
import { ZERO, dec, decToString, type Dec } from '../core/decimal.ts';
import type { Footprint } from '../core/footprint.ts';
import type { ClientOid } from '../core/ids.ts';
import type { AttachedPlans, PlaceIntent } from '../core/intents.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import type { OrderStore } from '../store/port.ts';

export const attachKey = (clientOid: ClientOid): string => `attach.${clientOid}`;

const Stored = z.strictObject({ stopLoss: z.string().optional(), takeProfit: z.string().optional() });

export function encodeAttached(a: AttachedPlans): string {
  return JSON.stringify({
    ...(a.stopLoss !== undefined ? { stopLoss: decToString(a.stopLoss) } : {}),
    ...(a.takeProfit !== undefined ? { takeProfit: decToString(a.takeProfit) } : {}),
  });
}

/** The stored attachment; undefined when there is none, it was done ('') or it cannot be read. */
export function decodeAttached(text: string | undefined): AttachedPlans | undefined {
  if (text === undefined || text === '') return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = Stored.safeParse(raw);
  if (!r.success) return undefined;
  return {
    ...(r.data.stopLoss !== undefined ? { stopLoss: dec(r.data.stopLoss) } : {}),
    ...(r.data.takeProfit !== undefined ? { takeProfit: dec(r.data.takeProfit) } : {}),
  };
}

/** The order has ended with a fill and every filled unit is in the position. */
export function settledWithFill(o: Order): boolean {
  return isTerminal(o.status) && o.filledQty.gt(0) && (o.fillsQty ?? ZERO).gte(o.filledQty);
}

/** The protective plans of `a` for the filled part of the opening order `o`. */
export function attachedIntents(o: Order, a: AttachedPlans): PlaceIntent[] {
  const side = o.side === 'open_long' ? 'close_long' : 'close_short';
  const plan = (triggerPrice: Dec, tag: 'stop-loss' | 'take-profit'): PlaceIntent =>
    Object.freeze({
      kind: 'place',
      symbol: o.symbol,
      side,
      size: o.filledQty,
      orderType: 'normal',
      triggerPrice,
      tag,
    });
  return [
    ...(a.stopLoss !== undefined ? [plan(a.stopLoss, 'stop-loss')] : []),
    ...(a.takeProfit !== undefined ? [plan(a.takeProfit, 'take-profit')] : []),
  ];
}

/**
 * The orders with an attachment not done yet. Kept in memory (no store read per order); filled from
 * the store's open orders at start-up.
 */
export class AttachedPlanBook {
  readonly #waiting = new Set<ClientOid>();
  readonly #store: Pick<OrderStore, 'getMeta' | 'setMeta' | 'deleteMeta'>;

  constructor(store: Pick<OrderStore, 'getMeta' | 'setMeta' | 'deleteMeta'>) {
    this.#store = store;
  }

  /**
   * Orders whose attachment is not done (footprint.ts): each leaves when it ends without a fill or
   * when its fills are all in, so the count stays with the open orders and the fills not yet seen.
   */
  footprint(): Footprint {
    return { waiting: this.#waiting.size };
  }

  /** Writes the attachment of a new order (call inside the order's write-ahead transaction). */
  attach(clientOid: ClientOid, a: AttachedPlans): void {
    this.#store.setMeta(attachKey(clientOid), encodeAttached(a));
    this.#waiting.add(clientOid);
  }

  /** Start-up: the open orders whose attachment is not done yet. */
  restore(open: Iterable<Order>): void {
    for (const o of open)
      if (decodeAttached(this.#store.getMeta(attachKey(o.clientOid))) !== undefined)
        this.#waiting.add(o.clientOid);
  }

  /** True when `o` has an attachment not done yet and has ended (`due` may then have work). */
  mayBeDue(o: Order): boolean {
    return this.#waiting.has(o.clientOid) && isTerminal(o.status);
  }

  /**
   * The intents now due for `o` (marking its attachment done: call inside a transaction that places
   * them), or none: no attachment, not settled yet, or ended without a fill (attachment dropped).
   */
  due(o: Order): PlaceIntent[] {
    if (!this.mayBeDue(o)) return [];
    if (o.filledQty.gt(0) && !settledWithFill(o)) return []; // its fills are still coming
    this.#waiting.delete(o.clientOid);
    const key = attachKey(o.clientOid);
    const a = decodeAttached(this.#store.getMeta(key));
    this.#store.deleteMeta(key);
    return a === undefined || o.filledQty.lte(0) ? [] : attachedIntents(o, a);
  }
}
