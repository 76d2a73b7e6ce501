// Input checks run before anything is sent: a request the exchange would refuse for its shape never
// costs weight or leaves doubt. Each check throws BadInputError naming the field.
import { BadInputError } from '../../core/errors.ts';
import { CLIENT_OID_PATTERN } from '../../core/ids.ts';
import type {
  CancelPlanRequest,
  CancelRequest,
  CurrentPlanQuery,
  FillsQuery,
  HistoryQuery,
  PlanHistoryQuery,
} from '../port.ts';
import type { WirePlaceEntry, WirePlanOrderBody } from './schemas.ts';

export const MAX_BATCH = 20;
export const MAX_FILLS_LIMIT = 100;
export const MAX_PAGE_SIZE = 100;
export const MAX_CREATE_DATE_DAYS = 90;
const DAY_MS = 86_400_000;

/** Plain positive decimal as the wire wants it: digits, optional fraction, no sign, no exponent. */
const PLAIN_DECIMAL = /^\d+(?:\.\d+)?$/;
const SYMBOL = /^[A-Za-z0-9_]{1,40}$/;
const ORDER_ID = /^\d{1,30}$/;

export function checkSymbol(symbol: string, where = 'symbol'): void {
  if (!SYMBOL.test(symbol))
    throw new BadInputError('must be 1-40 chars of [A-Za-z0-9_] (e.g. cmt_btcusdt)', where);
}

export function checkClientOid(oid: string, where = 'client_oid'): void {
  if (!CLIENT_OID_PATTERN.test(oid)) throw new BadInputError('must be 1-40 chars of [A-Za-z0-9_-]', where);
}

export function checkOrderId(id: string, where = 'orderId'): void {
  if (!ORDER_ID.test(id)) throw new BadInputError('must be a decimal order id', where);
}

export function isPositiveDecimal(s: string): boolean {
  return PLAIN_DECIMAL.test(s) && /[1-9]/.test(s);
}

export function checkPositiveDecimal(s: string, where: string): void {
  if (!isPositiveDecimal(s))
    throw new BadInputError(`must be a positive plain decimal string, got ${JSON.stringify(s)}`, where);
}

function checkIntInRange(v: number, min: number, max: number, where: string): void {
  if (!Number.isSafeInteger(v) || v < min || v > max)
    throw new BadInputError(`must be an integer ${min}-${max}`, where);
}

function checkEpochMs(v: number, where: string): void {
  if (!Number.isSafeInteger(v) || v < 0)
    throw new BadInputError('must be a non-negative epoch-ms integer', where);
}

function checkWindow(start: number | undefined, end: number | undefined): void {
  if (start !== undefined) checkEpochMs(start, 'startTime');
  if (end !== undefined) checkEpochMs(end, 'endTime');
  if (start !== undefined && end !== undefined && start > end) {
    throw new BadInputError('startTime must not be after endTime', 'startTime');
  }
}

/** One placement entry in wire field names (placeOrder body or a batchOrders entry). */
export function checkPlaceEntry(e: WirePlaceEntry, where = 'entry'): void {
  checkClientOid(e.client_oid, `${where}.client_oid`);
  checkPositiveDecimal(e.size, `${where}.size`);
  if (e.price !== undefined) checkPositiveDecimal(e.price, `${where}.price`);
  if (e.match_price === '0' && e.price === undefined) {
    throw new BadInputError('a limit order (match_price "0") needs a price', `${where}.price`);
  }
  if (e.presetTakeProfitPrice !== undefined)
    checkPositiveDecimal(e.presetTakeProfitPrice, `${where}.presetTakeProfitPrice`);
  if (e.presetStopLossPrice !== undefined)
    checkPositiveDecimal(e.presetStopLossPrice, `${where}.presetStopLossPrice`);
}

