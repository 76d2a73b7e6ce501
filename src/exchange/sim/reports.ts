// Simulator records → core reports, for the in-process port: what the HTTP client makes of the same
// records sent as wire rows (./wire.ts and ./plan-wire.ts, then the weex schemas and mappers),
// without writing the decimals out as text and parsing them back. Both paths give equal reports,
// value for value and representation for representation (Dec is canonical);
// test/exchange/sim/reports.property.test.ts checks it on arbitrary records.
import { ZERO } from '../../core/decimal.ts';
import { clientOid, orderId, symbolId, tradeId } from '../../core/ids.ts';
import type { FillReport, OrderReport, PlanReport } from '../../core/reports.ts';
import { planSideFromWire, planStatusFromWire } from '../weex/mappers.ts';
import { decimalPlaces, type ContractTable } from './contracts.ts';
import type { SimFill, SimOrder, SimPlan } from './model.ts';
import {
  planAveragePrice,
  planPricePlaces,
  planRowStatusText,
  planRowType,
  type PlanRowStyle,
} from './plan-wire.ts';
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

/**
 * A plan revision as a currentPlan or historyPlan row in `style` decodes (./plan-wire.ts, then the
 * weex plan row schema and planReportFromWire): the row's status and type texts as the venue writes
 * them, read back by the client's own vocabulary.
 */
export function planReportOf(p: SimPlan, contracts: ContractTable, style: PlanRowStyle): PlanReport {
  const c = p.child;
  const rawStatus = planRowStatusText(p, style);
  const type = planRowType(p, style);
  const side = planSideFromWire(type);
  const avg = planAveragePrice(p, planPricePlaces(p, contracts));
  return {
    symbol: symbolId(p.symbol),
    orderId: orderId(p.orderId),
    // An absent or empty client_oid reads as none, as on the wire.
    ...(p.clientOid ? { clientOid: clientOid(p.clientOid) } : {}),
    status: planStatusFromWire(rawStatus),
    rawStatus,
    type,
    ...(side !== undefined ? { side } : {}),
    // The child's execution type: normal for a limit plan, ioc for a market one.
    orderType: p.executePrice === undefined ? '3' : '0',
    size: p.size,
    price: p.executePrice ?? ZERO,
    triggerPrice: p.triggerPrice,
    createTime: p.createTime,
    filledQty: c?.filledQty ?? ZERO,
    priceAvg: avg ?? ZERO,
    fee: c?.fee ?? ZERO,
    ...(p.triggerTime !== undefined && p.triggerTime > 0 ? { triggerTime: p.triggerTime } : {}),
    ...(p.triggerSource === 'mark' ? { triggerPriceType: 'MARK_PRICE' } : {}),
  };
}
