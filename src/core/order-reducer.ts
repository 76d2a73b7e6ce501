// The only way an order's state changes: apply one event through the transition table, keeping the
// quantities right. Pure; the caller persists the result (when `changed`) and reports anomalies.
//
// Quantities:
// - `fillsQty` / `fillsValue` sum the fills applied (the caller applies each tradeId once);
// - `filledQty` = min(size, max(fills, exchange-reported cumulative progress)): it only grows, never
//   exceeds the size, and a fill reported both ways is not counted twice;
// - `avgPrice` comes from whichever source covers the filled quantity: the fills (value ÷ size) when
//   they cover it, else the exchange-reported average;
// - `updatedAt` is the event time (never earlier than before).
import type { Mutable } from './copies.ts';
import { ZERO, decMax, decMin, decToString, type Dec } from './decimal.ts';
import { InvariantViolation } from './errors.ts';
import type { OrderEvent } from './events.ts';
import type { ClientOid, OrderId, StrategyId, SymbolId } from './ids.ts';
import { isInvalidTransition, transition } from './order-transitions.ts';
import type { Order, OrderSide, OrderStatus, OrderType } from './orders.ts';

export type OrderAnomalyKind =
  /** The event can only come from an engine bug (see order-transitions.ts); nothing was changed. */
  | 'invalid_transition'
  /** Fills or reported progress exceed the order size; the filled quantity was clamped. */
  | 'overfill'
  /** The event names another exchange order id (or another client_oid); nothing was changed. */
  | 'id_mismatch'
  /** The exchange reports something that contradicts a state it reported before (or a local refusal). */
  | 'contradiction'
  /** A negative or zero quantity; nothing was changed. */
  | 'bad_quantity';

export interface OrderAnomaly {
  readonly kind: OrderAnomalyKind;
  readonly detail: string;
}

export interface ApplyResult {
  readonly order: Order;
  /** Something in the order differs (status, quantities, ids, reason): persist it. */
  readonly changed: boolean;
  /** Informational: why an event was absorbed, or a late fill recorded. */
  readonly note?: string;
  /** Something a human or reconciliation should look at. */
  readonly anomaly?: OrderAnomaly;
}

export interface NewOrderInput {
  readonly clientOid: ClientOid;
  readonly strategy: StrategyId;
  readonly symbol: SymbolId;
  readonly side: OrderSide;
  readonly orderType: OrderType;
  readonly size: Dec;
  /** Absent for market orders. */
  readonly price?: Dec;
  /** Present for a plan (trigger) order. */
  readonly triggerPrice?: Dec;
  readonly tag?: string;
  /** Clock time (epoch ms) of creation. */
  readonly at: number;
}

/** A new order in status `created`, before its request is sent. */
export function newOrder(input: NewOrderInput): Order {
  if (input.size.lte(0))
    throw new InvariantViolation(
      `order ${input.clientOid}: size must be > 0, got ${decToString(input.size)}`,
    );
  if (input.price !== undefined && input.price.lte(0)) {
    throw new InvariantViolation(
      `order ${input.clientOid}: price must be > 0, got ${decToString(input.price)}`,
    );
  }
  if (input.triggerPrice !== undefined && input.triggerPrice.lte(0)) {
    throw new InvariantViolation(
      `order ${input.clientOid}: trigger price must be > 0, got ${decToString(input.triggerPrice)}`,
    );
  }
  return {
    clientOid: input.clientOid,
    strategy: input.strategy,
    symbol: input.symbol,
    side: input.side,
    orderType: input.orderType,
    ...(input.price !== undefined ? { price: input.price } : {}),
    size: input.size,
    ...(input.triggerPrice !== undefined ? { triggerPrice: input.triggerPrice } : {}),
    status: 'created',
    filledQty: ZERO,
    ...(input.tag !== undefined ? { tag: input.tag } : {}),
    createdAt: input.at,
    updatedAt: input.at,
  };
}

const unchanged = (order: Order, anomaly?: OrderAnomaly, note?: string): ApplyResult => ({
  order,
  changed: false,
  ...(note !== undefined ? { note } : {}),
  ...(anomaly !== undefined ? { anomaly } : {}),
});

