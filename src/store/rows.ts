// Row ↔ domain mapping for the SQLite store. Decimals travel as plain decimal strings (decToString,
// never exponent notation) and come back through `dec`, so values round-trip exactly. A row that does
// not parse means the store file is corrupt or was edited by hand: StoreError naming the row.
import { dec, decToString, ZERO, type Dec } from '../core/decimal.ts';
import { StoreError } from '../core/errors.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../core/ids.ts';
import { mapToObjects } from '../core/object-lists.ts';
import {
  ORDER_SIDES,
  ORDER_STATUSES,
  ORDER_TYPES,
  type Order,
  type OrderSide,
  type OrderStatus,
  type OrderType,
} from '../core/orders.ts';
import type { PlanReport, PlanStatus } from '../core/reports.ts';
import type { StoredFill, StoredPlanOrder } from './port.ts';

export interface OrderRow {
  client_oid: string;
  order_id: string | null;
  strategy: string;
  symbol: string;
  side: string;
  order_type: string;
  price: string | null;
  size: string;
  status: string;
  filled_qty: string;
  avg_price: string | null;
  fills_qty: string | null;
  fills_value: string | null;
  tag: string | null;
  reason: string | null;
  created_at: number;
  updated_at: number;
  trigger_price: string | null;
  plan_order_id: string | null;
}

export interface FillRow {
  trade_id: string;
  order_id: string;
  client_oid: string | null;
  symbol: string;
  position_side: string;
  order_side: string;
  direction: string;
  size: string;
  value: string;
  fee: string;
  realized_pnl: string;
  created_at: number;
}

export interface PlanRow {
  order_id: string;
  client_oid: string | null;
  symbol: string;
  status: string;
  raw_status: string;
  type: string;
  order_type: string;
  size: string;
  price: string;
  trigger_price: string;
  created_at: number;
  first_seen_at: number;
  last_seen_at: number;
}

export const PLAN_STATUSES: readonly PlanStatus[] = [
  'canceled',
  'untriggered',
  'partially_filled',
  'filled',
  'triggered',
  'unknown',
];

export function oneOf<T extends string>(values: readonly T[], v: string, what: string, where: string): T {
  if ((values as readonly string[]).includes(v)) return v as T;
  throw new StoreError(`corrupt store: ${where} has ${what} ${JSON.stringify(v)}`);
}

export function decimal(v: string, what: string, where: string): Dec {
  try {
    return dec(v);
  } catch {
    throw new StoreError(`corrupt store: ${where} has ${what} ${JSON.stringify(v)}, not a decimal`);
  }
}

const text = (d: Dec): string => decToString(d);
const optText = (d: Dec | undefined): string | null => (d === undefined ? null : decToString(d));

export function orderToRow(o: Order): OrderRow {
  return {
    client_oid: o.clientOid,
    order_id: o.orderId ?? null,
    strategy: o.strategy,
    symbol: o.symbol,
    side: o.side,
    order_type: o.orderType,
    price: optText(o.price),
    size: text(o.size),
    status: o.status,
    filled_qty: text(o.filledQty),
    avg_price: optText(o.avgPrice),
    fills_qty: optText(o.fillsQty),
    fills_value: optText(o.fillsValue),
    tag: o.tag ?? null,
    reason: o.reason ?? null,
    created_at: o.createdAt,
    updated_at: o.updatedAt,
    trigger_price: optText(o.triggerPrice),
    plan_order_id: o.planOrderId ?? null,
  };
}

/** A bound SQL value. */
export type SqlValue = string | number | null;

/**
 * The columns of an order besides `client_oid` (what an UPDATE sets), in the order of the positional
 * parameters of the store's INSERT and UPDATE, which both end with `client_oid`. Positional binding
 * skips the per-call lookups of named parameters on the write-ahead path.
 */
export const ORDER_DATA_COLUMNS = [
  'order_id',
  'strategy',
  'symbol',
  'side',
  'order_type',
  'price',
  'size',
  'status',
  'filled_qty',
  'avg_price',
  'fills_qty',
  'fills_value',
  'tag',
  'reason',
  'created_at',
  'updated_at',
  'trigger_price',
  'plan_order_id',
] as const satisfies readonly (keyof OrderRow)[];

/** Values of ORDER_DATA_COLUMNS, then `client_oid` last (the UPDATE's `WHERE client_oid = ?`). */
export function orderValues(o: Order): SqlValue[] {
  return [
    o.orderId ?? null,
    o.strategy,
    o.symbol,
    o.side,
    o.orderType,
    optText(o.price),
    text(o.size),
    o.status,
    text(o.filledQty),
    optText(o.avgPrice),
    optText(o.fillsQty),
    optText(o.fillsValue),
    o.tag ?? null,
    o.reason ?? null,
    o.createdAt,
    o.updatedAt,
    optText(o.triggerPrice),
    o.planOrderId ?? null,
    o.clientOid,
  ];
}

