// What a prune of the store removes (pure; both stores apply the same plan, see port.ts `prune`).
// A long live run must not grow its store for ever: terminal orders, their fills, intent-journal lines
// and finished plan orders older than a cutoff go. What must never change:
//
//  P1  A non-terminal order, and any fill of one (by client_oid or by exchange order id), stays.
//  P2  Every position leg folded from the stored fills (core/positions.ts, as the engine folds them at
//      start and `capibot status` shows them) keeps its quantity, entry cost, realised PnL and fees:
//      the removed fills of a leg are replaced by one carry fill (./carry.ts) folded first. So only a
//      prefix of each leg's fills (in fold order: creation time, then insertion) can go, strictly
//      before the first fill of the leg that stays.
//  P3  An order goes only with all of its fills, and a fill only with its order: a fill left behind
//      would lose its strategy in the fold.
//  P4  Nothing reconciliation could read again from the exchange goes, or it would come back as new:
//      fills from the fills cursor on (`fillsBefore`, set by the caller from the cursor minus the
//      overlap); orders the order-history endpoint can still return. That endpoint answers the newest
//      `historyPageSize` orders of a symbol created since the oldest non-terminal order of the symbol
//      (a few minutes back when none): so a terminal order created after that order (less
//      `reachMarginMs` for clock skew) stays, unless `historyPageSize` newer orders of its symbol
//      known to the exchange bury it. (A pruned order that history returned would be adopted again.)
//  P5  The cutoff lies at least `minAgeMs` before the store's latest activity, so the reconciler's
//      recent windows (terminal orders of the last minutes, unattributed fills) never lose a row.
//
// Plan orders (shown, never acted on) go when finished and last seen before the cutoff.
import { BadInputError } from '../core/errors.ts';
import type { ClientOid, OrderId, SymbolId, TradeId } from '../core/ids.ts';
import { isTerminal, type Order, type OrderStatus } from '../core/orders.ts';
import { fillEffect, positionKey, positionsFromFills, type PositionFill } from '../core/positions.ts';
import type { PlanStatus } from '../core/reports.ts';
import { carryRows, isCarryFill, isCarryOrder, isEmptyLeg, type CarryRows } from './carry.ts';
import type { PruneResult, StoredFill, StoredPlanOrder } from './port.ts';

export interface PruneRules {
  /** Terminal orders last updated, journal lines written and plan orders last seen before this go. */
  readonly before: number;
  /** Fills created before this may go (at most `before`; default `before`). See P4. */
  readonly fillsBefore?: number;
  /** Rows of one order-history page the reconciler asks for (P4). Default 100. */
  readonly historyPageSize?: number;
  /** Clock-skew margin around creation times for the history reach (P4). Default 60 s. */
  readonly reachMarginMs?: number;
  /** The cutoff must lie this long before the store's latest activity (P5). Default 1 h. */
  readonly minAgeMs?: number;
  /** A time the store knows it reached besides its rows (the last reconciliation), for P5. */
  readonly latestKnown?: number;
}

export const PRUNE_DEFAULTS = Object.freeze({
  historyPageSize: 100,
  reachMarginMs: 60_000,
  minAgeMs: 3_600_000,
});

export interface PruneInput {
  readonly orders: readonly Order[];
  /** Every fill, in fold order (creation time, then insertion), as `allFills()` returns them. */
  readonly fills: readonly StoredFill[];
  readonly plans: readonly StoredPlanOrder[];
}

/** What a prune removed (or, in a dry run, would remove). Carry rows are not counted as removed. */
export interface PruneCounts {
  readonly orders: number;
  readonly ordersByStatus: Readonly<Partial<Record<OrderStatus, number>>>;
  readonly fills: number;
  readonly planOrders: number;
  /** Legs whose removed fills were replaced by a carry fill. */
  readonly carriedLegs: number;
  /** Terminal orders updated before the cutoff that stay (P2–P4). */
  readonly keptTerminalOrders: number;
  /** Fills created before the cutoff that stay (P1–P4). */
  readonly keptFills: number;
}

