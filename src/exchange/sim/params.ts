// Request parameters → typed inputs, or the venue's parameter refusal: a missing or empty value is
// 40019 "Parameter X cannot be empty", a value of the wrong form 40020 "Parameter X is invalid",
// a body that is not a JSON object (or a batch over 20 entries) 40017 "Parameter validation failed".
import type { z } from 'zod';
import type { Mutable } from '../../core/copies.ts';
import { dec } from '../../core/decimal.ts';
import { VENUE_LIMITS } from '../../core/endpoints.ts';
import type { OrderSide, OrderType } from '../../core/orders.ts';
import { cancelOrderBodySchema, placeEntrySchema, type WirePlaceEntry } from '../weex/schemas.ts';
import type { CancelSelector } from './matching.ts';
import type { MarginMode, SimOrderRequest } from './model.ts';
import { HISTORY_PAGE_MAX } from './retention.ts';
import { REJECT, type VenueReject } from './venue-errors.ts';

export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reject: VenueReject };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const no = <T>(reject: VenueReject): Parsed<T> => ({ ok: false, reject });

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur = root;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

/** The first zod issue as a venue refusal, naming the parameter (`prefix` for batch entries). */
export function rejectFromIssues(root: unknown, error: z.ZodError, prefix = ''): VenueReject {
  const issue = error.issues[0];
  if (!issue || issue.path.length === 0) return REJECT.validation(issue?.message);
  const name = prefix + issue.path.map(String).join('.');
  return isEmpty(valueAt(root, issue.path)) ? REJECT.empty(name) : REJECT.invalid(name);
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

function marginModeOf(v: unknown): MarginMode {
  return v === 3 || v === '3' ? 'ISOLATED' : 'SHARED';
}

/** One validated wire entry → request. A limit order (match_price 0) needs a price. */
function entryToRequest(w: WirePlaceEntry, marginMode: MarginMode, prefix: string): Parsed<SimOrderRequest> {
  const side = SIDE_BY_WIRE[w.type];
  const orderType = TYPE_BY_WIRE[w.order_type];
  if (!side) return no(REJECT.invalid(`${prefix}type`));
  if (!orderType) return no(REJECT.invalid(`${prefix}order_type`));
  const limit = w.match_price === '0';
  if (limit && (w.price === undefined || w.price === '')) return no(REJECT.empty(`${prefix}price`));
  return ok({
    clientOid: w.client_oid,
    side,
    orderType,
    size: dec(w.size),
    ...(limit && w.price !== undefined ? { price: dec(w.price) } : {}),
    ...(w.presetTakeProfitPrice !== undefined ? { presetTakeProfitPrice: dec(w.presetTakeProfitPrice) } : {}),
    ...(w.presetStopLossPrice !== undefined ? { presetStopLossPrice: dec(w.presetStopLossPrice) } : {}),
    marginMode,
  });
}

/** The symbol's refusal (empty, or not listed), if any. */
function symbolReject(symbol: string, known: (s: string) => boolean): VenueReject | undefined {
  if (symbol === '') return REJECT.empty('symbol');
  return known(symbol) ? undefined : REJECT.invalid('symbol');
}

function parseSymbol(body: Record<string, unknown>, known: (s: string) => boolean): Parsed<string> {
  const s = body['symbol'];
  if (typeof s !== 'string') return no(isEmpty(s) ? REJECT.empty('symbol') : REJECT.invalid('symbol'));
  const reject = symbolReject(s, known);
  return reject !== undefined ? no(reject) : ok(s);
}

function parseMarginMode(body: Record<string, unknown>): Parsed<MarginMode> {
  const m = body['marginMode'];
  if (m === undefined || m === null) return ok('SHARED');
  if (m === 1 || m === 3 || m === '1' || m === '3') return ok(marginModeOf(m));
  return no(REJECT.invalid('marginMode'));
}

export interface PlaceOrderInput {
  readonly symbol: string;
  readonly request: SimOrderRequest;
}

export function parsePlaceOrderBody(body: unknown, known: (s: string) => boolean): Parsed<PlaceOrderInput> {
  if (!isRecord(body)) return no(REJECT.validation('the body must be a JSON object'));
  const symbol = parseSymbol(body, known);
  if (!symbol.ok) return symbol;
  const mode = parseMarginMode(body);
  if (!mode.ok) return mode;
  const entry = placeEntrySchema.safeParse(body);
  if (!entry.success) return no(rejectFromIssues(body, entry.error));
  const request = entryToRequest(entry.data, mode.value, '');
  return request.ok ? ok({ symbol: symbol.value, request: request.value }) : request;
}

/** A batch entry: its request, or its own refusal (the other entries still go through). */
export type BatchEntryInput =
  | { readonly ok: true; readonly request: SimOrderRequest }
  | { readonly ok: false; readonly clientOid: string; readonly reject: VenueReject };

export interface BatchInput {
  readonly symbol: string;
  readonly entries: readonly BatchEntryInput[];
}

export function parseBatchOrdersBody(body: unknown, known: (s: string) => boolean): Parsed<BatchInput> {
  if (!isRecord(body)) return no(REJECT.validation('the body must be a JSON object'));
  const symbol = parseSymbol(body, known);
  if (!symbol.ok) return symbol;
  const mode = parseMarginMode(body);
  if (!mode.ok) return mode;
  const list = body['orderDataList'];
  if (list === undefined || list === null) return no(REJECT.empty('orderDataList'));
  if (!Array.isArray(list)) return no(REJECT.invalid('orderDataList'));
  const count = batchCountReject(list.length);
  if (count !== undefined) return no(count);
  const entries = list.map((raw: unknown, i): BatchEntryInput => {
    const prefix = `orderDataList[${i}].`;
    const oid = isRecord(raw) && typeof raw['client_oid'] === 'string' ? raw['client_oid'] : '';
    if (!isRecord(raw)) return { ok: false, clientOid: oid, reject: REJECT.invalid(`orderDataList[${i}]`) };
    const e = placeEntrySchema.safeParse(raw);
    if (!e.success) return { ok: false, clientOid: oid, reject: rejectFromIssues(raw, e.error, prefix) };
    const r = entryToRequest(e.data, mode.value, prefix);
    return r.ok ? { ok: true, request: r.value } : { ok: false, clientOid: oid, reject: r.reject };
  });
  return ok({ symbol: symbol.value, entries });
}

/** The refusal of a batch of `n` orders for its size (none, or more than a batch holds), if any. */
function batchCountReject(n: number): VenueReject | undefined {
  if (n === 0) return REJECT.empty('orderDataList');
  if (n > VENUE_LIMITS.maxBatchOrders)
    return REJECT.validation(
      `orderDataList holds ${n} orders, at most ${VENUE_LIMITS.maxBatchOrders} are allowed`,
    );
  return undefined;
}

/**
 * A placement already made of requests (the in-process port: ./requests.ts), checked as its body
 * would be: what `parsePlaceOrderBody` gives for the same order sent without a margin mode.
 */
export function placeInputOf(
  symbol: string,
  request: SimOrderRequest,
  known: (s: string) => boolean,
): Parsed<PlaceOrderInput> {
  const reject = symbolReject(symbol, known);
  return reject !== undefined ? no(reject) : ok({ symbol, request });
}

/** A batch already made of requests, checked as its body would be (`parseBatchOrdersBody`). */
export function batchInputOf(
  symbol: string,
  requests: readonly SimOrderRequest[],
  known: (s: string) => boolean,
): Parsed<BatchInput> {
  const reject = symbolReject(symbol, known) ?? batchCountReject(requests.length);
  if (reject !== undefined) return no(reject);
  return ok({ symbol, entries: requests.map((request): BatchEntryInput => ({ ok: true, request })) });
}

export function parseCancelBody(body: unknown, known: (s: string) => boolean): Parsed<CancelSelector> {
  if (!isRecord(body)) return no(REJECT.validation('the body must be a JSON object'));
  const b = cancelOrderBodySchema.safeParse(body);
  if (!b.success) return no(rejectFromIssues(body, b.error));
  return cancelSelectorOf(b.data, known);
}

/**
 * A cancel's selector from values its body check accepted (a parsed body, or the in-process port's
 * request without an empty value: requests.ts `cancelNeedsWire`), with the venue's refusals.
 */
export function cancelSelectorOf(
  ids: {
    readonly symbol?: string | undefined;
    readonly orderId?: string | undefined;
    readonly clientOid?: string | undefined;
  },
  known: (s: string) => boolean,
): Parsed<CancelSelector> {
  const { symbol, orderId, clientOid } = ids;
  if (symbol !== undefined && !known(symbol)) return no(REJECT.invalid('symbol'));
  if (orderId === undefined && clientOid === undefined) return no(REJECT.empty('orderId or clientOid'));
  if (orderId !== undefined && !/^\d{1,30}$/.test(orderId)) return no(REJECT.invalid('orderId'));
  const selector: Mutable<CancelSelector> = {};
  if (symbol !== undefined) selector.symbol = symbol;
  if (orderId !== undefined) selector.orderId = orderId;
  if (clientOid !== undefined) selector.clientOid = clientOid;
  return ok(selector);
}

// ---------------------------------------------------------------------------------------------
// Queries (GET): values are text from the URL; an empty value counts as absent.

export type QueryParams = ReadonlyMap<string, string>;

export function queryParams(rawQuery: string): QueryParams {
  const m = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(rawQuery)) if (!m.has(k) && v !== '') m.set(k, v);
  return m;
}

