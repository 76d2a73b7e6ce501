// Fills as the report shows them: each stored fill joined to its order (strategy, hedge-mode side),
// in time order. The join is by client_oid, then by exchange order id; when neither matches, the
// side is read from the fill itself (`direction` like OPEN_LONG, or positionSide + orderSide).
import type { Dec } from '../../core/decimal.ts';
import { InvariantViolation } from '../../core/errors.ts';
import { ORDER_SIDES, type Order, type OrderSide } from '../../core/orders.ts';
import type { StoredFill } from '../../store/port.ts';

export interface ReportFill {
  readonly tradeId: string;
  readonly orderId: string;
  readonly clientOid?: string;
  readonly strategy?: string;
  readonly symbol: string;
  /** Hedge-mode side of the order that filled. */
  readonly side: OrderSide;
  readonly positionSide: string;
  readonly orderSide: string;
  readonly direction: string;
  readonly createdTime: number;
  /** value ÷ size: the fill price (exact whenever value = price × size, as the venue reports it). */
  readonly price: Dec;
  readonly size: Dec;
  /** Quote notional of the fill. */
  readonly value: Dec;
  /** Fee paid (a negative fee is a rebate). */
  readonly fee: Dec;
  /** Realized PnL reported with the fill (before fees); non-zero only on closing fills. */
  readonly realizedPnl: Dec;
  /** Present when the fill executed a triggered plan (stop-loss, take-profit, trigger order). */
  readonly triggerPrice?: Dec;
}

const SIDES: ReadonlySet<string> = new Set(ORDER_SIDES);

function sideFromFill(fill: StoredFill): OrderSide | undefined {
  const direction = fill.direction.toLowerCase();
  if (SIDES.has(direction)) return direction as OrderSide;
  const pos = fill.positionSide.toUpperCase();
  const ord = fill.orderSide.toUpperCase();
  if (pos === 'LONG') return ord === 'BUY' ? 'open_long' : ord === 'SELL' ? 'close_long' : undefined;
  if (pos === 'SHORT') return ord === 'SELL' ? 'open_short' : ord === 'BUY' ? 'close_short' : undefined;
  return undefined;
}

/** True for the sides that buy (open long, close short). */
export function isBuy(side: OrderSide): boolean {
  return side === 'open_long' || side === 'close_short';
}

/** What a fill takes from the order it joins: its client_oid, strategy, side and trigger price. */
export type FillOrder = Pick<Order, 'clientOid' | 'strategy' | 'side' | 'triggerPrice'>;

/**
 * One fill as the report shows it, joined to `order` (undefined when it matches none). Throws
 * InvariantViolation for a fill whose side cannot be known: the report would be wrong.
 */
export function joinFill(f: StoredFill, order: FillOrder | undefined): ReportFill {
  const side = order?.side ?? sideFromFill(f);
  if (side === undefined) {
    throw new InvariantViolation(
      `fill ${f.tradeId} (order ${f.orderId}) matches no order and its side cannot be read from ` +
        `direction=${JSON.stringify(f.direction)} positionSide=${JSON.stringify(f.positionSide)} orderSide=${JSON.stringify(f.orderSide)}`,
    );
  }
  const clientOid = f.clientOid ?? order?.clientOid;
  return {
    tradeId: f.tradeId,
    orderId: f.orderId,
    ...(clientOid !== undefined ? { clientOid } : {}),
    ...(order !== undefined ? { strategy: order.strategy } : {}),
    symbol: f.symbol,
    side,
    positionSide: f.positionSide,
    orderSide: f.orderSide,
    direction: f.direction,
    createdTime: f.createdTime,
    price: f.size.eq(0) ? f.size : f.value.div(f.size),
    size: f.size,
    value: f.value,
    fee: f.fee,
    realizedPnl: f.realizedPnl,
    ...(order?.triggerPrice !== undefined ? { triggerPrice: order.triggerPrice } : {}),
  };
}

/**
 * Joins fills to orders and sorts them by createdTime (stable: ties keep the stored order). The join
 * is by client_oid, then by exchange order id (the last created order holding it: `orders` come in
 * the stores' order, byCreation). Throws InvariantViolation for a fill whose side cannot be known.
 */
export function reportFills(fills: readonly StoredFill[], orders: readonly Order[]): ReportFill[] {
  const byClientOid = new Map<string, Order>();
  const byOrderId = new Map<string, Order>();
  for (const o of orders) {
    byClientOid.set(o.clientOid, o);
    if (o.orderId !== undefined) byOrderId.set(o.orderId, o);
  }
  const out = fills.map((f) =>
    joinFill(
      f,
      (f.clientOid !== undefined ? byClientOid.get(f.clientOid) : undefined) ?? byOrderId.get(f.orderId),
    ),
  );
  // Array.prototype.sort is stable: fills at the same millisecond keep the store's order.
  return out.sort((a, b) => a.createdTime - b.createdTime);
}