/** A batch: 1-20 entries (all for the one symbol of the request), client_oids distinct. */
export function checkBatch(symbol: string, entries: readonly WirePlaceEntry[]): void {
  checkSymbol(symbol);
  if (entries.length < 1 || entries.length > MAX_BATCH) {
    throw new BadInputError(`a batch has 1-${MAX_BATCH} entries, got ${entries.length}`, 'orderDataList');
  }
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    checkPlaceEntry(e, `orderDataList[${i}]`);
    if (seen.has(e.client_oid))
      throw new BadInputError('duplicate client_oid in the batch', `orderDataList[${i}].client_oid`);
    seen.add(e.client_oid);
  });
}

/** A plan_order body: a limit plan (match_type "0") needs a positive execute_price; market sends "0". */
export function checkPlanOrder(b: WirePlanOrderBody): void {
  checkSymbol(b.symbol);
  checkClientOid(b.client_oid);
  checkPositiveDecimal(b.size, 'size');
  checkPositiveDecimal(b.trigger_price, 'trigger_price');
  if (b.match_type === '0') checkPositiveDecimal(b.execute_price, 'execute_price');
  else if (!PLAIN_DECIMAL.test(b.execute_price))
    throw new BadInputError('must be a plain decimal string ("0" for a market plan)', 'execute_price');
}

export function checkCancel(req: CancelRequest | CancelPlanRequest): void {
  checkSymbol(req.symbol);
  const hasOrderId = req.orderId !== undefined;
  const hasClientOid = req.clientOid !== undefined;
  if (hasOrderId === hasClientOid)
    throw new BadInputError('give exactly one of orderId and clientOid', 'cancel');
  if (req.orderId !== undefined) checkOrderId(req.orderId);
  if (req.clientOid !== undefined) checkClientOid(req.clientOid, 'clientOid');
}

export function checkFillsQuery(q: FillsQuery): void {
  if (q.symbol !== undefined) checkSymbol(q.symbol);
  if (q.orderId !== undefined) checkOrderId(q.orderId);
  checkWindow(q.startTime, q.endTime);
  if (q.limit !== undefined) checkIntInRange(q.limit, 1, MAX_FILLS_LIMIT, 'limit');
}

/**
 * createDate is documented both as "days, 0-90" and as a ms timestamp (the samples send 13 digits);
 * accept either: an integer 0-90, or a 13-digit epoch ms within 90 days of `nowMs`.
 */
export function checkCreateDate(v: number, nowMs: number): void {
  if (!Number.isSafeInteger(v) || v < 0)
    throw new BadInputError('must be a non-negative integer', 'createDate');
  if (v <= MAX_CREATE_DATE_DAYS) return;
  if (String(v).length === 13 && Math.abs(nowMs - v) <= MAX_CREATE_DATE_DAYS * DAY_MS) return;
  throw new BadInputError('must be days 0-90 or a 13-digit epoch ms within 90 days of now', 'createDate');
}

export function checkHistoryQuery(q: HistoryQuery, nowMs: number): void {
  if (q.symbol !== undefined) checkSymbol(q.symbol);
  if (q.pageSize !== undefined) checkIntInRange(q.pageSize, 1, MAX_PAGE_SIZE, 'pageSize');
  if (q.createDate !== undefined) checkCreateDate(q.createDate, nowMs);
}

export function checkPlanHistoryQuery(q: PlanHistoryQuery): void {
  checkSymbol(q.symbol);
  checkWindow(q.startTime, q.endTime);
  if (q.delegateType !== undefined) checkIntInRange(q.delegateType, 1, 4, 'delegateType');
  if (q.pageSize !== undefined) checkIntInRange(q.pageSize, 1, MAX_PAGE_SIZE, 'pageSize');
}

export const MAX_CURRENT_PLAN_LIMIT = 100;
const MAX_PAGE_NUMBER = 1_000_000;

export function checkCurrentPlanQuery(q: CurrentPlanQuery): void {
  if (q.symbol !== undefined) checkSymbol(q.symbol);
  if (q.page !== undefined) checkIntInRange(q.page, 0, MAX_PAGE_NUMBER, 'page');
  if (q.limit !== undefined) checkIntInRange(q.limit, 1, MAX_CURRENT_PLAN_LIMIT, 'limit');
}