/**
 * The parameters `queryParams` reads from the URL text of these pairs (absent values left out),
 * without writing the text and parsing it back: the first value of each name, empty ones absent.
 * The in-process port's queries (test/exchange/sim/query-params.property.test.ts).
 */
export function queryParamsOf(
  pairs: readonly (readonly [string, string | number | undefined])[],
): QueryParams {
  const m = new Map<string, string>();
  for (const [k, v] of pairs) {
    if (v === undefined) continue;
    const text = String(v);
    if (text !== '' && !m.has(k)) m.set(k, text);
  }
  return m;
}

function intParam(q: QueryParams, name: string, min: number, max: number): Parsed<number | undefined> {
  const v = q.get(name);
  if (v === undefined) return ok(undefined);
  if (!/^-?\d{1,16}$/.test(v)) return no(REJECT.invalid(name));
  const n = Number(v);
  return n < min || n > max ? no(REJECT.invalid(name)) : ok(n);
}

function symbolParam(
  q: QueryParams,
  known: (s: string) => boolean,
  required: boolean,
): Parsed<string | undefined> {
  const s = q.get('symbol');
  if (s === undefined) return required ? no(REJECT.empty('symbol')) : ok(undefined);
  return known(s) ? ok(s) : no(REJECT.invalid('symbol'));
}

