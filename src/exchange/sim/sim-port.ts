// The in-process exchange for backtests: the same venue as `capibot sim` (matching core, weights,
// faults, counters) behind the ExchangePort interface, with no HTTP. The engine drives time with
// its (virtual) clock and feeds market data with applyPoll; a strategy that would exceed the live
// weight limits meets RateLimitedError here too. Replies go through the same wire shapes, schemas
// and mappers as the HTTP client, so both ports answer alike; order-level refusals (business,
// parameter, not found) come back as `rejected` outcomes exactly as WeexClient returns them.
import type { Clock } from '../../core/clock.ts';
import { combineFootprints, type Footprint } from '../../core/footprint.ts';
import {
  ENDPOINTS,
  type BulkCharges,
  type EndpointCounts,
  type EndpointId,
  type UnsentReads,
} from '../../core/endpoints.ts';
import {
  ExchangeError,
  InvariantViolation,
  OutcomeUnknownError,
  RateLimitedError,
} from '../../core/errors.ts';
import { orderId as toOrderId, type SymbolId } from '../../core/ids.ts';
import { tickerRows } from '../../core/ticker-rows.ts';
import type { ContractSpec, RecordedPoll, Ticker, WireTicker } from '../../core/market.ts';
import type {
  CancelOutcome,
  FillPage,
  FillReport,
  OrderReport,
  PlaceOutcome,
  PlanPage,
} from '../../core/reports.ts';
import type { z } from 'zod';
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
  planEntryToWire,
  planReportFromWire,
  tickerFromWire,
  refusedCancel,
} from '../weex/mappers.ts';
import {
  batchOrdersReplySchema,
  cancelOrderReplySchema,
  contractsSchema,
  fillSchema,
  fillsReplySchema,
  historyRowSchema,
  historySchema,
  cancelPlanReplySchema,
  currentPlanReplySchema,
  placeOrderReplySchema,
  planHistoryReplySchema,
  planOrderReplySchema,
} from '../weex/schemas.ts';
import { classifyVenueCode } from '../weex/venue-errors.ts';
import { FaultInjector, NO_FAULTS, type FaultProfile } from './faults.ts';
import { MatchingCore, type MatchingConfig } from './matching.ts';
import { DEFAULT_SIM_RETENTION_MS } from './retention.ts';
import type { SimStatsSnapshot } from './stats.ts';
import { httpStatusOf, type VenueReject } from './venue-errors.ts';
import type { PlanRowStyle } from './plan-wire.ts';
import { SimVenue, type VenueReply } from './venue.ts';
import { WeightLimiter, type WeightLimits } from './weights.ts';

/** `retentionMs` defaults to DEFAULT_SIM_RETENTION_MS here (Infinity keeps everything). */
export interface SimPortOptions extends MatchingConfig {
  /** The engine's clock (virtual in backtests): order times, weight windows, late fills. */
  readonly clock: Clock;
  readonly limits?: Partial<WeightLimits>;
  readonly faults?: FaultProfile;
  /** Seed of the fault dice; default `seed` (the matching seed), else 1. */
  readonly faultSeed?: number;
  /** Plan rows in the documented codes (default) or the live upper-case words. */
  readonly planRowStyle?: PlanRowStyle;
}

/** A tickers reply whose body the caller reads from the core instead (`tickers(only)`). */
const UNREAD_TICKERS: VenueReply = { ok: true, body: undefined };

/** The caller's "IP" in the weight windows. */
const LOCAL_IP = 'in-process';

type Query = readonly (readonly [string, string | number | undefined])[];

function tickersFromBody(body: unknown): readonly Ticker[] {
  return (body as readonly WireTicker[]).map(tickerFromWire);
}

function queryText(pairs: Query): string {
  const usp = new URLSearchParams();
  for (const [k, v] of pairs) if (v !== undefined) usp.append(k, String(v));
  return usp.toString();
}

export class SimPort implements ExchangePort {
  readonly core: MatchingCore;
  readonly venue: SimVenue;
  readonly #clock: Clock;
  readonly #faultFree: boolean;
  /** Decoded rows by the venue's row object (SimVenue gives one object per order revision, per fill). */
  readonly #reports = new WeakMap<object, OrderReport>();
  readonly #fills = new WeakMap<object, FillReport>();

