// The verdict of a chaos run: the runner's store against the exchange (the simulator), after the final
// settle run. Pure: rows in, counts and examples out.
//
// Definitions (an order is "ours" when its client_oid starts with `<prefix>-`). A plan (trigger)
// order is one exchange plan (/sim/v1/plans) and, once it fired, its child: an exchange order under
// the plan's client_oid with an order id of its own. The store keeps ONE order for both (a
// `triggerPrice`; `planOrderId` = the plan's id once the child is linked, `orderId` = the child's).
//
// duplicateOrders — surplus copies of one order: for every client_oid of ours that the exchange holds
//   n > 1 times, n − 1; plus, for every exchange order id that n > 1 store orders claim, n − 1 (one
//   exchange order counted as two of ours). A placement sent twice would show here. Plans: for every
//   client_oid of ours the exchange holds as n > 1 plans, n − 1; plus every exchange order under a
//   plan's client_oid that is not that plan's child (a plan also sent as a regular order).
//
// lostOrders — store orders whose fate the store got wrong, after the settle run:
//   - unsettled: still `submitted` or `unknown` (neither found at the exchange nor declared lost,
//     although the settle run outlived the unknown-grace period);
//   - missingAtExchange: the store believes the exchange accepted the order (it has an order id, a
//     status pending/open/canceling/filled, or a filled quantity) but the exchange has no order with
//     its client_oid;
//   - existsButRejected: the store says `rejected` (refused, or declared lost after the grace period)
//     or still `created` (never sent), while the exchange holds the order;
//   - canceledButLive: the store says `canceled` while the exchange still has the order live
//     (pending/open/canceling): nobody watches or cancels it any more.
//   An order the exchange never received and the store recorded as rejected (or canceled locally
//   before sending) is consistent, not lost.
//   Store plans are judged against the exchange plan of their client_oid (a fired plan's child is then
//   judged as an order, above): missingAtExchange when the store believes the plan accepted but the
//   exchange has no plan for it; existsButRejected, canceledButLive (the plan still untriggered) as
//   for orders; and
//   - planFateMissed: the exchange plan fired (up to `fillCutoff`) but the store never linked its child,
//     or ended without a child (canceled, expired, child refused) while the store still says
//     `untriggered`: the store guards, or would cancel, something that is gone;
//   - planIdsWrong: the store's plan id (`planOrderId ?? orderId`) is not the exchange plan's, or a
//     linked plan's `orderId` is not its child's.
//
// orphanOrders — exchange orders and plans of ours whose client_oid the store does not know
//   (reconciliation should have adopted them).
//
// fillMismatches — over the exchange fills of our orders (by order id) created up to `fillCutoff`
//   (market time; later fills may legitimately be unseen yet) and every store fill:
//   - missingInStore: an exchange fill whose trade id the store lacks;
//   - unknownToExchange: a store fill whose trade id the exchange never produced;
//   - misattributed: a fill in both whose order id, client_oid (null = unattributed), size or value
//     differ;
//   - countedTwice: a store order whose applied-fills quantity (fills_qty) differs from the sum of the
//     store's fills of that order (a fill applied twice, or applied without being stored).
//
// Plan counts (not part of `ok`): plans of ours at the exchange, fired, canceled, failed, expired and
// still untriggered.
//
// Diagnostics (not part of `ok`): status or filled-quantity differences between the two pictures of
// an order both hold, orders left open, orders the store still has as `created`, orders declared lost,
// placements the exchange refused as a reused client_oid (a resent placement: the simulator refuses
// duplicates, so a blind retry shows up here and, usually, as existsButRejected), foreign orders.
import { dec, decSum, ZERO, type Dec } from '../../src/core/decimal.ts';
import type {
  ExchangeFillRow,
  ExchangeOrderRow,
  ExchangePlanRow,
  StoreFillRow,
  StoreOrderRow,
} from './snapshot.ts';

export interface CompareInput {
  readonly prefix: string;
  readonly storeOrders: readonly StoreOrderRow[];
  readonly storeFills: readonly StoreFillRow[];
  readonly exchangeOrders: readonly ExchangeOrderRow[];
  readonly exchangeFills: readonly ExchangeFillRow[];
  readonly exchangePlans: readonly ExchangePlanRow[];
  /**
   * Exchange fills created after this market time are left out (counted as fillsAfterCutoff); plans
   * that fired after it may not be linked yet.
   */
  readonly fillCutoff: number;
}

/** A count and the first few ids behind it (for the investigation). */
export interface Finding {
  readonly count: number;
  readonly examples: readonly string[];
}