interface TimeRange {
  startTime?: number;
  endTime?: number;
}

/** `startTime` and `endTime`, each set on `into` when given (a filter built key by key: ../../core/copies.ts). */
function timeRange(q: QueryParams, into: TimeRange): VenueReject | undefined {
  const start = intParam(q, 'startTime', 0, Number.MAX_SAFE_INTEGER);
  if (!start.ok) return start.reject;
  const end = intParam(q, 'endTime', 0, Number.MAX_SAFE_INTEGER);
  if (!end.ok) return end.reject;
  if (start.value !== undefined && end.value !== undefined && start.value > end.value)
    return REJECT.invalid('startTime');
  if (start.value !== undefined) into.startTime = start.value;
  if (end.value !== undefined) into.endTime = end.value;
  return undefined;
}

export interface FillsFilter {
  readonly symbol?: string;
  readonly orderId?: string;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly limit: number;
}

export function parseFillsQuery(q: QueryParams, known: (s: string) => boolean): Parsed<FillsFilter> {
  const symbol = symbolParam(q, known, false);
  if (!symbol.ok) return symbol;
  const orderId = q.get('orderId');
  if (orderId !== undefined && !/^\d{1,30}$/.test(orderId)) return no(REJECT.invalid('orderId'));
  const filter: Mutable<FillsFilter> = { limit: 100 };
  if (symbol.value !== undefined) filter.symbol = symbol.value;
  if (orderId !== undefined) filter.orderId = orderId;
  const badRange = timeRange(q, filter);
  if (badRange !== undefined) return no(badRange);
  const limit = intParam(q, 'limit', 1, 100);
  if (!limit.ok) return limit;
  if (limit.value !== undefined) filter.limit = limit.value;
  return ok(filter);
}

