// The batch planner (pure): turns the queued, approved placements into as few requests as possible.
//
// - Placements are grouped per symbol, in queue order, into chunks of at most `maxBatch` (20).
// - Each chunk goes as one batchOrders call, or as placeOrder calls when that is cheaper: the cost of
//   an option is the share of its bottleneck weight pool, ties going to fewer requests. With the
//   catalogue's weights (placeOrder IP 2 / UID 5, batchOrders IP 5 / UID 10) exactly the lone order
//   goes as placeOrder.
// - Every placement ends up in exactly one call (or, with `supersede`, in `superseded`). Per symbol,
//   the calls and the entries within them keep queue order.
// - Calls are ordered by urgency: the most urgent placement (highest priority, then oldest, then
//   first queued) a call or any later call of its symbol carries; the chunks of one symbol therefore
//   stay in queue order, and an urgent placement pulls the older ones of its symbol forward.
// - Plan (trigger) placements (`triggerPrice` set) go one per plan_order call (the venue has no batch
//   of plans), after the regular calls of equal urgency; among themselves they keep queue order.
// - Supersede (optional): of the queued placements sharing strategy + symbol + tag, only the newest
//   (last queued) is kept; the older ones come back in `superseded` for the engine to mark rejected
//   ('superseded'). Untagged placements are never superseded.
import type { Dec } from '../core/decimal.ts';
import { ENDPOINTS, VENUE_LIMITS } from '../core/endpoints.ts';
import type { ClientOid, StrategyId, SymbolId } from '../core/ids.ts';
import { mapToObjects } from '../core/object-lists.ts';
import { sortInPlace } from '../core/small-sort.ts';
import type { PlaceEntry } from '../exchange/port.ts';

export interface QueuedPlacement {
  readonly symbol: SymbolId;
  readonly clientOid: ClientOid;
  readonly strategy: StrategyId;
  readonly tag?: string;
  /** Higher goes first. */
  readonly priority: number;
  /** Clock time the placement was queued (older goes first among equal priorities). */
  readonly enqueuedAt: number;
  readonly entry: PlaceEntry;
  /** Present: a plan (trigger) order, sent alone with plan_order. */
  readonly triggerPrice?: Dec;
}

export type PlannedCall<P extends QueuedPlacement = QueuedPlacement> =
  | { readonly kind: 'batch'; readonly symbol: SymbolId; readonly entries: readonly P[] }
  | { readonly kind: 'single'; readonly symbol: SymbolId; readonly entry: P }
  | { readonly kind: 'plan'; readonly symbol: SymbolId; readonly entry: P };

export interface PlacementPlan<P extends QueuedPlacement = QueuedPlacement> {
  readonly calls: readonly PlannedCall<P>[];
  readonly superseded: readonly P[];
}

export interface PlannerOptions {
  /** Largest batch (the exchange allows 20). */
  readonly maxBatch: number;
  /** Replace queued placements by newer ones with the same strategy + symbol + tag. */
  readonly supersede: boolean;
  /** Pool sizes used to compare the cost of a batch with single placements. */
  readonly ipWeightPerWindow: number;
  readonly uidWeightPerWindow: number;
}

export const DEFAULT_PLANNER_OPTIONS: PlannerOptions = Object.freeze({
  maxBatch: VENUE_LIMITS.maxBatchOrders,
  supersede: false,
  ipWeightPerWindow: VENUE_LIMITS.ipWeightPerWindow,
  uidWeightPerWindow: VENUE_LIMITS.uidWeightPerWindow,
});

/** Share of the bottleneck pool used by `n` requests of an endpoint. */
function bottleneck(ip: number, uid: number, o: PlannerOptions): number {
  return Math.max(ip / o.ipWeightPerWindow, uid / o.uidWeightPerWindow);
}

/** True when `n` placeOrder calls cost less than one batchOrders call of `n` entries. */
export function singlesAreCheaper(n: number, o: PlannerOptions = DEFAULT_PLANNER_OPTIONS): boolean {
  const { placeOrder: p, batchOrders: b } = ENDPOINTS;
  const singles = bottleneck(n * p.ipWeight, n * p.uidWeight, o);
  const batch = bottleneck(b.ipWeight, b.uidWeight, o);
  // A tie goes to the batch: one request instead of several (and one less against the 10 req/s cap).
  return singles < batch;
}

interface Urgency {
  readonly priority: number;
  readonly enqueuedAt: number;
  readonly index: number;
}