/** Our plans at the exchange, by how far they got. */
export interface PlanCounts {
  readonly placed: number;
  readonly fired: number;
  readonly canceled: number;
  readonly failed: number;
  readonly expired: number;
  readonly untriggered: number;
}

export interface Comparison {
  readonly ordersAtExchange: number;
  readonly fillsAtExchange: number;
  readonly plansAtExchange: PlanCounts;
  readonly duplicateOrders: number;
  readonly lostOrders: number;
  readonly orphanOrders: number;
  readonly fillMismatches: number;
  readonly details: {
    readonly duplicates: {
      readonly sameClientOid: Finding;
      readonly sameOrderIdInStore: Finding;
      readonly samePlanClientOid: Finding;
    };
    readonly lost: {
      readonly unsettled: Finding;
      readonly missingAtExchange: Finding;
      readonly existsButRejected: Finding;
      readonly canceledButLive: Finding;
      readonly planFateMissed: Finding;
      readonly planIdsWrong: Finding;
    };
    readonly orphans: Finding;
    readonly orphanPlans: Finding;
    readonly fills: {
      readonly missingInStore: Finding;
      readonly unknownToExchange: Finding;
      readonly misattributed: Finding;
      readonly countedTwice: Finding;
      readonly afterCutoff: number;
    };
    readonly diagnostics: {
      readonly statusDiffers: Finding;
      readonly filledQtyDiffers: Finding;
      readonly openInStore: number;
      readonly liveAtExchange: number;
      readonly createdInStore: number;
      readonly declaredLost: number;
      /** Store orders refused because their client_oid was already used: a placement sent twice. */
      readonly resentPlacements: Finding;
      readonly foreignOrders: number;
    };
  };
}

const EXAMPLES = 10;

