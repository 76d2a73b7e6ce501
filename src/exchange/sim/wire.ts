// Simulator records → capi/v2 wire shapes (weex-facts.md §7, fixtures in shared/fixtures/weex-docs):
// bare success bodies, decimals as strings formatted like the live samples ("0.010000", "88888.0",
// "0.54731220"), ids as strings except fills tradeId/orderId, which the venue sends as JSON numbers.
import { dec, decToString, type Dec } from '../../core/decimal.ts';
import type { ContractTable } from './contracts.ts';
import { decimalPlaces } from './contracts.ts';
import { RawNumber } from './json-text.ts';
import type { SimFill, SimOrder } from './model.ts';
import { isBuy, legOf } from './positions.ts';
import type { VenueReject } from './venue-errors.ts';

/** Plain text with at least `min` decimals ("0.01" → "0.010000" for 6); never drops digits. */
export function padDecimals(d: Dec, min: number): string {
  return d.toFixed(Math.max(min, decimalPlaces(d)));
}

/** History rows count `contracts` in 10^-6 units of the base coin, as the samples do (0.01 → 10000). */
const CONTRACT_UNITS = dec(1_000_000);

function contractsOf(size: Dec): number {
  return Number(size.times(CONTRACT_UNITS).round(0, 0).toFixed());
}

export interface WireHistoryRowOut {
  readonly symbol: string;
  readonly size: string;
  readonly client_oid: string;
  readonly createTime: string;
  readonly filled_qty: string;
  readonly fee: string;
  readonly order_id: string;
  readonly price: string;
  readonly price_avg: string;
  readonly status: string;
  readonly type: string;
  readonly order_type: string;
  readonly totalProfits: string;
  readonly contracts: number;
  readonly filledQtyContracts: number;
  readonly presetTakeProfitPrice: string | null;
  readonly presetStopLossPrice: string | null;
}

export function historyRowToWire(o: SimOrder, contracts: ContractTable): WireHistoryRowOut {
  const tickPlaces = Math.max(1, decimalPlaces(contracts.rules(o.symbol).priceTick));
  const avg = o.filledQty.gt(0) ? o.filledValue.div(o.filledQty).round(tickPlaces + 8) : undefined;
  return {
    symbol: o.symbol,
    size: padDecimals(o.size, 6),
    client_oid: o.clientOid,
    createTime: String(o.createTime),
    filled_qty: padDecimals(o.filledQty, 6),
    fee: padDecimals(o.fee, 8),
    order_id: o.orderId,
    price: o.price === undefined ? '0.0' : padDecimals(o.price, tickPlaces),
    price_avg: avg === undefined ? '0' : padDecimals(avg, tickPlaces),
    status: o.status,
    type: o.side,
    order_type: o.orderType,
    totalProfits: decToString(o.totalProfits),
    contracts: contractsOf(o.size),
    filledQtyContracts: contractsOf(o.filledQty),
    presetTakeProfitPrice:
      o.presetTakeProfitPrice === undefined ? null : decToString(o.presetTakeProfitPrice),
    presetStopLossPrice: o.presetStopLossPrice === undefined ? null : decToString(o.presetStopLossPrice),
  };
}

export interface WireFillOut {
  readonly tradeId: RawNumber | string;
  readonly orderId: RawNumber | string;
  readonly symbol: string;
  readonly marginMode: string;
  readonly separatedMode: string;
  readonly positionSide: string;
  readonly orderSide: string;
  readonly fillSize: string;
  readonly fillValue: string;
  readonly fillFee: string;
  readonly liquidateFee: string;
  readonly realizePnl: string;
  readonly direction: string;
  readonly liquidateType: string;
  readonly legacyOrdeDirection: string;
  readonly createdTime: number;
}

/**
 * One fill in the documented shape. Enumerations follow the doc sample (SHARED, SEPARATED, LONG,
 * BUY, OPEN_LONG); `liquidateFee` carries the liquidity role (the sample shows "MAKER" there) and
 * `liquidateType` is "NONE" for ordinary fills (the value for non-liquidations is undocumented).
 */
export function fillToWire(f: SimFill, idsAsNumbers: boolean): WireFillOut {
  const direction = f.side.toUpperCase();
  return {
    tradeId: idsAsNumbers ? new RawNumber(f.tradeId) : f.tradeId,
    orderId: idsAsNumbers ? new RawNumber(f.orderId) : f.orderId,
    symbol: f.symbol,
    marginMode: f.marginMode,
    separatedMode: 'SEPARATED',
    positionSide: legOf(f.side) === 'long' ? 'LONG' : 'SHORT',
    orderSide: isBuy(f.side) ? 'BUY' : 'SELL',
    fillSize: decToString(f.size),
    fillValue: decToString(f.value),
    fillFee: decToString(f.fee),
    liquidateFee: f.liquidity,
    realizePnl: decToString(f.realizedPnl),
    direction,
    liquidateType: 'NONE',
    legacyOrdeDirection: direction,
    createdTime: f.createdTime,
  };
}

/** placeOrder's reply. */
export interface WirePlaceReplyOut {
  readonly client_oid: string;
  readonly order_id: string;
}

export function placeReplyToWire(o: SimOrder): WirePlaceReplyOut {
  return { client_oid: o.clientOid, order_id: o.orderId };
}

export interface WireBatchEntryOut {
  readonly order_id: string;
  readonly client_oid: string;
  readonly result: boolean;
  readonly error_code: string;
  readonly error_message: string;
}

/** batchOrders' reply: an entry per order, in the request's order. */
export interface WireBatchReplyOut {
  readonly order_info: readonly WireBatchEntryOut[];
  readonly result: boolean;
}

export function batchEntryToWire(
  r: { ok: true; order: SimOrder } | { ok: false; clientOid: string; reject: VenueReject },
): WireBatchEntryOut {
  return r.ok
    ? {
        order_id: r.order.orderId,
        client_oid: r.order.clientOid,
        result: true,
        error_code: '',
        error_message: '',
      }
    : {
        order_id: '',
        client_oid: r.clientOid,
        result: false,
        error_code: r.reject.code,
        error_message: r.reject.msg,
      };
}

/** cancelOrder's and cancel_plan's reply. */
export interface WireCancelReplyOut {
  readonly order_id: string;
  readonly client_oid: string | null;
  readonly result: true;
  readonly err_msg: null;
}

export function cancelReplyToWire(o: SimOrder): WireCancelReplyOut {
  return { order_id: o.orderId, client_oid: o.clientOid, result: true, err_msg: null };
}

export function errorEnvelope(
  r: VenueReject,
  requestTime: number,
): { code: string; msg: string; requestTime: number; data: null } {
  return { code: r.code, msg: r.msg, requestTime, data: null };
}

/** `market/time`: {"epoch":"1716710918.113","iso":"2024-05-26T08:08:38.113Z","timestamp":1716710918113}. */
export function timeToWire(ms: number): { epoch: string; iso: string; timestamp: number } {
  const epoch = `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
  return { epoch, iso: new Date(ms).toISOString(), timestamp: ms };
}
