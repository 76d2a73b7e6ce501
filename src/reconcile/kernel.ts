// The reconcile kernel: (local book, order-history rows, fills) → order events. PURE: no clock (now is
// given), no I/O, no randomness; the same input gives the same output, in a deterministic order.
//
// Invariants (ARCHITECTURE.md 2, 4, 5, 10; field-survey §3 lists the failures they prevent):
//  K1  An order whose placement outcome is unknown is settled by its client_oid, never by guessing:
//      found at the exchange → OrderAccepted (its order id), then whatever the exchange reports.
//  K2  It is declared lost (OrderLost, plus a loud `order-lost` warning) only after `graceMs` without
//      any trace, and only if the history rows cover its creation time (`historyCoversSince`).
//      An order the exchange acknowledged is never declared lost.
//  K3  The kernel never moves an order backwards: duplicated and lagging rows are collapsed to the most
//      advanced row per exchange order, and events that would not advance the local order are not
//      emitted. The reducer's transition table is the second line of defence (it absorbs stale events).
//  K4  Exchange terminal states reach local open orders (filled → OrderCompleted, canceled →
//      OrderCanceled with the filled quantity). Local terminal states are never contradicted by an
//      event that moves status: contradictions become warnings (and the reducer's anomalies).
//  K5  Every fill is emitted at most once: deduplicated by tradeId against the store
//      (`knownTradeIds`) and within the batch. Fills of orders not known yet are returned unattributed
//      and attributed (with their OrderFilled event) the first time their order id is linked.
//      Late fills on canceled orders are emitted like any other.
//  K6  Orders at the exchange carrying capibot's prefix but missing locally are adopted (returned as
//      orders to insert before the events are applied); orders with other prefixes or none are
//      reported as foreign and never touched.
//
// Applying the output: insert `adopted`, record `newFills`, attribute `attributed`, then apply
// `events` in order through applyOrderEvent (src/core/order-reducer.ts), all in one store transaction.
import { ZERO, type Dec } from '../core/decimal.ts';
import type { OrderEvent } from '../core/events.ts';
import type { ClientOid, OrderId, StrategyId, SymbolId, TradeId } from '../core/ids.ts';
import { NO_OBJECTS } from '../core/object-lists.ts';
import {
  ORDER_SIDES,
  ORDER_TYPES,
  isTerminal,
  isUntriggeredPlan,
  type Order,
  type OrderSide,
  type OrderStatus,
  type OrderType,
} from '../core/orders.ts';
import type { FillReport, OrderReport } from '../core/reports.ts';
import { byCodeUnits, sortInPlace } from '../core/small-sort.ts';
import type { StoredFill } from '../store/port.ts';
import { parseOwnClientOid } from './own-oid.ts';
import { collapseReports, isVenueTerminal, localStatusOf, VENUE_RANK } from './report-rows.ts';
import { storedFill } from '../store/stored-fill.ts';

export interface ReconcileInput {
  /**
   * Local orders: every non-terminal one and the recently terminal ones (a round passes those its
   * rows and fills name: a terminal order nothing names yields nothing; round-orders.ts).
   */
  readonly orders: readonly Order[];
  /** Order-history rows (any order, duplicates and stale rows allowed). */
  readonly reports: readonly OrderReport[];
  /** Fills fetched by the fills poller (duplicates allowed). */
  readonly fills: readonly FillReport[];
  /** Is this tradeId already in the store? */
  readonly knownTradeIds: (id: TradeId) => boolean;
  readonly now: number;
  /** How long an order may stay unknown without a trace before it is declared lost. */
  readonly graceMs: number;
  /** capibot's client_oid prefix. */
  readonly prefix: string;
  /** Configured strategy ids, to name the strategy of adopted orders (see own-oid.ts). */
  readonly strategies?: readonly StrategyId[];
  /**
   * Is this client_oid in the store at all? Orders older than `orders` covers must not be adopted
   * a second time. Default: only the orders in `orders` are known.
   */
  readonly isKnownOrder?: (clientOid: ClientOid) => boolean;
  /**
   * The earliest creation time `reports` are known to cover completely (the history window's lower
   * bound, when the page was not full). Orders created earlier are never declared lost: absence from
   * a window that does not reach them proves nothing. Undefined: the rows cover every local order.
   */
  readonly historyCoversSince?: number;
  /**
   * The same bound per symbol, when the history was read per symbol: an order is judged by its own
   * symbol's window (falling back to `historyCoversSince`), so one busy symbol whose page came back
   * full cannot keep every other symbol's unknown orders from ever being settled.
   */
  readonly historyCoversSinceBySymbol?: ReadonlyMap<SymbolId, number>;
  /** Stored fills that have no client_oid yet (their order was unknown when they were recorded). */
  readonly unattributedFills?: readonly StoredFill[];
  /**
   * Looks up a stored order by exchange order id, for fills of orders outside `orders` (a late fill on
   * an order that ended long ago). Events may then concern such an order: load it by client_oid.
   */
  readonly orderOf?: (orderId: OrderId) => Order | undefined;
  /**
   * Which unconfirmed orders these reports can prove lost: `orders` (default) the regular ones, from
   * order history; `plans` the plan (trigger) orders, from currentPlan + historyPlan rows. An order
   * is only ever declared lost by the reads that would list it.
   */
  readonly lostScope?: 'orders' | 'plans';
}