export interface PrunePlan {
  readonly removeOrders: readonly ClientOid[];
  readonly removeFills: readonly TradeId[];
  readonly removePlans: readonly OrderId[];
  readonly carry: readonly CarryRows[];
  readonly counts: PruneCounts;
  /** The store's latest activity (P5); undefined for an empty store. */
  readonly latestAt: number | undefined;
  readonly fillsBefore: number;
}

const FINISHED_PLANS: ReadonlySet<PlanStatus> = new Set(['canceled', 'filled', 'triggered']);

/** First index of `xs` (ascending) whose value is > `v`. */
function upperBound(xs: readonly number[], v: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((xs[mid] as number) <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The store's latest activity: order updates, fills, and what the caller knows. */
function latestActivity(input: PruneInput, known: number | undefined): number | undefined {
  let latest = known;
  for (const o of input.orders) if (latest === undefined || o.updatedAt > latest) latest = o.updatedAt;
  for (const f of input.fills) if (latest === undefined || f.createdTime > latest) latest = f.createdTime;
  return latest;
}

export function planPrune(input: PruneInput, rules: PruneRules): PrunePlan {
  const before = rules.before;
  if (!Number.isSafeInteger(before)) throw new BadInputError(`not a time: ${before}`, '--before');
  const fillsBefore = Math.min(rules.fillsBefore ?? before, before);
  const pageSize = rules.historyPageSize ?? PRUNE_DEFAULTS.historyPageSize;
  const margin = rules.reachMarginMs ?? PRUNE_DEFAULTS.reachMarginMs;
  const minAge = rules.minAgeMs ?? PRUNE_DEFAULTS.minAgeMs;
  const latestAt = latestActivity(input, rules.latestKnown);
  if (latestAt !== undefined && before > latestAt - minAge) {
    throw new BadInputError(
      `${new Date(before).toISOString()} is too recent: the cutoff must lie at least ${minAge / 60_000} min ` +
        `before the store's latest activity (${new Date(latestAt).toISOString()}), so that the reconciler's ` +
        'recent windows keep every row',
      '--before',
    );
  }

  const byOid = new Map<ClientOid, Order>();
  const byOrderId = new Map<OrderId, ClientOid[]>();
  /** Per symbol: the oldest non-terminal order's creation, and creation times of exchange orders. */
  const oldestOpen = new Map<SymbolId, number>();
  const atExchange = new Map<SymbolId, number[]>();
  for (const o of input.orders) {
    byOid.set(o.clientOid, o);
    if (o.orderId !== undefined) {
      const same = byOrderId.get(o.orderId);
      if (same === undefined) byOrderId.set(o.orderId, [o.clientOid]);
      else same.push(o.clientOid);
      const times = atExchange.get(o.symbol);
      if (times === undefined) atExchange.set(o.symbol, [o.createdAt]);
      else times.push(o.createdAt);
    }
    if (!isTerminal(o.status)) {
      const t = oldestOpen.get(o.symbol);
      if (t === undefined || o.createdAt < t) oldestOpen.set(o.symbol, o.createdAt);
    }
  }
  for (const times of atExchange.values()) times.sort((a, b) => a - b);

  // Candidates (P1, P4): terminal, updated before the cutoff, out of order history's reach.
  const candidates = new Set<ClientOid>();
  for (const o of input.orders) {
    if (!isTerminal(o.status) || o.updatedAt >= before) continue;
    const reach = oldestOpen.get(o.symbol);
    if (reach !== undefined && !isCarryOrder(o) && o.createdAt >= reach - margin) {
      const times = atExchange.get(o.symbol) ?? [];
      const newer = times.length - upperBound(times, o.createdAt + margin);
      if (newer < pageSize) continue;
    }
    candidates.add(o.clientOid);
  }

  /** The stored orders a fill belongs to: by client_oid, and every order with its exchange id. */
  const owners = (f: StoredFill): ClientOid[] => {
    const out = [...(byOrderId.get(f.orderId) ?? [])];
    if (f.clientOid !== undefined && byOid.has(f.clientOid) && !out.includes(f.clientOid))
      out.push(f.clientOid);
    return out;
  };
  const ownersOf = input.fills.map(owners);
  // The leg each fill moves, as the fold attributes it (null: the fold skips the fill).
  const legOf = input.fills.map((f) => {
    const o = f.clientOid !== undefined ? byOid.get(f.clientOid) : undefined;
    const effect = fillEffect(f, o?.side);
    return effect === undefined ? null : positionKey(o?.strategy, f.symbol, effect.leg);
  });

  // P2/P3 to a fixed point: each pass only shrinks the candidates, so it ends.
  let removable: boolean[];
  for (;;) {
    removable = input.fills.map(
      (f, i) => f.createdTime < fillsBefore && (ownersOf[i] as ClientOid[]).every((o) => candidates.has(o)),
    );
    const barrier = new Map<string, number>();
    input.fills.forEach((f, i) => {
      const key = legOf[i];
      if (key === null || key === undefined || removable[i]) return;
      const b = barrier.get(key);
      if (b === undefined || f.createdTime < b) barrier.set(key, f.createdTime);
    });
    let changed = false;
    input.fills.forEach((f, i) => {
      const key = legOf[i];
      const b = key === null || key === undefined ? undefined : barrier.get(key);
      if (removable[i] && b !== undefined && f.createdTime >= b) removable[i] = false;
      if (removable[i]) return;
      for (const o of ownersOf[i] as ClientOid[]) if (candidates.delete(o)) changed = true;
    });
    if (!changed) break;
  }

  // Carry rows: the removed prefix of each leg, folded alone.
  const removedByLeg = new Map<string, { fills: PositionFill[]; at: number }>();
  input.fills.forEach((f, i) => {
    const key = legOf[i];
    if (!removable[i] || key === null || key === undefined) return;
    const o = f.clientOid !== undefined ? byOid.get(f.clientOid) : undefined;
    const pf: PositionFill = {
      fill: f,
      ...(o !== undefined ? { strategy: o.strategy, orderSide: o.side } : {}),
    };
    const leg = removedByLeg.get(key);
    if (leg === undefined) removedByLeg.set(key, { fills: [pf], at: f.createdTime });
    else {
      leg.fills.push(pf);
      leg.at = Math.max(leg.at, f.createdTime);
    }
  });
  const carry: CarryRows[] = [];
  for (const [key, leg] of [...removedByLeg].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const p = positionsFromFills(leg.fills).book.get(key);
    if (p !== undefined && !isEmptyLeg(p)) carry.push(carryRows(key, p, leg.at, before));
  }
  const carryOids = new Set<string>();
  for (const c of carry) {
    const oid = c.order?.clientOid;
    if (oid === undefined) continue;
    if (carryOids.has(oid) || (byOid.has(oid) && !candidates.has(oid))) {
      throw new BadInputError(`two position legs would be carried under one id ${oid}; nothing was pruned`);
    }
    carryOids.add(oid);
  }

  const removeOrders = input.orders.filter((o) => candidates.has(o.clientOid));
  const ordersByStatus: Partial<Record<OrderStatus, number>> = {};
  let orders = 0;
  for (const o of removeOrders) {
    if (isCarryOrder(o)) continue;
    orders++;
    ordersByStatus[o.status] = (ordersByStatus[o.status] ?? 0) + 1;
  }
  let fills = 0;
  let keptFills = 0;
  input.fills.forEach((f, i) => {
    if (isCarryFill(f)) return;
    if (removable[i]) fills++;
    else if (f.createdTime < before) keptFills++;
  });
  const removePlans = input.plans
    .filter((p) => FINISHED_PLANS.has(p.status) && p.lastSeenAt < before)
    .map((p) => p.orderId);
  const keptTerminalOrders = input.orders.filter(
    (o) => isTerminal(o.status) && o.updatedAt < before && !candidates.has(o.clientOid) && !isCarryOrder(o),
  ).length;

  return {
    removeOrders: removeOrders.map((o) => o.clientOid),
    removeFills: input.fills.filter((_, i) => removable[i]).map((f) => f.tradeId),
    removePlans,
    carry,
    counts: {
      orders,
      ordersByStatus,
      fills,
      planOrders: removePlans.length,
      carriedLegs: carry.length,
      keptTerminalOrders,
      keptFills,
    },
    latestAt,
    fillsBefore,
  };
}

/** The result a store returns for `plan`. */
export function pruneResult(plan: PrunePlan, before: number, dryRun: boolean, journal: number): PruneResult {
  return { ...plan.counts, dryRun, before, fillsBefore: plan.fillsBefore, journal };
}
