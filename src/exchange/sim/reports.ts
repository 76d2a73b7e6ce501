// Simulator records → core reports, for the in-process port: what the HTTP client makes of the same
// records sent as wire rows (./wire.ts, then the weex schemas and mappers), without writing the
// decimals out as text and parsing them back. Both paths give equal reports, value for value and
// representation for representation (Dec is canonical); test/exchange/sim/reports.property.test.ts
// checks it on arbitrary records.
import { ZERO } from '../../core/decimal.ts';
import { clientOid, orderId, symbolId, tradeId } from '../../core/ids.ts';
import type { FillReport, OrderReport } from '../../core/reports.ts';
import { decimalPlaces, type ContractTable } from './contracts.ts';
import type { SimFill, SimOrder } from './model.ts';
import { isBuy, legOf } from './positions.ts';

/** An order revision as a history row decodes: the wire's average price rounding included. */
export function orderReportOf(o: SimOrder, contracts: ContractTable): OrderReport {
  const tickPlaces = Math.max(1, decimalPlaces(contracts.rules(o.symbol).priceTick));
  return {
    symbol: symbolId(o.symbol),
    orderId: orderId(o.orderId),
    // An empty client_oid reads as none, as on the wire.
    ...(o.clientOid !== '' ? { clientOid: clientOid(o.clientOid) } : {}),
    type: o.side,
    orderType: o.orderType,
    status: o.status,
    size: o.size,
    filledQty: o.filledQty,
    price: o.price ?? ZERO,
    priceAvg: o.filledQty.gt(0) ? o.filledValue.div(o.filledQty).round(tickPlaces + 8) : ZERO,
    fee: o.fee,
    totalProfits: o.totalProfits,
    createTime: o.createTime,
  };
}

/** A fill as a fills row decodes. */
export function fillReportOf(f: SimFill): FillReport {
  return {
    tradeId: tradeId(f.tradeId),
    orderId: orderId(f.orderId),
    symbol: symbolId(f.symbol),
    positionSide: legOf(f.side) === 'long' ? 'LONG' : 'SHORT',
    orderSide: isBuy(f.side) ? 'BUY' : 'SELL',
    direction: f.side.toUpperCase(),
    size: f.size,
    value: f.value,
    fee: f.fee,
    realizedPnl: f.realizedPnl,
    createdTime: f.createdTime,
  };
}