export type ReconcileWarningCode =
  /** An unknown order was declared lost: no trace at the exchange after the grace period. */
  | 'order-lost'
  /** An order recorded as rejected/lost exists at the exchange (act on it: it may fill). */
  | 'lost-order-found'
  /** An unknown order is past its grace period but the history rows do not cover its creation. */
  | 'unsettled-outside-history'
  /** Two exchange orders carry one client_oid (invariant 1 broken somewhere). */
  | 'duplicate-client-oid'
  /** The exchange order id in a row differs from the one recorded for the client_oid. */
  | 'order-id-mismatch'
  /** History rows for one order say both filled and canceled. */
  | 'conflicting-reports'
  /** The exchange's terminal state differs from the local terminal state. */
  | 'terminal-mismatch'
  /** An order with our prefix that cannot be adopted (not a regular side). */
  | 'unadoptable';

export interface ReconcileWarning {
  readonly code: ReconcileWarningCode;
  readonly message: string;
  readonly clientOid?: ClientOid;
  readonly orderId?: OrderId;
}

export interface FillAttribution {
  readonly tradeId: TradeId;
  readonly clientOid: ClientOid;
}

export interface ReconcileOutput {
  /** Grouped by client_oid (sorted), each group in causal order. */
  readonly events: readonly OrderEvent[];
  readonly adopted: readonly Order[];
  readonly foreign: readonly OrderReport[];
  /** Fills not seen before, oldest first; `clientOid` set when their order is known. */
  readonly newFills: readonly StoredFill[];
  /** Previously unattributed stored fills whose order is now known. */
  readonly attributed: readonly FillAttribution[];
  readonly warnings: readonly ReconcileWarning[];
}

/** Statuses of orders whose placement the exchange has not confirmed yet, and that may be lost. */
const MAY_BE_LOST: ReadonlySet<OrderStatus> = new Set(['submitted', 'unknown', 'canceling']);

/** An order the exchange never acknowledged, which reconciliation may come to declare lost (K2). */
export function mayBeLost(order: Pick<Order, 'orderId' | 'status'>): boolean {
  return order.orderId === undefined && MAY_BE_LOST.has(order.status);
}

/** Local status rank, aligned with VENUE_RANK (pending 1, open 2, canceling 3, terminal 4). */
const LOCAL_RANK: Readonly<Record<OrderStatus, number>> = {
  created: 0,
  submitted: 0,
  unknown: 0,
  untriggered: 0, // a plan waiting for its trigger: any report of its child is progress
  pending: 1,
  open: 2,
  canceling: 3,
  filled: 4,
  canceled: 4,
  rejected: 4,
};

const byFillTime = (a: FillReport, b: FillReport): number =>
  a.createdTime - b.createdTime || (a.tradeId < b.tradeId ? -1 : a.tradeId > b.tradeId ? 1 : 0);

/** `fills` oldest first: a sorted copy, or the list itself when it holds fewer than two. */
function sortedFills<F extends FillReport>(fills: readonly F[]): readonly F[] {
  // Stryker disable next-line ConditionalExpression: always sorting gives a list shorter than two back as it was
  return fills.length < 2 ? fills : sortInPlace([...fills], byFillTime);
}