  /** True when no fault is configured: every answer is repeatable. */
  get faultFree(): boolean {
    return this.#faultFree;
  }

  constructor(opts: SimPortOptions) {
    this.#clock = opts.clock;
    this.#faultFree = (opts.faults ?? NO_FAULTS).faults.length === 0;
    // In process, the simulator forgets what no query can reach (./retention.ts): a long backtest's
    // memory stays flat in the number of orders.
    this.core = new MatchingCore({ ...opts, retentionMs: opts.retentionMs ?? DEFAULT_SIM_RETENTION_MS });
    const seed = opts.faultSeed ?? opts.seed ?? 1;
    this.venue = new SimVenue({
      core: this.core,
      limiter: new WeightLimiter(opts.limits ?? {}),
      faults: new FaultInjector(opts.faults ?? NO_FAULTS, seed),
      idsAsNumbers: false,
      ...(opts.planRowStyle !== undefined ? { planRowStyle: opts.planRowStyle } : {}),
    });
  }

  /** Feeds one recorded poll: the market moves to it and resting orders fill. */
  applyPoll(poll: RecordedPoll): void {
    this.core.applyRows(poll.t, tickerRows(poll));
  }

  applyTickers(now: number, tickers: readonly WireTicker[]): void {
    this.core.applyTickers(now, tickers);
  }

  /** Moves the venue's time without new market data (pending orders and cancels fall due). */
  advanceTo(now: number): void {
    this.core.advanceTo(now);
  }

  /** The matching core's collections, the weight windows', the late fills' and the counts' (core/footprint.ts). */
  footprint(): Footprint {
    return combineFootprints({
      core: this.core.footprint(),
      limiter: this.venue.limiter.footprint(),
      faults: this.venue.faults.footprint(),
      stats: this.venue.stats.footprint(),
    });
  }

  stats(): SimStatsSnapshot {
    return this.venue.statsSnapshot();
  }

