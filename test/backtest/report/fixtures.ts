// Small synthetic RunRecords for the report tests, with figures easy to check by hand.
import { dec } from '../../../src/core/decimal.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../../../src/core/ids.ts';
import type { Order, OrderSide, OrderStatus } from '../../../src/core/orders.ts';
import type { StoredFill } from '../../../src/store/port.ts';
import type { EquitySample, PricePoint, RunRecord } from '../../../src/backtest/report/types.ts';

export const T0 = Date.UTC(2024, 6, 19, 0, 0, 0);
export const MIN = 60_000;
export const HOUR = 3_600_000;

export function order(
  n: number,
  side: OrderSide,
  status: OrderStatus,
  extra: { symbol?: string; size?: string; price?: string; filled?: string; reason?: string } = {},
): Order {
  return {
    clientOid: clientOid(`s1-${n}`),
    orderId: orderId(String(1000 + n)),
    strategy: strategyId('s1'),
    symbol: symbolId(extra.symbol ?? 'cmt_btcusdt'),
    side,
    orderType: 'normal',
    ...(extra.price !== undefined ? { price: dec(extra.price) } : {}),
    size: dec(extra.size ?? '1'),
    status,
    filledQty: dec(extra.filled ?? '0'),
    createdAt: T0 + n,
    updatedAt: T0 + n,
    ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
  };
}

export function fill(
  trade: number,
  orderNumber: number,
  t: number,
  f: { size: string; value: string; fee: string; pnl?: string; symbol?: string; withClientOid?: boolean },
): StoredFill {
  return {
    tradeId: tradeId(String(5000 + trade)),
    orderId: orderId(String(1000 + orderNumber)),
    ...(f.withClientOid === false ? {} : { clientOid: clientOid(`s1-${orderNumber}`) }),
    symbol: symbolId(f.symbol ?? 'cmt_btcusdt'),
    positionSide: 'LONG',
    orderSide: 'BUY',
    direction: 'TAKER',
    size: dec(f.size),
    value: dec(f.value),
    fee: dec(f.fee),
    realizedPnl: dec(f.pnl ?? '0'),
    createdTime: t,
  };
}

export function equity(t: number, e: string, realized = '0', unrealized = '0'): EquitySample {
  return { t, equity: dec(e), realized: dec(realized), unrealized: dec(unrealized) };
}

export function price(t: number, last: string): PricePoint {
  return { t, last: dec(last) };
}

/**
 * One long round trip on cmt_btcusdt over 4 minutes: open 2 @ 100 at +1 min (fee 0.16), close 2 @ 110
 * at +3 min (fee 0.176, realized +20); plus one canceled and one rejected order.
 */
export function roundTrip(): RunRecord {
  return {
    run: {
      strategies: [{ id: 's1', file: 'strategies/sma.ts', params: { slow: 20, fast: 5, size: '2' } }],
      data: 'data/sample.ndjson',
      firstTickTime: T0,
      lastTickTime: T0 + 4 * MIN,
      tickers: 5,
    },
    orders: [
      order(1, 'open_long', 'filled', { size: '2', price: '100', filled: '2' }),
      order(2, 'close_long', 'filled', { size: '2', price: '110', filled: '2' }),
      order(3, 'open_long', 'canceled', { size: '1', price: '90' }),
      order(4, 'open_short', 'rejected', { size: '1', price: '200', reason: '40015' }),
    ],
    fills: [
      fill(1, 1, T0 + MIN, { size: '2', value: '200', fee: '0.16' }),
      fill(2, 2, T0 + 3 * MIN, { size: '2', value: '220', fee: '0.176', pnl: '20' }),
    ],
    equity: [
      equity(T0, '1000'),
      equity(T0 + MIN, '999.84', '0', '0'),
      equity(T0 + 2 * MIN, '1009.84', '0', '10'),
      equity(T0 + 3 * MIN, '1019.664', '20', '0'),
      equity(T0 + 4 * MIN, '1019.664', '20', '0'),
    ],
    prices: {
      cmt_btcusdt: [
        price(T0, '100'),
        price(T0 + MIN, '100'),
        price(T0 + 2 * MIN, '105'),
        price(T0 + 3 * MIN, '110'),
        price(T0 + 4 * MIN, '110'),
      ],
    },
    requestsByEndpoint: { tickers: 5, placeOrder: 4, cancelOrder: 1, fills: 3 },
    weightUsed: { ip: 230, uid: 38 },
    rejectionsByReason: { '40015': 1 },
    responses429: 0,
    strategiesDisabled: [],
  };
}
