// Wire ↔ core mapping, in one place. Wire values are strings; core values are Dec and branded ids.
import { mapToObjects } from '../../core/object-lists.ts';
import { TickerView } from '../../core/ticker-view.ts';
import { dec, decToString, ONE, ZERO, type Dec } from '../../core/decimal.ts';
import { clientOid, orderId, symbolId, tradeId, type ClientOid, type OrderId } from '../../core/ids.ts';
import type { ContractSpec, Ticker, WireTicker } from '../../core/market.ts';
import type { OrderSide, OrderType } from '../../core/orders.ts';
import {
  VENUE_ORDER_STATUSES,
  type CancelOutcome,
  type FillReport,
  type OrderReport,
  type PlaceOutcome,
  type PlanPage,
  type PlanReport,
  type PlanStatus,
  type VenueOrderStatus,
} from '../../core/reports.ts';
import type { CancelPlanRequest, CancelRequest, PlaceEntry, PlanEntry } from '../port.ts';
import {
  WIRE_ORDER_TYPE,
  WIRE_TYPE,
  type WireBatchReply,
  type WireCancelReply,
  type WireContract,
  type WireFill,
  type WireHistoryRow,
  type WirePlaceEntry,
  type WirePlanOrderBody,
  type WirePlanRow,
  type WireTickerParsed,
} from './schemas.ts';

/** A zod-parsed ticker as a WireTicker: absent mark/index prices stay absent (not `undefined`). */
export function wireTickerFromParsed(p: WireTickerParsed): WireTicker {
  return {
    symbol: p.symbol,
    last: p.last,
    best_bid: p.best_bid,
    best_ask: p.best_ask,
    high_24h: p.high_24h,
    low_24h: p.low_24h,
    volume_24h: p.volume_24h,
    timestamp: p.timestamp,
    priceChangePercent: p.priceChangePercent,
    base_volume: p.base_volume,
    ...(p.markPrice !== undefined ? { markPrice: p.markPrice } : {}),
    ...(p.indexPrice !== undefined ? { indexPrice: p.indexPrice } : {}),
  };
}

/** The Ticker of a wire ticker: numbers now, exact decimals on first read (TickerView). */
export function tickerFromWire(w: WireTicker): Ticker {
  return new TickerView(w);
}

/** Decimal places → step: "4" → 0.0001. */
function placesToStep(places: string): Dec {
  const n = Number(places);
  if (!Number.isInteger(n) || n < 0 || n > 18) throw new RangeError(`bad decimal-places value ${places}`);
  return ONE.div(dec(10).pow(n));
}

export function contractFromWire(w: WireContract): ContractSpec {
  const endStep = w.priceEndStep !== undefined ? dec(w.priceEndStep) : ONE;
  return {
    symbol: symbolId(w.symbol),
    sizeStep: placesToStep(w.size_increment),
    priceTick: placesToStep(w.tick_size).times(endStep),
    minSize: dec(w.minOrderSize),
    maxSize: dec(w.maxOrderSize),
    makerFeeRate: dec(w.makerFeeRate),
    takerFeeRate: dec(w.takerFeeRate),
  };
}

export function placeEntryToWire(e: PlaceEntry): WirePlaceEntry {
  return {
    client_oid: e.clientOid,
    size: decToString(e.size),
    type: WIRE_TYPE[e.side],
    order_type: WIRE_ORDER_TYPE[e.orderType],
    match_price: e.price === undefined ? '1' : '0',
    ...(e.price !== undefined ? { price: decToString(e.price) } : {}),
    ...(e.presetTakeProfitPrice !== undefined
      ? { presetTakeProfitPrice: decToString(e.presetTakeProfitPrice) }
      : {}),
    ...(e.presetStopLossPrice !== undefined
      ? { presetStopLossPrice: decToString(e.presetStopLossPrice) }
      : {}),
  };
}

/** A cancel (of an order or a plan) as the cancel_order / cancel_plan body: the symbol and the ids given. */
export function cancelToWire(req: CancelRequest | CancelPlanRequest): {
  readonly symbol: string;
  readonly orderId?: string;
  readonly clientOid?: string;
} {
  return {
    symbol: req.symbol,
    ...(req.orderId !== undefined ? { orderId: req.orderId } : {}),
    ...(req.clientOid !== undefined ? { clientOid: req.clientOid } : {}),
  };
}