/** Negative when a is more urgent than b. */
function compareUrgency(a: Urgency, b: Urgency): number {
  return b.priority - a.priority || a.enqueuedAt - b.enqueuedAt || a.index - b.index;
}

function supersedeKey(p: QueuedPlacement): string | undefined {
  return p.tag === undefined ? undefined : JSON.stringify([p.strategy, p.symbol, p.tag]);
}

export function planPlacements<P extends QueuedPlacement>(
  queue: readonly P[],
  options: Partial<PlannerOptions> = {},
): PlacementPlan<P> {
  const o: PlannerOptions = { ...DEFAULT_PLANNER_OPTIONS, ...options };
  if (!Number.isInteger(o.maxBatch) || o.maxBatch < 1)
    throw new RangeError(`maxBatch must be a positive integer, got ${o.maxBatch}`);

  // Supersede: keep the last placement of each key.
  const superseded: P[] = [];
  let kept: readonly { p: P; index: number }[] = mapToObjects(queue, (p, index) => ({ p, index }));
  if (o.supersede) {
    const newest = new Map<string, number>();
    for (const { p, index } of kept) {
      const k = supersedeKey(p);
      if (k !== undefined) newest.set(k, index);
    }
    kept = kept.filter(({ p, index }) => {
      const k = supersedeKey(p);
      const keep = k === undefined || newest.get(k) === index;
      if (!keep) superseded.push(p);
      return keep;
    });
  }

  // Group per symbol (regular placements) and per symbol (plans), in queue order.
  const bySymbol = new Map<string, { p: P; index: number }[]>();
  for (const item of kept) {
    // Stryker disable next-line EqualityOperator: equivalent, the two keys only label the groups; a group's kind is read from its first placement
    const key = item.p.triggerPrice === undefined ? item.p.symbol : `${item.p.symbol}\u0000plan`;
    const group = bySymbol.get(key);
    if (group === undefined) bySymbol.set(key, [item]);
    else group.push(item);
  }

  // Chunk each group; a chunk's urgency is the most urgent of it and every later chunk of its group.
  const chunks: { calls: PlannedCall<P>[]; urgency: Urgency; order: number }[] = [];
  for (const group of bySymbol.values()) {
    const first = group[0];
    // Stryker disable next-line ConditionalExpression: unreachable, a group is created with its first placement
    if (first === undefined) continue;
    const symbol = first.p.symbol;
    const plans = first.p.triggerPrice !== undefined;
    const chunkSize = plans ? 1 : o.maxBatch;
    const symbolChunks: { calls: PlannedCall<P>[]; urgency: Urgency }[] = [];
    for (let i = 0; i < group.length; i += chunkSize) {
      const slice = group.slice(i, i + chunkSize);
      let urgency: Urgency | undefined;
      for (const { p, index } of slice) {
        const u = { priority: p.priority, enqueuedAt: p.enqueuedAt, index };
        if (urgency === undefined || compareUrgency(u, urgency) < 0) urgency = u;
      }
      const entries = mapToObjects(slice, (s) => s.p);
      const calls: PlannedCall<P>[] = plans
        ? mapToObjects(entries, (entry) => ({ kind: 'plan', symbol, entry }))
        : singlesAreCheaper(entries.length, o)
          ? mapToObjects(entries, (entry) => ({ kind: 'single', symbol, entry }))
          : [{ kind: 'batch', symbol, entries }];
      if (urgency !== undefined) symbolChunks.push({ calls, urgency });
    }
    for (let k = symbolChunks.length - 2; k >= 0; k--) {
      const here = symbolChunks[k];
      const next = symbolChunks[k + 1];
      if (here !== undefined && next !== undefined && compareUrgency(next.urgency, here.urgency) < 0) {
        symbolChunks[k] = { calls: here.calls, urgency: next.urgency };
      }
    }
    symbolChunks.forEach((c, order) => chunks.push({ calls: c.calls, urgency: c.urgency, order }));
  }
  // Equal urgency only happens between chunks of one symbol (the index is unique): keep their order.
  sortInPlace(chunks, (a, b) => compareUrgency(a.urgency, b.urgency) || a.order - b.order);
  return { calls: chunks.flatMap((c) => c.calls), superseded };
}

/** Number of placements a plan's calls carry. */
export function placementCount(calls: readonly PlannedCall[]): number {
  let n = 0;
  for (const c of calls) n += c.kind === 'batch' ? c.entries.length : 1;
  return n;
}