export interface HistoryFilter {
  readonly symbol?: string;
  readonly pageSize: number;
  /** Lower bound on createTime, from `createDate`. */
  readonly since?: number;
}

const DAY_MS = 86_400_000;
export const MAX_HISTORY_DAYS = 90;

/**
 * `createDate` is documented both as a day count (≤ 90) and as epoch ms (weex-facts.md §8): a value
 * 1..90 means the last N days, 0 no bound, a 13-digit value an epoch-ms bound within the last 90 days.
 * `limit` is accepted as an alias of `pageSize` (observed live). Default and maximum page: 100.
 */
export function parseHistoryQuery(
  q: QueryParams,
  known: (s: string) => boolean,
  now: number,
): Parsed<HistoryFilter> {
  const symbol = symbolParam(q, known, false);
  if (!symbol.ok) return symbol;
  const pageName = q.has('pageSize') ? 'pageSize' : 'limit';
  // The retention (./retention.ts) relies on this bound: no page shows more than 100 orders.
  const pageSize = intParam(q, pageName, 1, HISTORY_PAGE_MAX);
  if (!pageSize.ok) return pageSize;
  let since: number | undefined;
  const cd = q.get('createDate');
  if (cd !== undefined) {
    if (!/^\d{1,16}$/.test(cd)) return no(REJECT.invalid('createDate'));
    const n = Number(cd);
    if (n <= MAX_HISTORY_DAYS) since = n === 0 ? undefined : now - n * DAY_MS;
    else if (cd.length === 13 && n >= now - MAX_HISTORY_DAYS * DAY_MS) since = n;
    else return no(REJECT.invalid('createDate'));
  }
  const filter: Mutable<HistoryFilter> = { pageSize: pageSize.value ?? HISTORY_PAGE_MAX };
  if (symbol.value !== undefined) filter.symbol = symbol.value;
  if (since !== undefined) filter.since = since;
  return ok(filter);
}

export interface PlanFilter {
  readonly symbol: string;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly delegateType?: number;
  readonly pageSize: number;
}

/** historyPlan: `symbol` required; time range, `delegateType` 1..4 and `pageSize` 1..100 optional. */
export function parsePlanQuery(q: QueryParams, known: (s: string) => boolean): Parsed<PlanFilter> {
  const symbol = symbolParam(q, known, true);
  if (!symbol.ok) return symbol;
  const filter: Mutable<PlanFilter> = { symbol: symbol.value ?? '', pageSize: 100 };
  const badRange = timeRange(q, filter);
  if (badRange !== undefined) return no(badRange);
  const dt = intParam(q, 'delegateType', 1, 4);
  if (!dt.ok) return dt;
  if (dt.value !== undefined) filter.delegateType = dt.value;
  const pageSize = intParam(q, 'pageSize', 1, 100);
  if (!pageSize.ok) return pageSize;
  if (pageSize.value !== undefined) filter.pageSize = pageSize.value;
  return ok(filter);
}