function eventOrderId(e: OrderEvent): OrderId | undefined {
  switch (e.kind) {
    case 'OrderAccepted':
    case 'OrderOpen':
    case 'OrderFilled':
    case 'OrderProgress':
    case 'CancelAccepted': // the cancel reply names the order (absent in some reply variants)
      return e.orderId;
    case 'OrderSubmitted':
    case 'OrderRejected':
    case 'OrderOutcomeUnknown':
    case 'CancelRequested':
    case 'CancelRejected':
    case 'OrderCanceled':
    case 'OrderCompleted':
    // Stryker disable next-line ConditionalExpression: emptied, this case falls through to the end of the function, which returns undefined too
    case 'OrderLost':
      return undefined;
  }
}

/** Exchange-reported cumulative progress carried by the event, if any. */
function reportedProgress(e: OrderEvent): { qty: Dec; avg?: Dec } | undefined {
  switch (e.kind) {
    case 'OrderProgress':
    case 'OrderCompleted':
      return { qty: e.filledQty, ...(e.avgPrice !== undefined ? { avg: e.avgPrice } : {}) };
    case 'OrderCanceled':
      return e.filledQty !== undefined ? { qty: e.filledQty } : undefined;
    case 'OrderSubmitted':
    case 'OrderAccepted':
    case 'OrderRejected':
    case 'OrderOutcomeUnknown':
    case 'OrderOpen':
    case 'OrderFilled': // a fill is one trade, not cumulative progress
    case 'CancelRequested':
    case 'CancelRejected':
    case 'CancelAccepted': // an answer to our cancel, not the order's progress
    // Stryker disable next-line ConditionalExpression: emptied, this case falls through to the end of the function, which returns undefined too
    case 'OrderLost':
      return undefined;
  }
}

interface Quantities {
  readonly filledQty: Dec;
  readonly fillsQty: Dec | undefined;
  readonly fillsValue: Dec | undefined;
  readonly avgPrice: Dec | undefined;
  /** Unclamped filled quantity, for the overfill check. */
  readonly raw: Dec;
}

function applyQuantities(order: Order, e: OrderEvent): Quantities | OrderAnomaly {
  let fillsQty = order.fillsQty;
  let fillsValue = order.fillsValue;
  let raw = order.filledQty;
  let avgPrice = order.avgPrice;
  if (e.kind === 'OrderFilled') {
    const { size, value } = e.fill;
    if (size.lte(0) || value.lt(0)) {
      return {
        kind: 'bad_quantity',
        detail: `fill ${e.tradeId}: size ${decToString(size)}, value ${decToString(value)}`,
      };
    }
    fillsQty = (fillsQty ?? ZERO).plus(size);
    fillsValue = (fillsValue ?? ZERO).plus(value);
    raw = decMax(raw, fillsQty);
    if (fillsQty.gte(raw)) avgPrice = fillsValue.div(fillsQty);
  }
  const reported = reportedProgress(e);
  if (reported !== undefined) {
    if (reported.qty.lt(0))
      return { kind: 'bad_quantity', detail: `${e.kind}: filledQty ${decToString(reported.qty)}` };
    raw = decMax(raw, reported.qty);
    // The exchange's average covers more than our fills do: it is the better figure.
    if (
      reported.avg !== undefined &&
      reported.qty.gt(0) &&
      reported.qty.gte(raw) &&
      reported.qty.gt(fillsQty ?? ZERO)
    ) {
      avgPrice = reported.avg;
    }
  }
  return { filledQty: decMin(raw, order.size), raw, fillsQty, fillsValue, avgPrice };
}

function reasonOf(e: OrderEvent): string | undefined {
  switch (e.kind) {
    case 'OrderRejected':
      return e.code !== '' && e.code !== e.reason ? `${e.code}: ${e.reason}` : e.reason;
    // Stryker disable next-line ConditionalExpression: emptied, this case falls through to the next, which returns e.reason too
    case 'OrderLost':
      return e.reason;
    case 'OrderCanceled':
      return e.reason;
    case 'OrderSubmitted':
    case 'OrderAccepted':
    case 'OrderOutcomeUnknown':
    case 'OrderOpen':
    case 'OrderFilled':
    case 'OrderProgress':
    case 'CancelRequested':
    case 'CancelRejected':
    case 'CancelAccepted': // the order is not over: no reason yet
    // Stryker disable next-line ConditionalExpression: emptied, this case falls through to the end of the function, which returns undefined too
    case 'OrderCompleted':
      return undefined;
  }
}

