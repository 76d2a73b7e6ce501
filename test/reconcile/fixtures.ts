// Builders for reconcile tests.
import { dec, ZERO } from '../../src/core/decimal.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../../src/core/ids.ts';
import type { Order } from '../../src/core/orders.ts';
import type { FillReport, OrderReport } from '../../src/core/reports.ts';

export const PREFIX = 'cb';
export const BTC = symbolId('cmt_btcusdt');
export const GRID = strategyId('grid');
export const T0 = 1_700_000_000_000;

export function localOrder(n: number, over: Partial<Order> = {}): Order {
  return {
    clientOid: clientOid(`cb-grid-${n}`),
    strategy: GRID,
    symbol: BTC,
    side: 'open_long',
    orderType: 'normal',
    price: dec('60000'),
    size: dec('1'),
    status: 'open',
    filledQty: ZERO,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

export function row(n: number, over: Partial<OrderReport> = {}): OrderReport {
  return {
    symbol: BTC,
    orderId: orderId(`70000000000000000${n}`),
    clientOid: clientOid(`cb-grid-${n}`),
    type: 'open_long',
    orderType: 'normal',
    status: 'open',
    size: dec('1'),
    filledQty: ZERO,
    price: dec('60000'),
    priceAvg: ZERO,
    fee: ZERO,
    totalProfits: ZERO,
    createTime: T0,
    ...over,
  };
}

export function fillOf(n: number, trade: string, over: Partial<FillReport> = {}): FillReport {
  const size = over.size ?? dec('0.25');
  return {
    tradeId: tradeId(trade),
    orderId: orderId(`70000000000000000${n}`),
    symbol: BTC,
    positionSide: 'LONG',
    orderSide: 'BUY',
    direction: 'OPEN_LONG',
    size,
    value: size.times(60000),
    fee: ZERO,
    realizedPnl: ZERO,
    createdTime: T0 + Number(trade),
    ...over,
  };
}