export function reconcile(input: ReconcileInput): ReconcileOutput {
  const { now, prefix } = input;
  const warnings: ReconcileWarning[] = [];
  const local = new Map<ClientOid, Order>();
  const oidByOrderId = new Map<OrderId, ClientOid>();
  for (const o of input.orders) {
    local.set(o.clientOid, o);
    if (o.orderId !== undefined) oidByOrderId.set(o.orderId, o.clientOid);
  }
  const isKnown = (oid: ClientOid): boolean => local.has(oid) || input.isKnownOrder?.(oid) === true;

  // --- 1. collapse history rows: one per exchange order, the most advanced (K3) ---------------------
  const { rows, conflicts } = collapseReports(input.reports);
  for (const c of conflicts) {
    warnings.push({
      code: 'conflicting-reports',
      orderId: c.orderId,
      ...(c.kept.clientOid !== undefined ? { clientOid: c.kept.clientOid } : {}),
      message: `history says both ${c.kept.status} and ${c.other.status} for order ${c.orderId}; keeping ${c.kept.status} (filled ${c.kept.filledQty.toFixed()})`,
    });
  }

  // --- 2. match rows to local orders; adopt own orders missing locally; report foreign ones (K6) ------
  const matched = new Map<ClientOid, OrderReport>();
  const adopted: Order[] = [];
  const foreign: OrderReport[] = [];
  for (const r of rows) {
    const viaOid = r.clientOid !== undefined ? local.get(r.clientOid) : undefined;
    const viaId = oidByOrderId.get(r.orderId);
    const target = viaOid ?? (viaId !== undefined ? local.get(viaId) : undefined);
    if (target !== undefined) {
      if (r.clientOid !== undefined && r.clientOid !== target.clientOid) {
        warnings.push({
          code: 'order-id-mismatch',
          clientOid: target.clientOid,
          orderId: r.orderId,
          message: `order ${r.orderId} is recorded for ${target.clientOid} but the exchange reports client_oid ${r.clientOid}`,
        });
        continue;
      }
      // A plan order's own row, once its child is known: the child's rows say everything.
      if (r.orderId === target.planOrderId) continue;
      // The child's row of a plan whose own id is not known yet (its placement reply was lost): the
      // plan's row must link first, or the child's id would be taken for the plan's (a cancel would
      // then go to cancel_plan with the child's id, and the plan's row would later swap the ids).
      // Until a plan round links it, the child's fills wait unattributed.
      if (target.triggerPrice !== undefined && target.orderId === undefined && r.triggerPrice === undefined)
        continue;
      if (
        target.orderId !== undefined &&
        target.orderId !== r.orderId &&
        // The child of a triggered plan carries the plan's client_oid (matched above) under an order
        // id of its own.
        !isUntriggeredPlan(target)
      ) {
        warnings.push({
          code: target.clientOid === r.clientOid ? 'duplicate-client-oid' : 'order-id-mismatch',
          clientOid: target.clientOid,
          orderId: r.orderId,
          message: `${target.clientOid} is order ${target.orderId}, but the exchange also reports order ${r.orderId} for it`,
        });
        continue;
      }
      const prev = matched.get(target.clientOid);
      if (prev !== undefined) {
        // Two exchange orders with one client_oid, neither linked yet: keep the first, flag it.
        warnings.push({
          code: 'duplicate-client-oid',
          clientOid: target.clientOid,
          orderId: r.orderId,
          message: `the exchange reports orders ${prev.orderId} and ${r.orderId} for client_oid ${target.clientOid}`,
        });
        continue;
      }
      matched.set(target.clientOid, r);
      continue;
    }
    const own =
      r.clientOid !== undefined ? parseOwnClientOid(r.clientOid, prefix, input.strategies) : undefined;
    if (r.clientOid === undefined || own === undefined) {
      foreign.push(r);
      continue;
    }
    if (isKnown(r.clientOid)) continue; // an older order of ours, outside this window: nothing to do
    const order = adopt(r, r.clientOid, own.strategy, now);
    if (typeof order === 'string') {
      warnings.push({ code: 'unadoptable', clientOid: r.clientOid, orderId: r.orderId, message: order });
      continue;
    }
    if (adopted.some((a) => a.clientOid === order.clientOid)) {
      warnings.push({
        code: 'duplicate-client-oid',
        clientOid: order.clientOid,
        orderId: r.orderId,
        message: `the exchange reports more than one order for client_oid ${order.clientOid}; adopted the first`,
      });
      continue;
    }
    adopted.push(order);
  }

  // Every order id → client_oid link known after matching: local, settled now, adopted.
  for (const [oid, r] of matched) oidByOrderId.set(r.orderId, oid);
  for (const a of adopted) if (a.orderId !== undefined) oidByOrderId.set(a.orderId, a.clientOid);

  // --- 3. fills: dedupe by tradeId (store and batch), link to client_oids (K5) -----------------------
  const seen = new Set<TradeId>();
  const newFills: StoredFill[] = [];
  const fillsByOid = new Map<ClientOid, FillReport[]>();
  const linkOf = (id: OrderId): ClientOid | undefined => {
    const known = oidByOrderId.get(id);
    if (known !== undefined || input.orderOf === undefined) return known;
    const stored = input.orderOf(id);
    if (stored === undefined || stored.orderId !== id) return undefined;
    if (!local.has(stored.clientOid)) local.set(stored.clientOid, stored);
    oidByOrderId.set(id, stored.clientOid);
    return stored.clientOid;
  };
  const addFill = (oid: ClientOid, f: FillReport): void => {
    const list = fillsByOid.get(oid);
    if (list === undefined) fillsByOid.set(oid, [f]);
    else list.push(f);
  };
  for (const f of sortedFills(input.fills)) {
    if (seen.has(f.tradeId) || input.knownTradeIds(f.tradeId)) continue;
    seen.add(f.tradeId);
    const oid = linkOf(f.orderId);
    newFills.push(storedFill(f, oid));
    if (oid !== undefined) addFill(oid, f);
  }
  const attributed: FillAttribution[] = [];
  for (const f of sortedFills(input.unattributedFills ?? NO_OBJECTS)) {
    if (f.clientOid !== undefined || seen.has(f.tradeId)) continue;
    seen.add(f.tradeId);
    const oid = linkOf(f.orderId);
    if (oid === undefined) continue;
    attributed.push({ tradeId: f.tradeId, clientOid: oid });
    addFill(oid, f);
  }
  for (const list of fillsByOid.values()) sortInPlace(list, byFillTime);

  // --- 4. events per order ----------------------------------------------------------------------
  const events: OrderEvent[] = [];
  const oids = new Set<ClientOid>(local.keys());
  for (const a of adopted) oids.add(a.clientOid);
  for (const oid of sortInPlace([...oids], byCodeUnits)) {
    const order = local.get(oid) ?? adopted.find((a) => a.clientOid === oid)!;
    const fills = fillsByOid.get(oid) ?? NO_OBJECTS;
    const report = matched.get(oid);
    if (report !== undefined) {
      settle(order, report, fills, now, warnings, events);
    } else {
      fillEvents(order, order.orderId, fills, now, events);
      const lost = lostEvent(order, input, warnings);
      if (lost !== undefined) events.push(lost);
    }
  }

  sortInPlace(foreign, (a, b) => a.createTime - b.createTime || byCodeUnits(a.orderId, b.orderId));
  sortInPlace(adopted, (a, b) => byCodeUnits(a.clientOid, b.clientOid));
  return { events, adopted, foreign, newFills, attributed, warnings };
}