/** Exchange facts that cannot be true of an order in `status` (as opposed to merely stale ones). */
function contradiction(order: Order, e: OrderEvent, next: OrderStatus): string | undefined {
  const from = order.status;
  if (
    e.kind === 'OrderRejected' &&
    next !== 'rejected' &&
    (from === 'untriggered' || from === 'pending' || from === 'open' || from === 'canceling')
  ) {
    return `placement reported rejected, but the exchange already acknowledged the order (${from})`;
  }
  if (from === 'rejected' && e.kind !== 'OrderRejected' && e.kind !== 'OrderLost' && eventIsExchangeFact(e)) {
    return `the exchange reports ${e.kind} for an order recorded as rejected${order.reason !== undefined ? ` (${order.reason})` : ''}`;
  }
  if (from === 'filled' && e.kind === 'OrderCanceled')
    return 'the exchange reports canceled for an order recorded as filled';
  if (from === 'canceled' && e.kind === 'OrderCompleted')
    return 'the exchange reports filled for an order recorded as canceled';
  if (e.kind === 'OrderCompleted' && e.filledQty.lt(order.size)) {
    return `the exchange reports filled with filled_qty ${decToString(e.filledQty)} < size ${decToString(order.size)}`;
  }
  return undefined;
}

function eventIsExchangeFact(e: OrderEvent): boolean {
  switch (e.kind) {
    case 'OrderAccepted':
    case 'OrderOpen':
    case 'OrderFilled':
    case 'OrderProgress':
    case 'OrderCanceled':
    case 'OrderCompleted':
      return true;
    // Our own doings, or answers to our requests (not reports of the order's state).
    case 'OrderSubmitted':
    case 'OrderRejected':
    case 'OrderOutcomeUnknown':
    case 'CancelRequested':
    case 'CancelRejected':
    case 'CancelAccepted':
    // Stryker disable next-line ConditionalExpression: emptied, this case falls through to the end of the function, which returns undefined (falsy, as false)
    case 'OrderLost':
      return false;
  }
}

const sameDec = (a: Dec | undefined, b: Dec | undefined): boolean =>
  a === undefined || b === undefined ? a === b : a.eq(b);

/**
 * The order's exchange ids once `event` is applied. A plan order first carries the plan's id; the
 * first report naming another id (its child order, which shares the plan's client_oid) moves the
 * plan's id to `planOrderId` and makes the child's the order id. After that, reports naming the
 * plan's id are the plan's own (accepted as matching). Any other differing id is a mismatch.
 */
function linkIds(
  order: Order,
  event: OrderEvent,
): { readonly orderId: OrderId | undefined; readonly planOrderId: OrderId | undefined } | OrderAnomaly {
  const evId = eventOrderId(event);
  const known = { orderId: order.orderId ?? evId, planOrderId: order.planOrderId };
  if (evId === undefined || order.orderId === undefined || evId === order.orderId) return known;
  if (order.triggerPrice !== undefined) {
    if (evId === order.planOrderId) return known;
    if (order.planOrderId === undefined && event.kind !== 'OrderAccepted')
      return { orderId: evId, planOrderId: order.orderId };
  }
  return {
    kind: 'id_mismatch',
    detail: `${event.kind} names order id ${evId}, but ${order.clientOid} is order ${order.orderId}`,
  };
}

