// The capi/v2 client: `WeexClient implements ExchangePort` (core types), plus the raw wire methods
// `capibot api` prints (zod-validated wire objects, ids as strings).
//
// One call = input checks (BadInputError, nothing sent) → query/body text built once → per attempt:
// budget hook, 13-digit server timestamp, signature over exactly that text, send → classified reply
// → zod parse (BadResponseError naming the field) → mappers (core types).
//
// Retries follow ./retry.ts (reads yes, cancels only when safe, placements never). Independently, a
// 40008 "timestamp expired" re-syncs the server clock and resends once with a fresh timestamp: the
// exchange refused that request before acting on it, so resending is safe for every operation.
//
// Outcomes of placements and cancels: an error envelope the exchange classifies as business,
// parameter or not_found (40015 step size, 50005 order does not exist, …) is that entry's answer and
// comes back as a `rejected` PlaceOutcome / `result:false` CancelOutcome; auth, permission and unknown
// codes are systemic and throw ExchangeError; OutcomeUnknownError always throws.
import { pino, type Logger } from 'pino';
import type { z } from 'zod';
import type { Clock } from '../../core/clock.ts';
import { ENDPOINTS, type Endpoint, type EndpointId } from '../../core/endpoints.ts';
import { BadResponseError, ConfigError, ExchangeError, TransportError } from '../../core/errors.ts';
import { orderId as toOrderId, type SymbolId } from '../../core/ids.ts';
import type { ContractSpec, Ticker } from '../../core/market.ts';
import type { CancelOutcome, FillPage, OrderReport, PlaceOutcome, PlanPage } from '../../core/reports.ts';
import type {
  CancelPlanRequest,
  CancelRequest,
  CurrentPlanQuery,
  ExchangePort,
  FillsQuery,
  HistoryQuery,
  PlaceEntry,
  PlanEntry,
  PlanHistoryQuery,
} from '../port.ts';
import {
  batchOutcomesFromWire,
  cancelOutcomeFromWire,
  contractFromWire,
  currentPlanPageFromWire,
  fillFromWire,
  orderReportFromWire,
  placeEntryToWire,
  cancelToWire,
  planEntryToWire,
  planReportFromWire,
  tickerFromWire,
  wireTickerFromParsed,
  refusedCancel,
  refusedPlacement,
} from './mappers.ts';
import { buildQuery } from './query.ts';
import {
  checkBatch,
  checkCancel,
  checkCurrentPlanQuery,
  checkFillsQuery,
  checkHistoryQuery,
  checkPlaceEntry,
  checkPlanHistoryQuery,
  checkPlanOrder,
  checkSymbol,
} from './request-checks.ts';
import { DEFAULT_RETRY, realSleep, withRetry, type RetryOptions, type Sleep } from './retry.ts';
import {
  batchOrdersReplySchema,
  cancelOrderReplySchema,
  cancelPlanReplySchema,
  contractsSchema,
  currentPlanReplySchema,
  fillsReplySchema,
  historySchema,
  placeOrderReplySchema,
  planHistoryReplySchema,
  planOrderReplySchema,
  tickersSchema,
  timeSchema,
  type WireBatchOrdersBody,
  type WirePlaceEntry,
  type WirePlaceOrderBody,
  type WirePlanOrderBody,
} from './schemas.ts';
import { ServerClock } from './server-clock.ts';
import { signedHeaders, type Credentials } from './signer.ts';
import { DEFAULT_BASE_URL, type TransportTimeouts } from './defaults.ts';
import { HttpTransport, type ResponseHook } from './transport.ts';
import { TIMESTAMP_EXPIRED_CODE } from './venue-errors.ts';
import { describeZodError } from './zod-issues.ts';

export interface WeexClientOptions {
  /** Origin of the API; default https://api-contract.weex.com (or a `capibot sim` address). */
  readonly baseUrl?: string;
  /** Needed for signed endpoints only; public ones (time, contracts, tickers) are sent without. */
  readonly credentials?: Credentials;
  /** `locale` header on signed requests; default en-US (the exchange answers in Chinese without). */
  readonly locale?: string;
  readonly timeouts?: Partial<TransportTimeouts>;
  /** Response size cap; default 4 MiB. */
  readonly maxResponseBytes?: number;
  readonly connections?: number;
  /** Local time; default the system clock. The server offset is added for ACCESS-TIMESTAMP. */
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Weight-budget hook, awaited before every attempt (including server-time syncs). */
  readonly beforeRequest?: (e: Endpoint) => Promise<void>;
  /** Metrics hook, called once per attempt with the HTTP status or 'error'. */
  readonly onResponse?: ResponseHook;
  readonly retry?: Partial<RetryOptions>;
  /** RNG for retry jitter, uniform in [0, 1). */
  readonly random?: () => number;
  readonly sleep?: Sleep;
  /** Aborts every request and retry wait (shutdown). */
  readonly signal?: AbortSignal;
  /** Re-measure the server time offset when older than this; default 10 minutes. */
  readonly serverTimeMaxAgeMs?: number;
  /**
   * `eager` (default): measure the server time before the first signed request. `on-40008`: sign with
   * the local clock until the exchange answers 40008, then measure (saves a request for one-shot use).
   */
  readonly serverTimeSync?: 'eager' | 'on-40008';
  /** Back-off assumed for a 429 without Retry-After; default 1000 ms. */
  readonly defaultRetryAfterMs?: number;
}

