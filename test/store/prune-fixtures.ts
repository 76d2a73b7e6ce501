// Building blocks of the prune tests: orders, fills and plan orders in a few words, and the position
// book folded from a store exactly as the engine folds it at start (client_oid → order → strategy, side).
import { dec, decToString } from '../../src/core/decimal.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../../src/core/ids.ts';
import type { Order, OrderSide, OrderStatus } from '../../src/core/orders.ts';
import { positionsFromFills } from '../../src/core/positions.ts';
import type { PlanStatus } from '../../src/core/reports.ts';
import type { OrderStore, StoredFill } from '../../src/store/port.ts';

export const BTC = symbolId('cmt_btcusdt');
export const ETH = symbolId('cmt_ethusdt');

export interface OrderSpec {
  readonly n: number;
  readonly status: OrderStatus;
  readonly at: number;
  readonly updated?: number;
  readonly side?: OrderSide;
  readonly symbol?: typeof BTC;
  readonly strategy?: string;
  /** Default: every order but `created` ones has an exchange id. */
  readonly withId?: boolean;
}

export const oidOf = (n: number, strategy = 'grid') => clientOid(`cb-${strategy}-${n.toString(36)}`);
export const exchangeIdOf = (n: number) => orderId(String(800_000_000_000_000_000n + BigInt(n)));

export function order(s: OrderSpec): Order {
  const withId = s.withId ?? s.status !== 'created';
  return {
    clientOid: oidOf(s.n, s.strategy),
    ...(withId ? { orderId: exchangeIdOf(s.n) } : {}),
    strategy: strategyId(s.strategy ?? 'grid'),
    symbol: s.symbol ?? BTC,
    side: s.side ?? 'open_long',
    orderType: 'normal',
    price: dec('100'),
    size: dec('1'),
    status: s.status,
    filledQty: dec('0'),
    createdAt: s.at,
    updatedAt: s.updated ?? s.at,
  };
}

export interface FillSpec {
  readonly t: number;
  readonly n: number;
  readonly at: number;
  readonly size?: string;
  readonly price?: string;
  readonly fee?: string;
  readonly pnl?: string;
  /** Attributed to order `n` (default true); false: only its exchange id links it. */
  readonly attributed?: boolean;
  readonly strategy?: string;
  readonly symbol?: typeof BTC;
  /** The fill's own description of its leg (used when it is not attributed). */
  readonly direction?: string;
}

export function fill(s: FillSpec): StoredFill {
  const size = dec(s.size ?? '1');
  const price = dec(s.price ?? '100');
  return {
    tradeId: tradeId(String(700_000_000_000_000_000n + BigInt(s.t))),
    orderId: exchangeIdOf(s.n),
    symbol: s.symbol ?? BTC,
    positionSide: 'LONG',
    orderSide: 'BUY',
    direction: s.direction ?? 'OPEN_LONG',
    size,
    value: size.times(price),
    fee: dec(s.fee ?? '0.01'),
    realizedPnl: dec(s.pnl ?? '0'),
    createdTime: s.at,
    ...(s.attributed !== false ? { clientOid: oidOf(s.n, s.strategy) } : {}),
  };
}

export function plan(n: number, status: PlanStatus, seenAt: number) {
  return {
    symbol: BTC,
    orderId: orderId(String(600_000_000_000_000_000n + BigInt(n))),
    status,
    rawStatus: status,
    type: 'close_long',
    orderType: 'normal',
    size: dec('1'),
    price: dec('100'),
    triggerPrice: dec('90'),
    createTime: seenAt,
    filledQty: dec('0'),
    priceAvg: dec('0'),
    fee: dec('0'),
  } as const;
}

/** Per leg: quantity, cost, realised PnL and fees, folded from the store as the engine does. */
export function book(store: OrderStore): Record<string, [string, string, string, string]> {
  const fills = store.allFills().map((f) => {
    const o = f.clientOid !== undefined ? store.getOrder(f.clientOid) : undefined;
    return { fill: f, ...(o !== undefined ? { strategy: o.strategy, orderSide: o.side } : {}) };
  });
  const out: Record<string, [string, string, string, string]> = {};
  for (const [k, p] of positionsFromFills(fills).book) {
    // A leg with nothing in it is not carried: it is the same as no leg.
    if (p.qty.eq(0) && p.cost.eq(0) && p.realizedPnl.eq(0) && p.fees.eq(0)) continue;
    out[k] = [decToString(p.qty), decToString(p.cost), decToString(p.realizedPnl), decToString(p.fees)];
  }
  return out;
}