/** A plan entry as the plan_order body; market execution sends `match_type "1"`, `execute_price "0"`. */
export function planEntryToWire(symbol: string, e: PlanEntry): WirePlanOrderBody {
  return {
    symbol,
    client_oid: e.clientOid,
    size: decToString(e.size),
    type: WIRE_TYPE[e.side],
    match_type: e.executePrice === undefined ? '1' : '0',
    execute_price: e.executePrice === undefined ? '0' : decToString(e.executePrice),
    trigger_price: decToString(e.triggerPrice),
  };
}

const SIDE_BY_WIRE: Readonly<Record<string, OrderSide>> = {
  '1': 'open_long',
  '2': 'open_short',
  '3': 'close_long',
  '4': 'close_short',
};
const TYPE_BY_WIRE: Readonly<Record<string, OrderType>> = {
  '0': 'normal',
  '1': 'postOnly',
  '2': 'fok',
  '3': 'ioc',
};

/** Wire entry → core entry (used by the simulator to read requests). */
export function placeEntryFromWire(w: WirePlaceEntry): PlaceEntry {
  const side = SIDE_BY_WIRE[w.type];
  const orderType = TYPE_BY_WIRE[w.order_type];
  if (!side || !orderType) throw new RangeError(`bad type/order_type ${w.type}/${w.order_type}`);
  return {
    clientOid: clientOid(w.client_oid),
    side,
    orderType,
    size: dec(w.size),
    ...(w.match_price === '0' && w.price !== undefined ? { price: dec(w.price) } : {}),
  };
}

export function batchOutcomesFromWire(
  reply: { readonly order_info: readonly WireBatchReply['order_info'][number][] },
  sent: readonly PlaceEntry[],
): PlaceOutcome[] {
  // Entries are matched by client_oid when echoed, else by position (the documented order).
  const byOid = new Map(reply.order_info.filter((r) => r.client_oid).map((r) => [r.client_oid as string, r]));
  return mapToObjects(sent, (entry, i) => {
    const r = byOid.get(entry.clientOid) ?? reply.order_info[i];
    if (!r) {
      return {
        clientOid: entry.clientOid,
        outcome: 'rejected',
        code: 'MISSING',
        message: 'no result for this entry in the reply',
      };
    }
    if (r.result && r.order_id) {
      return { clientOid: entry.clientOid, outcome: 'accepted', orderId: orderId(r.order_id) };
    }
    return {
      clientOid: entry.clientOid,
      outcome: 'rejected',
      code:
        r.error_code !== undefined && r.error_code !== null && r.error_code !== ''
          ? String(r.error_code)
          : 'UNKNOWN',
      message: r.error_message ?? '',
    };
  });
}

export function cancelOutcomeFromWire(r: WireCancelReply): CancelOutcome {
  return {
    ...(r.order_id ? { orderId: orderId(r.order_id) } : {}),
    ...(r.client_oid ? { clientOid: clientOid(r.client_oid) } : {}),
    result: r.result,
    ...(r.err_code !== undefined && r.err_code !== null ? { errCode: String(r.err_code) } : {}),
    ...(r.err_msg ? { errMsg: r.err_msg } : {}),
  };
}

/** A cancel (of an order or a plan) the venue refused with `code`: the ids asked for, result false. */
export function refusedCancel(
  req: { readonly orderId?: OrderId; readonly clientOid?: ClientOid },
  code: string,
  message: string,
): CancelOutcome {
  return {
    ...(req.orderId !== undefined ? { orderId: req.orderId } : {}),
    ...(req.clientOid !== undefined ? { clientOid: req.clientOid } : {}),
    result: false,
    errCode: code,
    errMsg: message,
  };
}

/** A placement (order or plan) the venue refused with `code`. */
export function refusedPlacement(clientOid: ClientOid, code: string, message: string): PlaceOutcome {
  return { clientOid, outcome: 'rejected', code, message };
}

export function fillFromWire(w: WireFill): FillReport {
  return {
    tradeId: tradeId(w.tradeId),
    orderId: orderId(w.orderId),
    symbol: symbolId(w.symbol),
    positionSide: w.positionSide,
    orderSide: w.orderSide,
    direction: w.direction,
    size: dec(w.fillSize),
    value: dec(w.fillValue),
    fee: dec(w.fillFee),
    realizedPnl: dec(w.realizePnl),
    createdTime: w.createdTime,
  };
}