export type WireTime = z.output<typeof timeSchema>;
export type WireContracts = z.output<typeof contractsSchema>;
export type WireTickers = z.output<typeof tickersSchema>;
export type WireFillsReply = z.output<typeof fillsReplySchema>;
export type WireHistory = z.output<typeof historySchema>;
export type WirePlanHistoryReply = z.output<typeof planHistoryReplySchema>;
export type WirePlaceOrderReply = z.output<typeof placeOrderReplySchema>;
export type WireBatchOrdersReply = z.output<typeof batchOrdersReplySchema>;
export type WireCancelOrderReply = z.output<typeof cancelOrderReplySchema>;
export type WirePlanOrderReply = z.output<typeof planOrderReplySchema>;
export type WireCancelPlanReply = z.output<typeof cancelPlanReplySchema>;
export type WireCurrentPlanReply = z.output<typeof currentPlanReplySchema>;

const systemClock: Clock = { now: () => Date.now() };
const PUBLIC_HEADERS: Readonly<Record<string, string>> = { accept: 'application/json' };

/** Categories of venue errors that answer one order (not the whole account or API key). */
function isOrderLevelRejection(err: unknown): err is ExchangeError {
  return (
    err instanceof ExchangeError &&
    (err.category === 'business' || err.category === 'parameter' || err.category === 'not_found')
  );
}

/** Wire entry fields in a fixed order, and nothing else (the body text is what gets signed). */
function entryFields(e: WirePlaceEntry): WirePlaceEntry {
  return {
    client_oid: e.client_oid,
    size: e.size,
    type: e.type,
    order_type: e.order_type,
    match_price: e.match_price,
    ...(e.price !== undefined ? { price: e.price } : {}),
    ...(e.presetTakeProfitPrice !== undefined ? { presetTakeProfitPrice: e.presetTakeProfitPrice } : {}),
    ...(e.presetStopLossPrice !== undefined ? { presetStopLossPrice: e.presetStopLossPrice } : {}),
  };
}

export class WeexClient implements ExchangePort {
  readonly #transport: HttpTransport;
  readonly #credentials: Credentials | undefined;
  readonly #locale: string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #beforeRequest: ((e: Endpoint) => Promise<void>) | undefined;
  readonly #retry: RetryOptions;
  readonly #random: () => number;
  readonly #sleep: Sleep;
  readonly #signal: AbortSignal | undefined;
  readonly #serverClock: ServerClock;

