// What the end-to-end crash tests require of the store after the last run, against the simulator's
// inspection API (/sim/v1/orders, /sim/v1/fills and, with plans, /sim/v1/plans). Returns one line per
// problem; an empty list is a pass.
//
// Orders (with the prefix): no client_oid twice at the venue; none unknown to the store (orphan); the
// store's order id, status and filled quantity as the venue's; no store order claiming to be at the
// venue that is not (an order id, or a status other than rejected/canceled).
// Plans: no plan client_oid twice at the venue (nor a regular order under a plan's client_oid other
// than its child); none unknown to the store; the store's plan id (`planOrderId ?? orderId`) is the
// venue plan's; a fired plan's store `orderId` is its child's, and its status the child's (checked
// with the orders); an untriggered plan is `untriggered` in the store; a plan that ended without a
// child (canceled, expired, its child refused) is `canceled` in the store.
// Fills: each venue fill in the store exactly once, attributed to the client_oid of its order (for a
// plan's child: the plan's client_oid).
import type { Order } from '../../src/core/orders.ts';
import type { StoredFill } from '../../src/store/port.ts';
import type { WireFill, WireOrder, WirePlan } from './capibot-processes.ts';

export interface VenuePicture {
  readonly prefix: string;
  readonly orders: readonly WireOrder[];
  readonly fills: readonly WireFill[];
  /** Absent: the run placed no plans (any store plan is then a problem of the orders). */
  readonly plans?: readonly WirePlan[];
  readonly local: readonly Order[];
  readonly localFills: readonly StoredFill[];
}

const sameStatus = (store: string, venue: string): boolean =>
  (store === 'pending' ? 'open' : store) === (venue === 'pending' ? 'open' : venue);

export function venueProblems(v: VenuePicture): string[] {
  const problems: string[] = [];
  const ours = (oid: string | null): oid is string => oid !== null && oid.startsWith(`${v.prefix}-`);
  const byOid = new Map(v.local.map((o) => [o.clientOid as string, o]));

  const count = new Map<string, number>();
  for (const o of v.orders) count.set(o.client_oid, (count.get(o.client_oid) ?? 0) + 1);
  for (const [oid, n] of count) if (n > 1) problems.push(`${oid}: ${n} orders at the venue`);

  // --- plans
  const plans = v.plans ?? [];
  const planByOid = new Map<string, WirePlan>();
  for (const p of plans) {
    if (!ours(p.client_oid)) continue;
    if (planByOid.has(p.client_oid)) problems.push(`${p.client_oid}: placed twice as a plan`);
    planByOid.set(p.client_oid, p);
  }
  const childIds = new Set(plans.flatMap((p) => (p.childOrderId !== undefined ? [p.childOrderId] : [])));
  for (const o of v.orders) {
    if (planByOid.has(o.client_oid) && !childIds.has(o.order_id))
      problems.push(`${o.client_oid}: a plan and also an order ${o.order_id} that is not its child`);
  }
  for (const [oid, p] of planByOid) {
    const l = byOid.get(oid);
    if (l === undefined) {
      problems.push(`orphan plan ${oid} (${p.status}${p.reason !== undefined ? `: ${p.reason}` : ''})`);
      continue;
    }
    if (l.triggerPrice === undefined) problems.push(`${oid}: a plan at the venue, not in the store`);
    const planId = l.planOrderId ?? l.orderId;
    if (planId !== p.order_id) problems.push(`${oid}: plan id ${planId} ≠ ${p.order_id}`);
    if (p.childOrderId !== undefined) {
      // Fired: the store follows the child (its status and quantity are checked with the orders).
      if (l.orderId !== p.childOrderId)
        problems.push(`${oid}: order id ${l.orderId} ≠ child ${p.childOrderId}`);
    } else if (p.triggerTime === '' && p.reason === undefined) {
      if (l.status !== 'untriggered') problems.push(`${oid}: store ${l.status}, venue untriggered`);
    } else if (l.status !== 'canceled') {
      problems.push(`${oid}: store ${l.status}, venue ended without a child (${p.reason ?? p.status})`);
    }
  }

  // --- orders (a fired plan's child carries the plan's client_oid)
  for (const o of v.orders) {
    if (!ours(o.client_oid)) continue;
    const l = byOid.get(o.client_oid);
    if (l === undefined) {
      problems.push(`orphan ${o.client_oid} (${o.status})`);
      continue;
    }
    if (l.orderId !== o.order_id) problems.push(`${o.client_oid}: order id ${l.orderId} ≠ ${o.order_id}`);
    if (!sameStatus(l.status, o.status))
      problems.push(`${o.client_oid}: store ${l.status}, exchange ${o.status}`);
    if (!l.filledQty.eq(o.filled_qty))
      problems.push(`${o.client_oid}: filled ${l.filledQty.toFixed()} ≠ ${o.filled_qty}`);
  }
  const atExchange = new Set(v.orders.map((o) => o.client_oid));
  for (const l of v.local) {
    if (atExchange.has(l.clientOid) || planByOid.has(l.clientOid)) continue;
    if (l.triggerPrice !== undefined && v.plans === undefined) {
      problems.push(`${l.clientOid}: a plan in the store of a run without plans`);
    } else if (l.orderId !== undefined || (l.status !== 'rejected' && l.status !== 'canceled')) {
      problems.push(`${l.clientOid}: ${l.status} in the store, never at the exchange`);
    }
  }

  // --- fills
  const oidOfOrder = new Map(v.orders.map((o) => [o.order_id, o.client_oid]));
  const stored = new Map(v.localFills.map((f) => [f.tradeId as string, f]));
  if (stored.size !== v.localFills.length) problems.push(`a trade id stored twice`);
  for (const f of v.fills) {
    const s = stored.get(f.tradeId);
    if (s === undefined) problems.push(`fill ${f.tradeId} missing from the store`);
    else if (s.clientOid !== oidOfOrder.get(f.orderId))
      problems.push(`fill ${f.tradeId} attributed to ${s.clientOid ?? 'nobody'}`);
  }
  if (stored.size !== v.fills.length)
    problems.push(`${stored.size} fills stored, ${v.fills.length} at the exchange`);
  return problems;
}