class Collector {
  readonly #ids: string[] = [];
  count = 0;
  add(id: string): void {
    this.count++;
    if (this.#ids.length < EXAMPLES) this.#ids.push(id);
  }
  finding(): Finding {
    return { count: this.count, examples: [...this.#ids] };
  }
}

const LIVE_AT_EXCHANGE = new Set(['pending', 'open', 'canceling']);
const ACCEPTED_IN_STORE = new Set(['pending', 'open', 'canceling', 'filled']);
const UNSETTLED_IN_STORE = new Set(['submitted', 'unknown']);
const TERMINAL_IN_STORE = new Set(['filled', 'canceled', 'rejected']);

function groupBy<T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
}

const decOr0 = (s: string | null): Dec => (s === null || s === '' ? ZERO : dec(s));

export function compare(input: CompareInput): Comparison {
  const ours = (clientOid: string): boolean => clientOid.startsWith(`${input.prefix}-`);
  const exOurs = input.exchangeOrders.filter((o) => ours(o.clientOid));
  const foreignOrders = input.exchangeOrders.length - exOurs.length;
  const exByOid = groupBy(exOurs, (o) => o.clientOid);
  const storeByOid = new Map(input.storeOrders.map((o) => [o.clientOid, o]));

  // --- duplicates
  const sameClientOid = new Collector();
  for (const [oid, list] of exByOid) for (let i = 1; i < list.length; i++) sameClientOid.add(oid);
  const sameOrderIdInStore = new Collector();
  const storeByOrderId = groupBy(
    input.storeOrders.filter((o) => o.orderId !== null && o.orderId !== ''),
    (o) => o.orderId ?? '',
  );
  for (const [orderId, list] of storeByOrderId)
    for (let i = 1; i < list.length; i++) sameOrderIdInStore.add(`${orderId}:${list[i]?.clientOid ?? ''}`);
  const exPlans = input.exchangePlans.filter((p) => ours(p.clientOid));
  const exPlanByOid = groupBy(exPlans, (p) => p.clientOid);
  const samePlanClientOid = new Collector();
  for (const [oid, list] of exPlanByOid) for (let i = 1; i < list.length; i++) samePlanClientOid.add(oid);
  const childIds = new Set(exPlans.flatMap((p) => (p.childOrderId !== null ? [p.childOrderId] : [])));
  for (const o of exOurs)
    if (exPlanByOid.has(o.clientOid) && !childIds.has(o.orderId))
      samePlanClientOid.add(`${o.clientOid}:${o.orderId}`);

  // --- lost orders, and the status diagnostics of orders both sides hold
  const unsettled = new Collector();
  const missingAtExchange = new Collector();
  const existsButRejected = new Collector();
  const canceledButLive = new Collector();
  const planFateMissed = new Collector();
  const planIdsWrong = new Collector();
  const statusDiffers = new Collector();
  const filledQtyDiffers = new Collector();
  let openInStore = 0;
  let createdInStore = 0;
  let declaredLost = 0;
  const resentPlacements = new Collector();
  for (const s of input.storeOrders) {
    if (!TERMINAL_IN_STORE.has(s.status)) openInStore++;
    if (s.status === 'created') createdInStore++;
    if (s.status === 'rejected' && s.reason !== null && /lost|no trace/i.test(s.reason)) declaredLost++;
    if (s.reason !== null && /already used/i.test(s.reason)) resentPlacements.add(s.clientOid);
    const x = exByOid.get(s.clientOid)?.[0];
    if (s.triggerPrice !== null && !UNSETTLED_IN_STORE.has(s.status)) {
      const p = exPlanByOid.get(s.clientOid)?.[0];
      const verdict = judgePlan(s, p, input.fillCutoff);
      if (verdict === 'missing') missingAtExchange.add(s.clientOid);
      else if (verdict === 'existsButRejected') existsButRejected.add(s.clientOid);
      else if (verdict === 'canceledButLive') canceledButLive.add(s.clientOid);
      else if (verdict === 'fateMissed') planFateMissed.add(`${s.clientOid}(${p?.state ?? '?'})`);
      else if (verdict === 'idsWrong') planIdsWrong.add(s.clientOid);
      else if (verdict === 'statusDiffers')
        statusDiffers.add(`${s.clientOid}:${s.status}/plan ${p?.state ?? '?'}`);
      // A fired plan is its child from here on: judged as an order below.
      if (verdict !== 'child') continue;
    }
    if (UNSETTLED_IN_STORE.has(s.status)) {
      // Whether the exchange has it tells "never found" from "never declared lost".
      unsettled.add(`${s.clientOid}(${x === undefined ? 'absent' : `exchange:${x.status}`})`);
      continue;
    }
    if (x === undefined) {
      const believedAccepted =
        (s.orderId !== null && s.orderId !== '') ||
        ACCEPTED_IN_STORE.has(s.status) ||
        decOr0(s.filledQty).gt(0) ||
        decOr0(s.fillsQty).gt(0);
      if (believedAccepted) missingAtExchange.add(s.clientOid);
      continue;
    }
    if (s.status === 'rejected' || s.status === 'created') {
      existsButRejected.add(s.clientOid);
      continue;
    }
    if (s.status === 'canceled' && LIVE_AT_EXCHANGE.has(x.status)) {
      canceledButLive.add(s.clientOid);
      continue;
    }
    // Local statuses of accepted orders use the exchange's words.
    if (s.status !== x.status) statusDiffers.add(`${s.clientOid}:${s.status}/${x.status}`);
    if (!decOr0(s.filledQty).eq(decOr0(x.filledQty)))
      filledQtyDiffers.add(`${s.clientOid}:${s.filledQty}/${x.filledQty}`);
  }

  // --- orphans
  const orphans = new Collector();
  for (const oid of exByOid.keys()) if (!storeByOid.has(oid)) orphans.add(oid);
  const orphanPlans = new Collector();
  for (const oid of exPlanByOid.keys()) if (!storeByOid.has(oid)) orphanPlans.add(oid);

  // --- fills
  const exOrderById = new Map(exOurs.map((o) => [o.orderId, o]));
  const allExFills = new Map(input.exchangeFills.map((f) => [f.tradeId, f]));
  const exFills = input.exchangeFills.filter((f) => exOrderById.has(f.orderId));
  const inScope = exFills.filter((f) => f.createdTime <= input.fillCutoff);
  const afterCutoff = exFills.length - inScope.length;
  const storeFillById = new Map(input.storeFills.map((f) => [f.tradeId, f]));

  const missingInStore = new Collector();
  const misattributed = new Collector();
  for (const f of inScope) {
    const s = storeFillById.get(f.tradeId);
    if (s === undefined) {
      missingInStore.add(f.tradeId);
      continue;
    }
    const owner = exOrderById.get(f.orderId);
    const wrong =
      s.orderId !== f.orderId ||
      s.clientOid !== (owner?.clientOid ?? null) ||
      !dec(s.size).eq(dec(f.size)) ||
      !dec(s.value).eq(dec(f.value));
    if (wrong) misattributed.add(f.tradeId);
  }
  const unknownToExchange = new Collector();
  for (const s of input.storeFills) if (!allExFills.has(s.tradeId)) unknownToExchange.add(s.tradeId);

  const countedTwice = new Collector();
  const storeFillsByOid = groupBy(
    input.storeFills.filter((f) => f.clientOid !== null),
    (f) => f.clientOid ?? '',
  );
  for (const s of input.storeOrders) {
    const applied = decOr0(s.fillsQty);
    const stored = decSum((storeFillsByOid.get(s.clientOid) ?? []).map((f) => dec(f.size)));
    if (!applied.eq(stored)) countedTwice.add(`${s.clientOid}:${applied.toFixed()}/${stored.toFixed()}`);
  }

  const duplicateOrders = sameClientOid.count + sameOrderIdInStore.count + samePlanClientOid.count;
  const lostOrders =
    unsettled.count +
    missingAtExchange.count +
    existsButRejected.count +
    canceledButLive.count +
    planFateMissed.count +
    planIdsWrong.count;
  const fillMismatches =
    missingInStore.count + unknownToExchange.count + misattributed.count + countedTwice.count;

  return {
    ordersAtExchange: exOurs.length,
    fillsAtExchange: exFills.length,
    plansAtExchange: planCounts(exPlans),
    duplicateOrders,
    lostOrders,
    orphanOrders: orphans.count + orphanPlans.count,
    fillMismatches,
    details: {
      duplicates: {
        sameClientOid: sameClientOid.finding(),
        sameOrderIdInStore: sameOrderIdInStore.finding(),
        samePlanClientOid: samePlanClientOid.finding(),
      },
      lost: {
        unsettled: unsettled.finding(),
        missingAtExchange: missingAtExchange.finding(),
        existsButRejected: existsButRejected.finding(),
        canceledButLive: canceledButLive.finding(),
        planFateMissed: planFateMissed.finding(),
        planIdsWrong: planIdsWrong.finding(),
      },
      orphans: orphans.finding(),
      orphanPlans: orphanPlans.finding(),
      fills: {
        missingInStore: missingInStore.finding(),
        unknownToExchange: unknownToExchange.finding(),
        misattributed: misattributed.finding(),
        countedTwice: countedTwice.finding(),
        afterCutoff,
      },
      diagnostics: {
        statusDiffers: statusDiffers.finding(),
        filledQtyDiffers: filledQtyDiffers.finding(),
        openInStore,
        liveAtExchange: exOurs.filter((o) => LIVE_AT_EXCHANGE.has(o.status)).length,
        createdInStore,
        declaredLost,
        resentPlacements: resentPlacements.finding(),
        foreignOrders,
      },
    },
  };
}

function planCounts(plans: readonly ExchangePlanRow[]): PlanCounts {
  const n = (state: ExchangePlanRow['state']): number => plans.filter((p) => p.state === state).length;
  return {
    placed: plans.length,
    fired: plans.filter((p) => p.triggerTime !== null).length,
    canceled: n('canceled'),
    failed: n('failed'),
    expired: n('expired'),
    untriggered: n('untriggered'),
  };
}

type PlanVerdict =
  | 'ok'
  /** Fired and linked: the store order is the child's now (judged as an order). */
  | 'child'
  | 'missing'
  | 'existsButRejected'
  | 'canceledButLive'
  | 'fateMissed'
  | 'idsWrong'
  | 'statusDiffers';

/** A settled store plan (not submitted/unknown) against the exchange plan of its client_oid. */
function judgePlan(s: StoreOrderRow, p: ExchangePlanRow | undefined, cutoff: number): PlanVerdict {
  if (p === undefined) {
    const believedAccepted =
      (s.orderId !== null && s.orderId !== '') ||
      ACCEPTED_IN_STORE.has(s.status) ||
      s.status === 'untriggered' ||
      decOr0(s.filledQty).gt(0) ||
      decOr0(s.fillsQty).gt(0);
    return believedAccepted ? 'missing' : 'ok';
  }
  if (s.status === 'rejected' || s.status === 'created') return 'existsButRejected';
  if (s.status === 'canceled' && p.state === 'untriggered') return 'canceledButLive';
  const linked = s.planOrderId !== null;
  const planId = s.planOrderId ?? s.orderId;
  // A plan canceled by client_oid before any plan row named it has no id in the store: harmless.
  if (planId !== null && planId !== p.orderId) return 'idsWrong';
  if (p.childOrderId !== null) {
    if (linked) return s.orderId === p.childOrderId ? 'child' : 'idsWrong';
    // Fired after the cutoff: the store may not have seen it yet.
    return p.triggerTime !== null && p.triggerTime > cutoff ? 'ok' : 'fateMissed';
  }
  if (linked) return 'idsWrong';
  if (p.state === 'untriggered')
    return s.status === 'untriggered' || s.status === 'canceling' ? 'ok' : 'statusDiffers';
  // Ended without a child: canceled, expired, or fired with its child refused.
  if (s.status === 'untriggered') {
    const recent = p.triggerTime !== null && p.triggerTime > cutoff;
    return recent ? 'ok' : 'fateMissed';
  }
  return s.status === 'canceled' ? 'ok' : 'statusDiffers';
}