/** Applies one event to one order. Never throws for exchange data; bugs come back as anomalies. */
export function applyOrderEvent(order: Order, event: OrderEvent): ApplyResult {
  if (event.clientOid !== order.clientOid) {
    return unchanged(order, {
      kind: 'id_mismatch',
      detail: `event for ${event.clientOid} applied to order ${order.clientOid}`,
    });
  }
  const ids = linkIds(order, event);
  if ('kind' in ids) return unchanged(order, ids);
  const { orderId, planOrderId } = ids;

  const q = applyQuantities(order, event);
  if ('kind' in q) return unchanged(order, q);

  const next = transition(order.status, event, {
    acknowledged: order.orderId !== undefined,
    complete: q.filledQty.gte(order.size),
    untriggeredPlan: order.triggerPrice !== undefined && planOrderId === undefined,
  });
  if (isInvalidTransition(next)) {
    return unchanged(order, {
      kind: 'invalid_transition',
      detail: `${next.event} in ${next.from}: ${next.reason}`,
    });
  }

  const statusMoved = next !== order.status;
  const reason = (statusMoved ? reasonOf(event) : undefined) ?? order.reason;
  const changed =
    statusMoved ||
    // (A new planOrderId always comes with a new orderId: linkIds moves the one into the other.)
    orderId !== order.orderId ||
    !q.filledQty.eq(order.filledQty) ||
    !sameDec(q.fillsQty, order.fillsQty) ||
    !sameDec(q.fillsValue, order.fillsValue) ||
    !sameDec(q.avgPrice, order.avgPrice) ||
    reason !== order.reason;

  const anomaly = anomalyOf(order, event, next, q);
  const note = noteOf(order, event, next, changed);
  const result: ApplyResult = {
    order: changed ? changedOrder(order, next, event.at, q, orderId, planOrderId, reason) : order,
    changed,
  };
  // Added only when present (exactOptionalPropertyTypes), without an object per absent field.
  if (note !== undefined) (result as { note?: string }).note = note;
  if (anomaly !== undefined) (result as { anomaly?: OrderAnomaly }).anomaly = anomaly;
  return result;
}

/**
 * The order once an event changed it: one new object per event, its fields in the order the
 * stores and reports see (the order's own, then the ones it gains, in this order). Copied with
 * Object.assign rather than a spread: the copy often gains a key, V8's slow path for a spread
 * (core/copies.ts).
 */
function changedOrder(
  order: Order,
  status: OrderStatus,
  at: number,
  q: Quantities,
  orderId: OrderId | undefined,
  planOrderId: OrderId | undefined,
  reason: string | undefined,
): Order {
  const o: Mutable<Order> = Object.assign({}, order);
  o.status = status;
  o.filledQty = q.filledQty;
  o.updatedAt = Math.max(order.updatedAt, at);
  if (orderId !== undefined) o.orderId = orderId;
  if (planOrderId !== undefined) o.planOrderId = planOrderId;
  if (q.fillsQty !== undefined) o.fillsQty = q.fillsQty;
  if (q.fillsValue !== undefined) o.fillsValue = q.fillsValue;
  if (q.avgPrice !== undefined) o.avgPrice = q.avgPrice;
  if (reason !== undefined) o.reason = reason;
  return o;
}

function anomalyOf(order: Order, e: OrderEvent, next: OrderStatus, q: Quantities): OrderAnomaly | undefined {
  if (
    q.raw.gt(order.size) &&
    (e.kind === 'OrderFilled' || reportedProgress(e)?.qty.gt(order.size) === true)
  ) {
    const what = e.kind === 'OrderFilled' ? `fill ${e.tradeId}` : e.kind;
    return {
      kind: 'overfill',
      detail: `${what} takes the filled quantity to ${decToString(q.raw)} > size ${decToString(order.size)}; clamped`,
    };
  }
  const c = contradiction(order, e, next);
  return c !== undefined ? { kind: 'contradiction', detail: c } : undefined;
}

function noteOf(order: Order, e: OrderEvent, next: OrderStatus, changed: boolean): string | undefined {
  if (e.kind === 'OrderFilled' && order.status === 'canceled')
    return 'late fill recorded on a canceled order';
  if (e.kind === 'OrderFilled' && order.status === 'canceling' && next === 'canceling')
    return 'fill while the cancel is in flight';
  if (!changed) return `${e.kind} absorbed: order is ${order.status}`;
  if (
    next === order.status &&
    eventIsExchangeFact(e) &&
    e.kind !== 'OrderFilled' &&
    e.kind !== 'OrderProgress'
  ) {
    return `stale ${e.kind} ignored for status; order is ${order.status}`;
  }
  return undefined;
}