  /**
   * The venue's state version at the clock's time (RoundShortcut in src/reconcile/pollers.ts): while it
   * stays the same, every read answers as it did. `orders`: the part fills and history reads show;
   * `plans`: the part plan reads show; default both.
   */
  stateVersion(scope?: 'orders' | 'plans'): number {
    this.core.advanceTo(this.#clock.now());
    if (scope === 'orders') return this.core.orderVersion;
    if (scope === 'plans') return this.core.planVersion;
    return this.core.version;
  }

  /** True while only a request can change the venue: no order waits to activate or to finish canceling. */
  quiet(): boolean {
    this.core.advanceTo(this.#clock.now());
    return !this.core.hasTimedWork;
  }

  /**
   * Counts and weighs reads that were not sent because their answer could not differ from the last
   * one, as if they had been sent now. False when the venue has faults (its answers are not
   * repeatable and its dice must roll for every request) or a weight window refuses one (the caller
   * then sends them for real and meets the 429; the ones before it stay charged).
   */
  chargeUnsent(endpoints: readonly EndpointId[], at?: number): boolean {
    if (!this.#faultFree) return false;
    const now = at ?? this.#clock.now();
    for (const endpoint of endpoints) {
      const def = ENDPOINTS[endpoint];
      if (!this.venue.admit(now, def, LOCAL_IP, def.signed).ok) return false;
      this.venue.stats.request(endpoint);
    }
    return true;
  }

  /** `chargeUnsent` for each round at its time, in order; returns how many rounds were charged. */
  chargeUnsentRounds(rounds: readonly UnsentReads[]): number {
    for (let i = 0; i < rounds.length; i++) {
      const r = rounds[i];
      if (r === undefined || !this.chargeUnsent(r.endpoints, r.at)) return i;
    }
    return rounds.length;
  }

  /**
   * Charges a pass of reads that no window can refuse (RoundShortcut.bulk): the tail one by one at
   * its times (the windows end as if each had been charged), the rest only counted and weighed.
   * Throws when a tail read is refused: the caller's proof that none could be was wrong.
   */
  chargeBulk(b: Pick<BulkCharges, 'counts' | 'tail'>): void {
    const rest: EndpointCounts = { ...b.counts };
    for (const r of b.tail) {
      if (!this.chargeUnsent(r.endpoints, r.at))
        throw new InvariantViolation(`simulator: a read of a bulk charge was refused at ${r.at}`);
      for (const e of r.endpoints) rest[e] = (rest[e] ?? 0) - 1;
    }
    for (const [id, n] of Object.entries(rest) as [EndpointId, number][]) {
      if (n <= 0) continue;
      const def = ENDPOINTS[id];
      this.venue.stats.request(id, n);
      this.venue.stats.charged(def, def.signed, n);
    }
  }

  // -------------------------------------------------------------------------------------------
  // ExchangePort

  serverTime(): Promise<number> {
    return this.#run('time', '', undefined, (body) => (body as { timestamp: number }).timestamp);
  }

  contracts(): Promise<readonly ContractSpec[]> {
    return this.#run('contracts', '', undefined, (body) => contractsSchema.parse(body).map(contractFromWire));
  }

  /**
   * The tickers reply. With `only`, just the tickers of those symbols, in the reply's order (what
   * filtering the reply gives): the others are not even looked at (a backtest's engine sees the
   * symbols its strategies trade, as a live run's does: src/runner/ticker-feed.ts).
   */
  tickers(only?: ReadonlySet<string>): Promise<readonly Ticker[]> {
    if (only === undefined) return this.#run('tickers', '', undefined, tickersFromBody);
    // The venue's reply is the core's snapshot (SimVenue.tickers): read from the core for `only`,
    // without making the reply's body (every ticker object of a recording line).
    return this.#run(
      'tickers',
      '',
      undefined,
      () => this.core.tickerViewsOf(only),
      undefined,
      UNREAD_TICKERS,
    );
  }

  /**
   * The tickers reply at the clock's time without a request: for a read whose weight and count were
   * charged by `chargeUnsent` (the backtest's quiet polls, src/strategy/testing/session.ts). With
   * `only`, as `tickers(only)`.
   */
  tickersUnsent(only?: ReadonlySet<string>): readonly Ticker[] {
    const now = this.#clock.now();
    this.core.advanceTo(now);
    return only === undefined ? this.core.tickerViews() : this.core.tickerViewsOf(only);
  }

  placeOrder(symbol: SymbolId, entry: PlaceEntry): Promise<PlaceOutcome> {
    return this.#run<PlaceOutcome>(
      'placeOrder',
      '',
      { symbol, ...placeEntryToWire(entry) },
      (body) => ({
        clientOid: entry.clientOid,
        outcome: 'accepted',
        orderId: toOrderId(placeOrderReplySchema.parse(body).order_id),
      }),
      (r) => ({ clientOid: entry.clientOid, outcome: 'rejected', code: r.code, message: r.msg }),
    );
  }

  placeBatch(symbol: SymbolId, entries: readonly PlaceEntry[]): Promise<readonly PlaceOutcome[]> {
    return this.#run<readonly PlaceOutcome[]>(
      'batchOrders',
      '',
      { symbol, orderDataList: entries.map(placeEntryToWire) },
      (body) => batchOutcomesFromWire(batchOrdersReplySchema.parse(body), entries),
      (r) =>
        entries.map((e) => ({
          clientOid: e.clientOid,
          outcome: 'rejected' as const,
          code: r.code,
          message: r.msg,
        })),
    );
  }