  constructor(opts: WeexClientOptions = {}) {
    this.#credentials = opts.credentials;
    this.#locale = opts.locale ?? 'en-US';
    this.#clock = opts.clock ?? systemClock;
    this.#logger = (opts.logger ?? pino({ level: 'silent' })).child({ component: 'weex-client' });
    this.#beforeRequest = opts.beforeRequest;
    this.#retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.#random = opts.random ?? Math.random;
    this.#sleep = opts.sleep ?? realSleep;
    this.#signal = opts.signal;
    const creds = opts.credentials;
    this.#transport = new HttpTransport({
      baseUrl: opts.baseUrl ?? DEFAULT_BASE_URL,
      ...(opts.timeouts !== undefined ? { timeouts: opts.timeouts } : {}),
      ...(opts.maxResponseBytes !== undefined ? { maxResponseBytes: opts.maxResponseBytes } : {}),
      ...(opts.connections !== undefined ? { connections: opts.connections } : {}),
      ...(opts.defaultRetryAfterMs !== undefined ? { defaultRetryAfterMs: opts.defaultRetryAfterMs } : {}),
      ...(opts.onResponse !== undefined ? { onResponse: opts.onResponse } : {}),
      logger: this.#logger,
      ...(creds !== undefined ? { redact: (text: string) => redactCredentials(text, creds) } : {}),
    });
    this.#serverClock = new ServerClock({
      clock: this.#clock,
      fetchServerTime: async () => (await this.rawTime()).timestamp,
      ...(opts.serverTimeMaxAgeMs !== undefined ? { maxAgeMs: opts.serverTimeMaxAgeMs } : {}),
      initialSync: opts.serverTimeSync !== 'on-40008',
    });
  }

  /** Base URL origin requests go to. */
  get origin(): string {
    return this.#transport.origin;
  }

  /** Current server-minus-local offset used for ACCESS-TIMESTAMP. */
  get serverOffsetMs(): number {
    return this.#serverClock.offsetMs;
  }

  /** Closes the keep-alive connections. */
  async close(): Promise<void> {
    await this.#transport.close();
  }

  // ------------------------------------------------------------------------------------------
  // Raw wire methods (validated wire objects; ids are strings)

  async rawTime(): Promise<WireTime> {
    return this.#parse(timeSchema, await this.#call(ENDPOINTS.time, '', undefined), 'time');
  }

  async rawContracts(symbol?: SymbolId): Promise<WireContracts> {
    if (symbol !== undefined) checkSymbol(symbol);
    const raw = await this.#call(ENDPOINTS.contracts, buildQuery([['symbol', symbol]]), undefined);
    return this.#parse(contractsSchema, raw, 'contracts');
  }

  async rawTickers(): Promise<WireTickers> {
    return this.#parse(tickersSchema, await this.#call(ENDPOINTS.tickers, '', undefined), 'tickers');
  }

  async rawFills(q: FillsQuery = {}): Promise<WireFillsReply> {
    checkFillsQuery(q);
    const query = buildQuery([
      ['symbol', q.symbol],
      ['orderId', q.orderId],
      ['startTime', q.startTime],
      ['endTime', q.endTime],
      ['limit', q.limit],
    ]);
    return this.#parse(fillsReplySchema, await this.#call(ENDPOINTS.fills, query, undefined), 'fills');
  }

  async rawHistory(q: HistoryQuery = {}): Promise<WireHistory> {
    checkHistoryQuery(q, this.#clock.now());
    const query = buildQuery([
      ['symbol', q.symbol],
      ['pageSize', q.pageSize],
      ['createDate', q.createDate],
    ]);
    return this.#parse(historySchema, await this.#call(ENDPOINTS.history, query, undefined), 'history');
  }

  async rawPlanHistory(q: PlanHistoryQuery): Promise<WirePlanHistoryReply> {
    checkPlanHistoryQuery(q);
    const query = buildQuery([
      ['symbol', q.symbol],
      ['startTime', q.startTime],
      ['endTime', q.endTime],
      ['delegateType', q.delegateType],
      ['pageSize', q.pageSize],
    ]);
    const raw = await this.#call(ENDPOINTS.historyPlan, query, undefined);
    return this.#parse(planHistoryReplySchema, raw, 'historyPlan');
  }

  async rawPlaceOrder(body: WirePlaceOrderBody): Promise<WirePlaceOrderReply> {
    checkSymbol(body.symbol);
    checkPlaceEntry(body, 'order');
    const wire = {
      symbol: body.symbol,
      ...entryFields(body),
      ...(body.marginMode !== undefined ? { marginMode: body.marginMode } : {}),
    };
    const raw = await this.#call(ENDPOINTS.placeOrder, '', wire);
    return this.#parse(placeOrderReplySchema, raw, 'placeOrder');
  }

  async rawBatchOrders(body: WireBatchOrdersBody): Promise<WireBatchOrdersReply> {
    checkBatch(body.symbol, body.orderDataList);
    const wire = {
      symbol: body.symbol,
      ...(body.marginMode !== undefined ? { marginMode: body.marginMode } : {}),
      orderDataList: body.orderDataList.map(entryFields),
    };
    const raw = await this.#call(ENDPOINTS.batchOrders, '', wire);
    return this.#parse(batchOrdersReplySchema, raw, 'batchOrders');
  }

  async rawCancelOrder(req: CancelRequest): Promise<WireCancelOrderReply> {
    checkCancel(req);
    const wire = cancelToWire(req);
    const raw = await this.#call(ENDPOINTS.cancelOrder, '', wire);
    return this.#parse(cancelOrderReplySchema, raw, 'cancelOrder');
  }

  /**
   * POST plan_order. Fields go out in a fixed order and only the documented ones (the simulator's
   * `triggerPriceType` is never sent). Never retried: a lost reply is OutcomeUnknownError.
   */
  async rawPlanOrder(body: WirePlanOrderBody): Promise<WirePlanOrderReply> {
    checkPlanOrder(body);
    const wire = {
      symbol: body.symbol,
      client_oid: body.client_oid,
      size: body.size,
      type: body.type,
      match_type: body.match_type,
      execute_price: body.execute_price,
      trigger_price: body.trigger_price,
      ...(body.marginMode !== undefined ? { marginMode: body.marginMode } : {}),
    };
    const raw = await this.#call(ENDPOINTS.planOrder, '', wire);
    return this.#parse(planOrderReplySchema, raw, 'planOrder');
  }

  /** POST cancel_plan with exactly one of orderId and clientOid (the cancel_order body). */
  async rawCancelPlan(req: CancelPlanRequest): Promise<WireCancelPlanReply> {
    checkCancel(req);
    const wire = cancelToWire(req);
    const raw = await this.#call(ENDPOINTS.cancelPlan, '', wire);
    return this.#parse(cancelPlanReplySchema, raw, 'cancelPlan');
  }

  /** GET currentPlan: the untriggered plans, `page` from 0, `limit` ≤ 100. */
  async rawCurrentPlan(q: CurrentPlanQuery = {}): Promise<WireCurrentPlanReply> {
    checkCurrentPlanQuery(q);
    const query = buildQuery([
      ['symbol', q.symbol],
      ['page', q.page],
      ['limit', q.limit],
    ]);
    const raw = await this.#call(ENDPOINTS.currentPlan, query, undefined);
    return this.#parse(currentPlanReplySchema, raw, 'currentPlan');
  }

  // ------------------------------------------------------------------------------------------
  // ExchangePort (core types)

  /** Fetches the server time and re-measures the clock offset with it. */
  async serverTime(): Promise<number> {
    return this.#serverClock.sync();
  }

  async contracts(): Promise<readonly ContractSpec[]> {
    const rows = await this.rawContracts();
    return this.#map('contracts', () => rows.map(contractFromWire));
  }

  async tickers(): Promise<readonly Ticker[]> {
    const rows = await this.rawTickers();
    return this.#map('tickers', () => rows.map((r) => tickerFromWire(wireTickerFromParsed(r))));
  }

  async placeOrder(symbol: SymbolId, entry: PlaceEntry): Promise<PlaceOutcome> {
    try {
      const reply = await this.rawPlaceOrder({ symbol, ...placeEntryToWire(entry) });
      return { clientOid: entry.clientOid, outcome: 'accepted', orderId: toOrderId(reply.order_id) };
    } catch (err) {
      if (!isOrderLevelRejection(err)) throw err;
      return refusedPlacement(entry.clientOid, err.venueCode, err.venueMessage);
    }
  }

  async placeBatch(symbol: SymbolId, entries: readonly PlaceEntry[]): Promise<readonly PlaceOutcome[]> {
    try {
      const reply = await this.rawBatchOrders({ symbol, orderDataList: entries.map(placeEntryToWire) });
      return batchOutcomesFromWire(reply, entries);
    } catch (err) {
      if (!isOrderLevelRejection(err)) throw err;
      return entries.map((e) => ({
        clientOid: e.clientOid,
        outcome: 'rejected' as const,
        code: err.venueCode,
        message: err.venueMessage,
      }));
    }
  }

  async cancelOrder(req: CancelRequest): Promise<CancelOutcome> {
    try {
      return cancelOutcomeFromWire(await this.rawCancelOrder(req));
    } catch (err) {
      if (!isOrderLevelRejection(err)) throw err;
      return refusedCancel(req, err.venueCode, err.venueMessage);
    }
  }

  async fills(q: FillsQuery): Promise<FillPage> {
    const page = await this.rawFills(q);
    return this.#map('fills', () => ({
      fills: page.list.map(fillFromWire),
      nextFlag: page.nextFlag,
      ...(page.totals !== undefined ? { totals: page.totals } : {}),
    }));
  }

  async history(q: HistoryQuery): Promise<readonly OrderReport[]> {
    const rows = await this.rawHistory(q);
    return this.#map('history', () => rows.map(orderReportFromWire));
  }

  async planHistory(q: PlanHistoryQuery): Promise<PlanPage> {
    const page = await this.rawPlanHistory(q);
    return this.#map('historyPlan', () => ({
      plans: page.list.map(planReportFromWire),
      nextPage: page.nextPage ?? false,
    }));
  }

  async placePlan(symbol: SymbolId, entry: PlanEntry): Promise<PlaceOutcome> {
    try {
      const reply = await this.rawPlanOrder(planEntryToWire(symbol, entry));
      return { clientOid: entry.clientOid, outcome: 'accepted', orderId: toOrderId(reply.order_id) };
    } catch (err) {
      if (!isOrderLevelRejection(err)) throw err;
      return refusedPlacement(entry.clientOid, err.venueCode, err.venueMessage);
    }
  }

  async cancelPlan(req: CancelPlanRequest): Promise<CancelOutcome> {
    try {
      return cancelOutcomeFromWire(await this.rawCancelPlan(req));
    } catch (err) {
      if (!isOrderLevelRejection(err)) throw err;
      return refusedCancel(req, err.venueCode, err.venueMessage);
    }
  }

  async currentPlans(q: CurrentPlanQuery): Promise<PlanPage> {
    const reply = await this.rawCurrentPlan(q);
    return this.#map('currentPlan', () => currentPlanPageFromWire(reply, q.limit));
  }

  // ------------------------------------------------------------------------------------------
  // Request machinery

  /** Builds the body text once and runs the attempts under the endpoint's retry policy. */
  async #call(endpoint: Endpoint, query: string, body: unknown): Promise<unknown> {
    const bodyText = body === undefined ? '' : JSON.stringify(body);
    const credentials = endpoint.signed ? this.#requireCredentials(endpoint) : undefined;
    return withRetry(
      endpoint,
      async () => {
        if (credentials !== undefined) return this.#attemptSigned(endpoint, credentials, query, bodyText);
        await this.#beforeRequest?.(endpoint);
        return this.#send(endpoint, query, bodyText, PUBLIC_HEADERS);
      },
      this.#retry,
      {
        random: this.#random,
        sleep: this.#sleep,
        logger: this.#logger,
        ...(this.#signal !== undefined ? { signal: this.#signal } : {}),
      },
    );
  }

  async #send(
    endpoint: Endpoint,
    query: string,
    body: string,
    headers: Readonly<Record<string, string>>,
  ): Promise<unknown> {
    return this.#transport.send({
      endpoint,
      query,
      body,
      headers,
      ...(this.#signal !== undefined ? { signal: this.#signal } : {}),
    });
  }

  async #attemptSigned(
    endpoint: Endpoint,
    creds: Credentials,
    query: string,
    body: string,
  ): Promise<unknown> {
    await this.#syncServerClock(endpoint);
    try {
      return await this.#sendSigned(endpoint, creds, query, body);
    } catch (err) {
      if (!(err instanceof ExchangeError) || err.venueCode !== TIMESTAMP_EXPIRED_CODE) throw err;
      this.#logger.warn(
        { endpoint: endpoint.id },
        'timestamp expired (40008): re-syncing server time and resending once',
      );
      this.#serverClock.invalidate();
      await this.#syncServerClock(endpoint);
      return this.#sendSigned(endpoint, creds, query, body);
    }
  }

  async #sendSigned(endpoint: Endpoint, creds: Credentials, query: string, body: string): Promise<unknown> {
    await this.#beforeRequest?.(endpoint);
    const timestamp = this.#serverClock.timestamp();
    const headers = {
      ...signedHeaders(
        creds,
        { timestamp, method: endpoint.method, path: endpoint.path, query, body },
        this.#locale,
      ),
    };
    return this.#send(endpoint, query, body, headers);
  }

  /** The time request is separate from `endpoint`; if it fails, `endpoint` was not sent. */
  async #syncServerClock(endpoint: Endpoint): Promise<void> {
    try {
      await this.#serverClock.ensureSynced();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new TransportError(`${endpoint.id}: not sent, server time sync failed: ${why}`, endpoint.id);
    }
  }

  #requireCredentials(endpoint: Endpoint): Credentials {
    if (this.#credentials === undefined) {
      throw new ConfigError(
        `${endpoint.id} is a signed endpoint: set CAPIBOT_API_KEY, CAPIBOT_API_SECRET and CAPIBOT_API_PASSPHRASE`,
        'credentials',
      );
    }
    return this.#credentials;
  }

  #parse<S extends z.ZodType>(schema: S, raw: unknown, endpoint: EndpointId): z.output<S> {
    const r = schema.safeParse(raw);
    if (r.success) return r.data;
    const { where, text } = describeZodError(r.error);
    throw new BadResponseError(`unexpected reply shape from ${endpoint}: ${text}`, endpoint, where);
  }

  #map<T>(endpoint: EndpointId, f: () => T): T {
    try {
      return f();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new BadResponseError(`cannot map reply from ${endpoint}: ${why}`, endpoint, 'mapping');
    }
  }
}

function redactCredentials(text: string, creds: Credentials): string {
  let out = text;
  for (const v of [creds.secret, creds.passphrase, creds.apiKey])
    if (v !== '') out = out.split(v).join('[redacted]');
  return out;
}
