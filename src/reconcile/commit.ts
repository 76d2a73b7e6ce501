// Commits one reconcile output to the store, atomically: adopted orders (and their sequences), new
// fills, fill attributions, every event through the order reducer, and the poller cursors that
// produced the input. One transaction, so a crash leaves either all of it or none of it — never a
// cursor ahead of its fills, never a fill without the order state it implies.
import type { OrderEventKind } from '../core/events.ts';
import type { ClientOid } from '../core/ids.ts';
import { applyOrderEvent, type OrderAnomaly } from '../core/order-reducer.ts';
import type { Order } from '../core/orders.ts';
import { parseClientOid } from '../execution/client-oid.ts';
import type { OrderStore } from '../store/port.ts';
import type { ReconcileOutput } from './kernel.ts';

export interface ReconcileAnomaly {
  readonly clientOid: ClientOid;
  readonly event: OrderEventKind;
  readonly anomaly: OrderAnomaly;
}

export interface CommittedReconcile {
  /** Orders inserted or changed, as stored now (adopted ones included). */
  readonly changed: readonly Order[];
  readonly anomalies: readonly ReconcileAnomaly[];
  readonly fillsRecorded: number;
  /** Events whose order is in neither the output nor the store (a bug upstream); not applied. */
  readonly orphanEvents: number;
}

export interface CommitOptions {
  /** capibot's client_oid prefix: adopted orders' sequences are skipped for new orders. */
  readonly prefix: string;
  /** Meta values (poller cursors) written in the same transaction. */
  readonly meta?: Readonly<Record<string, string>>;
}

/**
 * True when committing `out` would write nothing: no adopted order, fill, attribution or event, and
 * every meta value already stored as is (an unchanged cursor needs no write).
 */
function writesNothing(
  store: OrderStore,
  out: ReconcileOutput,
  meta: Readonly<Record<string, string>>,
): boolean {
  if (out.adopted.length > 0 || out.newFills.length > 0 || out.attributed.length > 0 || out.events.length > 0)
    return false;
  for (const [k, v] of Object.entries(meta)) if (store.getMeta(k) !== v) return false;
  return true;
}

export function commitReconcile(
  store: OrderStore,
  out: ReconcileOutput,
  opts: CommitOptions,
): CommittedReconcile {
  // A round that changed nothing (the common case while idle) opens no transaction.
  if (writesNothing(store, out, opts.meta ?? {}))
    return { changed: [], anomalies: [], fillsRecorded: 0, orphanEvents: 0 };
  return store.transaction(() => {
    const working = new Map<ClientOid, Order>();
    const dirty = new Set<ClientOid>();
    const inserted = new Set<ClientOid>();
    for (const a of out.adopted) {
      if (store.getOrder(a.clientOid) !== undefined) continue; // adopted meanwhile: the store wins
      store.insertOrder(a);
      inserted.add(a.clientOid);
      working.set(a.clientOid, a);
      const parsed = parseClientOid(a.clientOid, opts.prefix);
      if (parsed !== undefined) store.bumpSequence?.(a.strategy, parsed.sequence);
    }
    let fillsRecorded = 0;
    for (const f of out.newFills) if (store.recordFill(f)) fillsRecorded++;
    for (const a of out.attributed) store.attributeFill?.(a.tradeId, a.clientOid);

    const anomalies: ReconcileAnomaly[] = [];
    let orphanEvents = 0;
    for (const e of out.events) {
      const order = working.get(e.clientOid) ?? store.getOrder(e.clientOid);
      if (order === undefined) {
        orphanEvents++;
        continue;
      }
      const r = applyOrderEvent(order, e);
      if (r.anomaly !== undefined)
        anomalies.push({ clientOid: e.clientOid, event: e.kind, anomaly: r.anomaly });
      working.set(e.clientOid, r.order);
      if (r.changed) dirty.add(e.clientOid);
    }
    const changed: Order[] = [];
    for (const [oid, order] of working) {
      if (dirty.has(oid)) store.updateOrder(order);
      if (dirty.has(oid) || inserted.has(oid)) changed.push(order);
    }
    for (const [k, v] of Object.entries(opts.meta ?? {})) store.setMeta(k, v);
    return { changed, anomalies, fillsRecorded, orphanEvents };
  });
}