  cancelOrder(req: CancelRequest): Promise<CancelOutcome> {
    const body = cancelBody(req);
    return this.#run<CancelOutcome>(
      'cancelOrder',
      '',
      body,
      (b) => cancelOutcomeFromWire(cancelOrderReplySchema.parse(b)),
      (r) => refusedCancel(req, r.code, r.msg),
    );
  }

  fills(q: FillsQuery): Promise<FillPage> {
    const query = queryText([
      ['symbol', q.symbol],
      ['orderId', q.orderId],
      ['startTime', q.startTime],
      ['endTime', q.endTime],
      ['limit', q.limit],
    ]);
    return this.#run('fills', query, undefined, (body) => this.#fillPage(body));
  }

  history(q: HistoryQuery): Promise<readonly OrderReport[]> {
    const query = queryText([
      ['symbol', q.symbol],
      ['pageSize', q.pageSize],
      ['createDate', q.createDate],
    ]);
    return this.#run('history', query, undefined, (body) => this.#historyReports(body));
  }

  /**
   * A fills reply decoded as the HTTP client decodes it, each row once (as #historyReports): the
   * envelope goes through the reply schema without its rows (the same branch of it, so the same
   * `nextFlag` and `totals`), the rows through the row schema. Anything else is parsed whole.
   */
  #fillPage(body: unknown): FillPage {
    const rows = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : undefined;
    const list = rows !== undefined && 'list' in rows ? rows.list : undefined;
    const fills = Array.isArray(list)
      ? this.#decodedRows(list, this.#fills, fillSchema, fillFromWire)
      : undefined;
    const page = fillsReplySchema.parse(fills !== undefined ? { ...rows, list: [] } : body);
    return {
      fills: fills ?? page.list.map(fillFromWire),
      nextFlag: page.nextFlag,
      ...(page.totals !== undefined ? { totals: page.totals } : {}),
    };
  }

  /**
   * A history reply decoded as the HTTP client decodes it (schema, then mapper), each row once: a row
   * object seen before is the same order revision, so its report is the one decoded then (reports are
   * immutable). A reply the row schema refuses is parsed whole, for the same error as before.
   */
  #historyReports(body: unknown): readonly OrderReport[] {
    const reports = Array.isArray(body)
      ? this.#decodedRows(body, this.#reports, historyRowSchema, orderReportFromWire)
      : undefined;
    return reports ?? historySchema.parse(body).map(orderReportFromWire);
  }

  /**
   * `rows` decoded by `schema` then `map`, each row object once (`memo`); undefined when the schema
   * refuses one (the caller then parses the reply whole, for the error it always gave).
   */
  #decodedRows<W, T>(
    rows: readonly unknown[],
    memo: WeakMap<object, T>,
    schema: z.ZodType<W>,
    map: (w: W) => T,
  ): T[] | undefined {
    const out: T[] = [];
    for (const row of rows) {
      const key = typeof row === 'object' && row !== null ? row : undefined;
      const known = key !== undefined ? memo.get(key) : undefined;
      if (known !== undefined) {
        out.push(known);
        continue;
      }
      const parsed = schema.safeParse(row);
      if (!parsed.success) return undefined;
      const value = map(parsed.data);
      if (key !== undefined) memo.set(key, value);
      out.push(value);
    }
    return out;
  }

  planHistory(q: PlanHistoryQuery): Promise<PlanPage> {
    const query = queryText([
      ['symbol', q.symbol],
      ['startTime', q.startTime],
      ['endTime', q.endTime],
      ['delegateType', q.delegateType],
      ['pageSize', q.pageSize],
    ]);
    return this.#run('historyPlan', query, undefined, (body) => {
      const page = planHistoryReplySchema.parse(body);
      return { plans: page.list.map(planReportFromWire), nextPage: page.nextPage ?? false };
    });
  }

  placePlan(symbol: SymbolId, entry: PlanEntry): Promise<PlaceOutcome> {
    return this.#run<PlaceOutcome>(
      'planOrder',
      '',
      planEntryToWire(symbol, entry),
      (body) => ({
        clientOid: entry.clientOid,
        outcome: 'accepted',
        orderId: toOrderId(planOrderReplySchema.parse(body).order_id),
      }),
      (r) => ({ clientOid: entry.clientOid, outcome: 'rejected', code: r.code, message: r.msg }),
    );
  }

  cancelPlan(req: CancelPlanRequest): Promise<CancelOutcome> {
    const body = cancelBody(req);
    return this.#run<CancelOutcome>(
      'cancelPlan',
      '',
      body,
      (b) => cancelOutcomeFromWire(cancelPlanReplySchema.parse(b)),
      (r) => refusedCancel(req, r.code, r.msg),
    );
  }

  currentPlans(q: CurrentPlanQuery): Promise<PlanPage> {
    const query = queryText([
      ['symbol', q.symbol],
      ['page', q.page],
      ['limit', q.limit],
    ]);
    return this.#run('currentPlan', query, undefined, (body) =>
      currentPlanPageFromWire(currentPlanReplySchema.parse(body), q.limit),
    );
  }

  // -------------------------------------------------------------------------------------------

  /**
   * One request, in the order the HTTP server handles it (minus auth and latency): injected reset,
   * injected 429, injected 5xx, weight windows, the operation, 5xx after processing, lost response.
   * `onReject` turns an order-level refusal into an outcome; without it every refusal throws.
   */
  #run<T>(
    endpoint: EndpointId,
    query: string,
    body: unknown,
    onOk: (body: unknown) => T,
    onReject?: (r: VenueReject) => T,
    known?: VenueReply,
  ): Promise<T> {
    // A throw inside the executor becomes a rejection, like a failed request.
    return new Promise<T>((resolve) => resolve(this.#exec(endpoint, query, body, onOk, onReject, known)));
  }

  #exec<T>(
    endpoint: EndpointId,
    query: string,
    body: unknown,
    onOk: (body: unknown) => T,
    onReject: ((r: VenueReject) => T) | undefined,
    /** The operation's reply when it is known without running it (it changes nothing). */
    known?: VenueReply,
  ): T {
    const venue = this.venue;
    const rf = venue.begin(endpoint);
    const now = this.#clock.now();
    this.core.advanceTo(now);
    if (rf.resetBeforeProcessing) {
      venue.faults.count('resetBeforeProcessing');
      throw new OutcomeUnknownError(`${endpoint}: connection reset before any reply (injected)`, endpoint);
    }
    if (rf.rateLimited) {
      venue.faults.count('rateLimited');
      venue.stats.error('429');
      throw new RateLimitedError(`rate limited on ${endpoint} (injected)`, endpoint, 1000);
    }
    if (rf.serverError && !rf.serverError.afterProcessing) {
      venue.faults.count('serverError');
      throw new OutcomeUnknownError(
        `HTTP ${rf.serverError.status} from ${endpoint} (injected)`,
        endpoint,
        rf.serverError.status,
      );
    }
    const def = ENDPOINTS[endpoint];
    const admitted = venue.admit(now, def, LOCAL_IP, def.signed);
    if (!admitted.ok) {
      venue.stats.error('429');
      throw new RateLimitedError(
        `rate limited on ${endpoint}: ${admitted.reject.msg}`,
        endpoint,
        admitted.retryAfterMs,
      );
    }
    const reply = known ?? venue.dispatch(endpoint, query, body, rf, now);
    if (rf.serverError?.afterProcessing) {
      venue.faults.count('serverError');
      throw new OutcomeUnknownError(
        `HTTP ${rf.serverError.status} from ${endpoint} (injected, after processing)`,
        endpoint,
        rf.serverError.status,
      );
    }
    if (rf.responseLost) {
      venue.faults.count('responseLost');
      throw new OutcomeUnknownError(
        `${endpoint}: connection reset after the request was processed (injected)`,
        endpoint,
      );
    }
    if (reply.ok) return onOk(reply.body);
    venue.stats.error(reply.reject.code);
    const { category, retry } = classifyVenueCode(reply.reject.code);
    const orderLevel = category === 'business' || category === 'parameter' || category === 'not_found';
    if (onReject && orderLevel) return onReject(reply.reject);
    throw new ExchangeError(
      reply.reject.code,
      reply.reject.msg,
      httpStatusOf(reply.reject.code),
      category,
      endpoint,
      retry,
    );
  }
}

/** The body of cancel_order and cancel_plan: the symbol and whichever ids are given. */
function cancelBody(req: CancelRequest | CancelPlanRequest): Record<string, string> {
  return {
    symbol: req.symbol,
    ...(req.orderId !== undefined ? { orderId: req.orderId } : {}),
    ...(req.clientOid !== undefined ? { clientOid: req.clientOid } : {}),
  };
}