/** Appends one OrderFilled per fill to `out`. */
function fillEvents(
  order: Order,
  orderId: OrderId | undefined,
  fills: readonly FillReport[],
  now: number,
  out: OrderEvent[],
): void {
  for (const f of fills) {
    out.push({
      kind: 'OrderFilled',
      clientOid: order.clientOid,
      at: now,
      orderId: orderId ?? f.orderId,
      tradeId: f.tradeId,
      fill: f,
    });
  }
}

/** Appends to `out` the events that bring `order` up to what `report` says, never backwards (K1, K3, K4). */
function settle(
  order: Order,
  report: OrderReport,
  fills: readonly FillReport[],
  now: number,
  warnings: ReconcileWarning[],
  out: OrderEvent[],
): void {
  const { clientOid } = order;
  const localTerminal = isTerminal(order.status);
  if (order.status === 'rejected') {
    warnings.push({
      code: 'lost-order-found',
      clientOid: order.clientOid,
      orderId: report.orderId,
      message: `${order.clientOid} is recorded as rejected${order.reason !== undefined ? ` (${order.reason})` : ''} but the exchange reports it ${report.status} (order ${report.orderId}, filled ${report.filledQty.toFixed()})`,
    });
  } else if (
    localTerminal &&
    isVenueTerminal(report.status) &&
    localStatusOf(report.status) !== order.status
  ) {
    warnings.push({
      code: 'terminal-mismatch',
      clientOid: order.clientOid,
      orderId: report.orderId,
      message: `${order.clientOid} is recorded as ${order.status} but the exchange reports ${report.status}`,
    });
  }
  let rank = LOCAL_RANK[order.status];
  if (order.orderId === undefined) {
    out.push({ clientOid, at: now, kind: 'OrderAccepted', orderId: report.orderId });
    rank = Math.max(rank, LOCAL_RANK.pending);
  }
  // An `untriggered` row is a plan waiting for its trigger: acceptance is all it proves.
  if (
    !localTerminal &&
    report.status !== 'untriggered' &&
    !isVenueTerminal(report.status) &&
    VENUE_RANK[report.status] > rank
  ) {
    // canceling at the exchange proves the order rested in the book: open.
    const pending = report.status === 'pending';
    if (!pending || rank < LOCAL_RANK.pending) {
      out.push({ clientOid, at: now, kind: 'OrderOpen', orderId: report.orderId, pending });
    }
  }
  fillEvents(order, report.orderId, fills, now, out);
  const avg = report.filledQty.gt(0) && report.priceAvg.gt(0) ? { avgPrice: report.priceAvg } : {};
  if (!localTerminal && report.status === 'filled') {
    out.push({ clientOid, at: now, kind: 'OrderCompleted', filledQty: report.filledQty, ...avg });
  } else if (!localTerminal && report.status === 'canceled') {
    out.push({
      clientOid,
      at: now,
      kind: 'OrderCanceled',
      filledQty: report.filledQty,
      reason: 'canceled at the exchange',
    });
  } else if (report.filledQty.gt(filledAfterFills(order, fills))) {
    // Cumulative progress (also on a terminal local order: the quantity is recorded, status stays).
    out.push({
      clientOid,
      at: now,
      kind: 'OrderProgress',
      orderId: report.orderId,
      filledQty: report.filledQty,
      ...avg,
    });
  }
}