function venueStatus(s: string): VenueOrderStatus {
  const lower = s.toLowerCase();
  const norm = lower === 'cancelled' ? 'canceled' : lower;
  if ((VENUE_ORDER_STATUSES as readonly string[]).includes(norm)) return norm as VenueOrderStatus;
  throw new RangeError(`unknown order status ${JSON.stringify(s)}`);
}

export function orderReportFromWire(w: WireHistoryRow): OrderReport {
  const type = w.type;
  const orderType = w.order_type;
  return {
    symbol: symbolId(w.symbol),
    orderId: orderId(w.order_id),
    ...(w.client_oid ? { clientOid: clientOid(w.client_oid) } : {}),
    type,
    orderType,
    status: venueStatus(w.status),
    size: dec(w.size),
    filledQty: dec(w.filled_qty),
    price: dec(w.price),
    priceAvg: dec(w.price_avg),
    fee: dec(w.fee),
    totalProfits: dec(w.totalProfits),
    createTime: w.createTime,
  };
}

/** Plan statuses: documented numeric codes (-1,0,1,2) or observed upper-case words. */
export function planStatusFromWire(s: string): PlanStatus {
  switch (s.toUpperCase()) {
    case '-1':
    case 'CANCELED':
    case 'CANCELLED':
      return 'canceled';
    case '0':
    case 'UNTRIGGERED':
    case 'NOT_TRIGGER':
      return 'untriggered';
    case '1':
    case 'PARTIALLY_FILLED':
      return 'partially_filled';
    case '2':
    case 'FILLED':
      return 'filled';
    case 'TRIGGERED':
      return 'triggered';
    default:
      return 'unknown';
  }
}

const PLAN_SIDE_BY_WORD: Readonly<Record<string, OrderSide>> = {
  OPEN_LONG: 'open_long',
  OPEN_SHORT: 'open_short',
  CLOSE_LONG: 'close_long',
  CLOSE_SHORT: 'close_short',
};

/**
 * Plan `type`: documented codes `1`..`10` or observed words (`CLOSE_LONG`). Codes 1..4 and the four
 * plain words map to a side; 5..10 (reduce, ADL, liquidation closes) and any other word map to none.
 */
export function planSideFromWire(t: string): OrderSide | undefined {
  return SIDE_BY_WIRE[t] ?? PLAN_SIDE_BY_WORD[t.toUpperCase()];
}

export function planReportFromWire(w: WirePlanRow): PlanReport {
  const side = planSideFromWire(w.type);
  const triggerTime = typeof w.triggerTime === 'number' && w.triggerTime > 0 ? w.triggerTime : undefined;
  return {
    symbol: symbolId(w.symbol),
    orderId: orderId(w.order_id),
    ...(w.client_oid ? { clientOid: clientOid(w.client_oid) } : {}),
    status: planStatusFromWire(w.status),
    rawStatus: w.status,
    type: w.type,
    ...(side !== undefined ? { side } : {}),
    orderType: w.order_type,
    size: dec(w.size),
    price: dec(w.price),
    triggerPrice: dec(w.triggerPrice),
    createTime: w.createTime,
    filledQty: w.filled_qty !== undefined ? dec(w.filled_qty) : ZERO,
    priceAvg: w.price_avg !== undefined ? dec(w.price_avg) : ZERO,
    fee: w.fee !== undefined ? dec(w.fee) : ZERO,
    ...(triggerTime !== undefined ? { triggerTime } : {}),
    ...(w.triggerPriceType ? { triggerPriceType: w.triggerPriceType } : {}),
  };
}

/** currentPlan's default and largest page. */
export const CURRENT_PLAN_PAGE_MAX = 100;

/**
 * A currentPlan reply as a page. The venue answers a bare array (no next-page flag): a full page
 * (`limit` rows, default 100) says a further page may hold more.
 */
export function currentPlanPageFromWire(
  reply: { readonly list: readonly WirePlanRow[]; readonly nextPage?: boolean | undefined },
  limit: number | undefined,
): PlanPage {
  return {
    plans: reply.list.map(planReportFromWire),
    nextPage: reply.nextPage ?? currentPlanPageIsFull(reply.list.length, limit),
  };
}

/** A bare currentPlan array that fills its page (`limit`, else the venue's maximum): more may follow. */
export function currentPlanPageIsFull(rows: number, limit: number | undefined): boolean {
  return rows >= (limit ?? CURRENT_PLAN_PAGE_MAX);
}