export function orderFromRow(r: OrderRow): Order {
  const where = `order ${r.client_oid}`;
  return {
    clientOid: clientOid(r.client_oid),
    ...(r.order_id !== null ? { orderId: orderId(r.order_id) } : {}),
    strategy: strategyId(r.strategy),
    symbol: symbolId(r.symbol),
    side: oneOf<OrderSide>(ORDER_SIDES, r.side, 'side', where),
    orderType: oneOf<OrderType>(ORDER_TYPES, r.order_type, 'order_type', where),
    ...(r.price !== null ? { price: decimal(r.price, 'price', where) } : {}),
    size: decimal(r.size, 'size', where),
    status: oneOf<OrderStatus>(ORDER_STATUSES, r.status, 'status', where),
    filledQty: decimal(r.filled_qty, 'filled_qty', where),
    ...(r.avg_price !== null ? { avgPrice: decimal(r.avg_price, 'avg_price', where) } : {}),
    ...(r.fills_qty !== null ? { fillsQty: decimal(r.fills_qty, 'fills_qty', where) } : {}),
    ...(r.fills_value !== null ? { fillsValue: decimal(r.fills_value, 'fills_value', where) } : {}),
    ...(r.tag !== null ? { tag: r.tag } : {}),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(r.reason !== null ? { reason: r.reason } : {}),
    ...(r.trigger_price !== null ? { triggerPrice: decimal(r.trigger_price, 'trigger_price', where) } : {}),
    ...(r.plan_order_id !== null ? { planOrderId: orderId(r.plan_order_id) } : {}),
  };
}

/** A fill's columns in a fixed order, for writing one as a list of values (spill files, spools). */
export const FILL_COLUMNS = [
  'trade_id',
  'order_id',
  'client_oid',
  'symbol',
  'position_side',
  'order_side',
  'direction',
  'size',
  'value',
  'fee',
  'realized_pnl',
  'created_at',
] as const satisfies readonly (keyof FillRow)[];

/** The fill's row values in FILL_COLUMNS order. */
export function fillValues(f: StoredFill): unknown[] {
  const row = fillToRow(f);
  return mapToObjects(FILL_COLUMNS, (k) => row[k]);
}

/**
 * The row whose columns `keys` names, from its values in that order (extra values after them are
 * ignored): the reverse of listing a row's values (`orderValues`, `fillValues`).
 */
export function rowFromValues<R extends object>(values: readonly unknown[], keys: readonly (keyof R)[]): R {
  const row: Partial<Record<keyof R, unknown>> = {};
  keys.forEach((k, i) => {
    row[k] = values[i];
  });
  return row as R;
}

/** The fill from its values in FILL_COLUMNS order (extra values after them are ignored). */
export function fillFromValues(values: readonly unknown[]): StoredFill {
  return fillFromRow(rowFromValues<FillRow>(values, FILL_COLUMNS));
}

export function fillToRow(f: StoredFill): FillRow {
  return {
    trade_id: f.tradeId,
    order_id: f.orderId,
    client_oid: f.clientOid ?? null,
    symbol: f.symbol,
    position_side: f.positionSide,
    order_side: f.orderSide,
    direction: f.direction,
    size: text(f.size),
    value: text(f.value),
    fee: text(f.fee),
    realized_pnl: text(f.realizedPnl),
    created_at: f.createdTime,
  };
}

export function fillFromRow(r: FillRow): StoredFill {
  const where = `fill ${r.trade_id}`;
  return {
    tradeId: tradeId(r.trade_id),
    orderId: orderId(r.order_id),
    symbol: symbolId(r.symbol),
    positionSide: r.position_side,
    orderSide: r.order_side,
    direction: r.direction,
    size: decimal(r.size, 'size', where),
    value: decimal(r.value, 'value', where),
    fee: decimal(r.fee, 'fee', where),
    realizedPnl: decimal(r.realized_pnl, 'realized_pnl', where),
    createdTime: r.created_at,
    ...(r.client_oid !== null ? { clientOid: clientOid(r.client_oid) } : {}),
  };
}

export function planToRow(p: PlanReport, seenAt: number): PlanRow {
  return {
    order_id: p.orderId,
    client_oid: p.clientOid ?? null,
    symbol: p.symbol,
    status: p.status,
    raw_status: p.rawStatus,
    type: p.type,
    order_type: p.orderType,
    size: text(p.size),
    price: text(p.price),
    trigger_price: text(p.triggerPrice),
    created_at: p.createTime,
    first_seen_at: seenAt,
    last_seen_at: seenAt,
  };
}

/** A stored plan row's status, checked (`orderId` names the row in the error). */
export function planStatusOf(status: string, orderId: string): PlanStatus {
  return oneOf<PlanStatus>(PLAN_STATUSES, status, 'status', `plan order ${orderId}`);
}

export function planFromRow(r: PlanRow): StoredPlanOrder {
  const where = `plan order ${r.order_id}`;
  return {
    symbol: symbolId(r.symbol),
    orderId: orderId(r.order_id),
    ...(r.client_oid !== null ? { clientOid: clientOid(r.client_oid) } : {}),
    status: planStatusOf(r.status, r.order_id),
    rawStatus: r.raw_status,
    type: r.type,
    orderType: r.order_type,
    size: decimal(r.size, 'size', where),
    price: decimal(r.price, 'price', where),
    triggerPrice: decimal(r.trigger_price, 'trigger_price', where),
    createTime: r.created_at,
    // Not stored (yet): the plans table predates the child-order figures of PlanReport.
    filledQty: ZERO,
    priceAvg: ZERO,
    fee: ZERO,
    firstSeenAt: r.first_seen_at,
    lastSeenAt: r.last_seen_at,
  };
}