/** The order's filled quantity once `fills` are applied (the reducer takes the max of both sources). */
export function filledAfterFills(order: Order, fills: readonly FillReport[]): Dec {
  let q = order.fillsQty ?? ZERO;
  for (const f of fills) q = q.plus(f.size);
  return q.gt(order.filledQty) ? q : order.filledQty;
}

/** OrderLost for an unconfirmed order with no trace after the grace period (K2). */
function lostEvent(
  order: Order,
  input: ReconcileInput,
  warnings: ReconcileWarning[],
): OrderEvent | undefined {
  if (!mayBeLost(order)) return undefined;
  if ((order.triggerPrice !== undefined) !== (input.lostScope === 'plans')) return undefined;
  const silentFor = input.now - order.updatedAt;
  if (silentFor < input.graceMs) return undefined;
  const coversSince = input.historyCoversSinceBySymbol?.get(order.symbol) ?? input.historyCoversSince;
  if (coversSince !== undefined && order.createdAt < coversSince) {
    warnings.push({
      code: 'unsettled-outside-history',
      clientOid: order.clientOid,
      message: `${order.clientOid} has been ${order.status} for ${silentFor} ms, but the history rows start after its creation; not declaring it lost`,
    });
    return undefined;
  }
  const reason = `no trace at the exchange ${silentFor} ms after the placement outcome became unknown (grace ${input.graceMs} ms)`;
  warnings.push({
    code: 'order-lost',
    clientOid: order.clientOid,
    message: `${order.clientOid} declared lost: ${reason}`,
  });
  return { kind: 'OrderLost', clientOid: order.clientOid, at: input.now, reason };
}

/** A local record for an order of ours found only at the exchange (K6); a string says why not. */
function adopt(r: OrderReport, oid: ClientOid, strategy: StrategyId, now: number): Order | string {
  if (!(ORDER_SIDES as readonly string[]).includes(r.type)) {
    return `order ${r.orderId} (${oid}) carries our prefix but has type ${JSON.stringify(r.type)}; not adopted`;
  }
  const orderType: OrderType = (ORDER_TYPES as readonly string[]).includes(r.orderType)
    ? (r.orderType as OrderType)
    : 'normal';
  return {
    clientOid: oid,
    orderId: r.orderId,
    strategy,
    symbol: r.symbol,
    side: r.type as OrderSide,
    orderType,
    // A market order is reported with price 0.
    ...(r.price.gt(0) ? { price: r.price } : {}),
    size: r.size,
    ...(r.triggerPrice !== undefined ? { triggerPrice: r.triggerPrice } : {}),
    status:
      r.triggerPrice !== undefined && r.status === 'untriggered' ? 'untriggered' : localStatusOf(r.status),
    filledQty: r.filledQty.gt(r.size) ? r.size : r.filledQty.lt(0) ? ZERO : r.filledQty,
    ...(r.filledQty.gt(0) && r.priceAvg.gt(0) ? { avgPrice: r.priceAvg } : {}),
    createdAt: r.createTime,
    updatedAt: now,
    reason: 'adopted: found at the exchange, missing from the store',
  };
}
