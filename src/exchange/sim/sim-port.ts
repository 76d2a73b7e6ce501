// The in-process exchange for backtests: the same venue as `capibot sim` (matching core, weights,
// faults, counters) behind the ExchangePort interface, with no HTTP. The engine drives time with
// its (virtual) clock and feeds market data with applyPoll; a strategy that would exceed the live
// weight limits meets RateLimitedError here too. Both ports answer alike: requests meet the venue's own
// checks (the HTTP server's), and replies go through the HTTP client's wire shapes, schemas and
// mappers, except on the calls a backtest makes most. Placements hand the venue its requests, and
// history and fills reads take its records as core reports, without the text in between
// (./requests.ts, ./reports.ts; property tests hold both paths to the same requests, refusals and
// reports). Order-level refusals (business, parameter, not found) come back as `rejected` outcomes
// exactly as WeexClient returns them.
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
import { mapToObjects } from '../../core/object-lists.ts';
import { tickerRows } from '../../core/ticker-rows.ts';
import type { ContractSpec, RecordedPoll, Ticker, WireTicker } from '../../core/market.ts';
import type {
  CancelOutcome,
  FillPage,
  FillReport,
  OrderReport,
  PlaceOutcome,
  PlanPage,
  PlanReport,
} from '../../core/reports.ts';
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
  cancelToWire,
  contractFromWire,
  currentPlanPageIsFull,
  placeEntryToWire,
  planEntryToWire,
  tickerFromWire,
  refusedCancel,
  refusedPlacement,
} from '../weex/mappers.ts';
import {
  batchOrdersReplySchema,
  cancelOrderReplySchema,
  contractsSchema,
  placeOrderReplySchema,
  planOrderReplySchema,
} from '../weex/schemas.ts';
import { classifyVenueCode } from '../weex/venue-errors.ts';
import { FaultInjector, NO_FAULTS, type FaultProfile, type RequestFaults } from './faults.ts';
import { madeOnce } from './made-once.ts';
import { MatchingCore, type CancelSelector, type MatchingConfig } from './matching.ts';
import type { SimFill, SimOrder, SimPlan } from './model.ts';
import {
  batchInputOf,
  cancelSelectorOf,
  placeInputOf,
  queryParamsOf,
  type Parsed,
  type QueryParams,
} from './params.ts';
import { planInputOf } from './plan-params.ts';
import { cancelNeedsWire, planRequestOfEntry, requestOfEntry, requestsOfEntries } from './requests.ts';
import { fillReportOf, orderReportOf, planReportOf } from './reports.ts';
import { DEFAULT_SIM_RETENTION_MS } from './retention.ts';
import type { SimStatsSnapshot } from './stats.ts';
import { httpStatusOf, type VenueReject } from './venue-errors.ts';
import type { PlanRowStyle } from './plan-wire.ts';
import { SimVenue, type SimFillsPage, type SimPlanPage, type VenueReply } from './venue.ts';
import type { WireBatchReplyOut, WireCancelReplyOut, WirePlaceReplyOut } from './wire.ts';
import { WeightLimiter, type WeightLimits } from './weights.ts';

/** `retentionMs` defaults to DEFAULT_SIM_RETENTION_MS here (Infinity keeps everything). */
/** `keepRevisions` is the port's own decision (its fault profile), not an option. */
export interface SimPortOptions extends Omit<MatchingConfig, 'keepRevisions'> {
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
const unreadTickers = (): VenueReply => UNREAD_TICKERS;

/** The caller's "IP" in the weight windows. */
const LOCAL_IP = 'in-process';

/** No query parameters. */
const NO_PARAMS: QueryParams = new Map();

function tickersFromBody(body: unknown): readonly Ticker[] {
  return (body as readonly WireTicker[]).map(tickerFromWire);
}

/**
 * An operation's answer handed to the port as it is (records, not wire rows): `body` is whatever the
 * operation returned, read by the caller's `onOk`.
 */
function okBody<T>(r: Parsed<T>): VenueReply {
  return r.ok ? { ok: true, body: r.value } : { ok: false, reject: r.reject };
}

export class SimPort implements ExchangePort {
  readonly core: MatchingCore;
  readonly venue: SimVenue;
  readonly #clock: Clock;
  readonly #faultFree: boolean;
  /** Reports by order revision and by fill (the venue's records are immutable). */
  readonly #reports = new WeakMap<SimOrder, OrderReport>();
  readonly #fills = new WeakMap<SimFill, FillReport>();
  readonly #known = (s: string): boolean => this.core.isKnownSymbol(s);
  readonly #toReport = (o: SimOrder): OrderReport => orderReportOf(o, this.core.contracts);
  readonly #plans = new WeakMap<SimPlan, PlanReport>();
  readonly #toPlanReport = (p: SimPlan): PlanReport =>
    planReportOf(p, this.core.contracts, this.venue.planRowStyle);

  /** True when no fault is configured: every answer is repeatable. */
  get faultFree(): boolean {
    return this.#faultFree;
  }

  constructor(opts: SimPortOptions) {
    this.#clock = opts.clock;
    const faults = opts.faults ?? NO_FAULTS;
    this.#faultFree = faults.faults.length === 0;
    // In process, the simulator forgets what no query can reach (./retention.ts): a long backtest's
    // memory stays flat in the number of orders. Past revisions of its orders are kept only for the
    // stale-history fault (its profile is fixed for the port's life).
    this.core = new MatchingCore({
      ...opts,
      retentionMs: opts.retentionMs ?? DEFAULT_SIM_RETENTION_MS,
      keepRevisions: faults.faults.some((f) => f.kind === 'staleHistory'),
    });
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
   * The venue's state version at the clock's time (RoundShortcut, src/reconcile/round-shortcut.ts): while it
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
    return this.#run('time', NO_PARAMS, undefined, (body) => (body as { timestamp: number }).timestamp);
  }

  contracts(): Promise<readonly ContractSpec[]> {
    return this.#run('contracts', NO_PARAMS, undefined, (body) =>
      contractsSchema.parse(body).map(contractFromWire),
    );
  }

  /**
   * The tickers reply. With `only`, just the tickers of those symbols, in the reply's order (what
   * filtering the reply gives): the others are not even looked at (a backtest's engine sees the
   * symbols its strategies trade, as a live run's does: src/runner/ticker-feed.ts).
   */
  tickers(only?: ReadonlySet<string>): Promise<readonly Ticker[]> {
    if (only === undefined) return this.#run('tickers', NO_PARAMS, undefined, tickersFromBody);
    // The venue's reply is the core's snapshot (SimVenue.tickers): read from the core for `only`,
    // without making the reply's body (every ticker object of a recording line).
    return this.#run(
      'tickers',
      NO_PARAMS,
      undefined,
      () => this.core.tickerViewsOf(only),
      undefined,
      unreadTickers,
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
    const rejected = (r: VenueReject): PlaceOutcome => refusedPlacement(entry.clientOid, r.code, r.msg);
    const request = requestOfEntry(entry);
    if (request === undefined) {
      return this.#run<PlaceOutcome>(
        'placeOrder',
        NO_PARAMS,
        { symbol, ...placeEntryToWire(entry) },
        (body) => ({
          clientOid: entry.clientOid,
          outcome: 'accepted',
          orderId: toOrderId(placeOrderReplySchema.parse(body).order_id),
        }),
        rejected,
      );
    }
    // The body the venue would parse, already made; its reply is the venue's own object.
    return this.#run<PlaceOutcome>(
      'placeOrder',
      NO_PARAMS,
      undefined,
      (body) => ({
        clientOid: entry.clientOid,
        outcome: 'accepted',
        orderId: toOrderId((body as WirePlaceReplyOut).order_id),
      }),
      rejected,
      () => {
        const input = placeInputOf(symbol, request, this.#known);
        return input.ok ? this.venue.placeOne(input.value) : { ok: false, reject: input.reject };
      },
    );
  }

  placeBatch(symbol: SymbolId, entries: readonly PlaceEntry[]): Promise<readonly PlaceOutcome[]> {
    const rejected = (r: VenueReject): readonly PlaceOutcome[] =>
      entries.map((e) => ({
        clientOid: e.clientOid,
        outcome: 'rejected' as const,
        code: r.code,
        message: r.msg,
      }));
    const requests = requestsOfEntries(entries);
    if (requests === undefined) {
      return this.#run<readonly PlaceOutcome[]>(
        'batchOrders',
        NO_PARAMS,
        { symbol, orderDataList: entries.map(placeEntryToWire) },
        (body) => batchOutcomesFromWire(batchOrdersReplySchema.parse(body), entries),
        rejected,
      );
    }
    // The body the venue would parse, already made; its reply is the venue's own object.
    return this.#run<readonly PlaceOutcome[]>(
      'batchOrders',
      NO_PARAMS,
      undefined,
      (body) => batchOutcomesFromWire(body as WireBatchReplyOut, entries),
      rejected,
      () => {
        const input = batchInputOf(symbol, requests, this.#known);
        return input.ok
          ? { ok: true, body: this.venue.placeBatch(input.value) }
          : { ok: false, reject: input.reject };
      },
    );
  }

  cancelOrder(req: CancelRequest): Promise<CancelOutcome> {
    return this.#cancel('cancelOrder', req, (sel) => this.venue.cancelSelected(sel));
  }

  /**
   * cancel_order or cancel_plan (the same body and reply): the selector the venue would parse from
   * the body, its reply the venue's own object; a request with an empty value goes as its body.
   */
  #cancel(
    endpoint: 'cancelOrder' | 'cancelPlan',
    req: CancelRequest | CancelPlanRequest,
    cancel: (sel: CancelSelector) => VenueReply,
  ): Promise<CancelOutcome> {
    const refused = (r: VenueReject): CancelOutcome => refusedCancel(req, r.code, r.msg);
    if (cancelNeedsWire(req)) {
      return this.#run<CancelOutcome>(
        endpoint,
        NO_PARAMS,
        cancelToWire(req),
        (b) => cancelOutcomeFromWire(cancelOrderReplySchema.parse(b)),
        refused,
      );
    }
    return this.#run<CancelOutcome>(
      endpoint,
      NO_PARAMS,
      undefined,
      (b) => cancelOutcomeFromWire(b as WireCancelReplyOut),
      refused,
      () => {
        const sel = cancelSelectorOf(req, this.#known);
        return sel.ok ? cancel(sel.value) : { ok: false, reject: sel.reject };
      },
    );
  }

  fills(q: FillsQuery): Promise<FillPage> {
    const params = queryParamsOf([
      ['symbol', q.symbol],
      ['orderId', q.orderId],
      ['startTime', q.startTime],
      ['endTime', q.endTime],
      ['limit', q.limit],
    ]);
    return this.#run(
      'fills',
      params,
      undefined,
      (body) => {
        const page = body as SimFillsPage;
        return {
          fills: mapToObjects(page.rows, (f) => this.#fillReport(f)),
          nextFlag: page.nextFlag,
          totals: page.totals,
        };
      },
      undefined,
      (rf) => okBody(this.venue.fillsPage(params, rf)),
    );
  }

  history(q: HistoryQuery): Promise<readonly OrderReport[]> {
    const params = queryParamsOf([
      ['symbol', q.symbol],
      ['pageSize', q.pageSize],
      ['createDate', q.createDate],
    ]);
    return this.#run(
      'history',
      params,
      undefined,
      (body) => mapToObjects(body as readonly SimOrder[], (o) => this.#orderReport(o)),
      undefined,
      (rf) => okBody(this.venue.historyOrders(params, rf)),
    );
  }

  /**
   * An order revision's report, made once: a revision is immutable (MatchingCore saves a new object
   * per change), so the history window re-reading the same recent orders round after round gets the
   * same report objects.
   */
  #orderReport(o: SimOrder): OrderReport {
    return madeOnce(this.#reports, o, this.#toReport);
  }

  /**
   * A plan revision's report (what the HTTP client decodes from its row: ./reports.ts), made once: a
   * revision never changes (SimPlans saves a new object per change), and plan rounds read the same
   * resting and recent plans round after round.
   */
  #planReport(p: SimPlan): PlanReport {
    return madeOnce(this.#plans, p, this.#toPlanReport);
  }

  /** A fill's report, made once (a fill never changes). */
  #fillReport(f: SimFill): FillReport {
    return madeOnce(this.#fills, f, fillReportOf);
  }

  planHistory(q: PlanHistoryQuery): Promise<PlanPage> {
    const query = queryParamsOf([
      ['symbol', q.symbol],
      ['startTime', q.startTime],
      ['endTime', q.endTime],
      ['delegateType', q.delegateType],
      ['pageSize', q.pageSize],
    ]);
    return this.#run(
      'historyPlan',
      query,
      undefined,
      (body) => {
        const page = body as SimPlanPage;
        return { plans: page.plans.map((x) => this.#planReport(x)), nextPage: page.more };
      },
      undefined,
      (rf) => okBody(this.venue.historyPlanRows(query, rf)),
    );
  }

  placePlan(symbol: SymbolId, entry: PlanEntry): Promise<PlaceOutcome> {
    const rejected = (r: VenueReject): PlaceOutcome => refusedPlacement(entry.clientOid, r.code, r.msg);
    const request = planRequestOfEntry(entry);
    if (request === undefined) {
      return this.#run<PlaceOutcome>(
        'planOrder',
        NO_PARAMS,
        planEntryToWire(symbol, entry),
        (body) => ({
          clientOid: entry.clientOid,
          outcome: 'accepted',
          orderId: toOrderId(planOrderReplySchema.parse(body).order_id),
        }),
        rejected,
      );
    }
    // The request the venue would parse from the body; its reply is the venue's own object.
    return this.#run<PlaceOutcome>(
      'planOrder',
      NO_PARAMS,
      undefined,
      (body) => ({
        clientOid: entry.clientOid,
        outcome: 'accepted',
        orderId: toOrderId((body as { readonly order_id: string }).order_id),
      }),
      rejected,
      () => {
        const input = planInputOf(symbol, request, this.#known);
        return input.ok ? this.venue.placePlan(input.value) : { ok: false, reject: input.reject };
      },
    );
  }

  cancelPlan(req: CancelPlanRequest): Promise<CancelOutcome> {
    return this.#cancel('cancelPlan', req, (sel) => this.venue.cancelPlanSelected(sel));
  }

  currentPlans(q: CurrentPlanQuery): Promise<PlanPage> {
    const query = queryParamsOf([
      ['symbol', q.symbol],
      ['page', q.page],
      ['limit', q.limit],
    ]);
    return this.#run(
      'currentPlan',
      query,
      undefined,
      (body) => {
        const rows = body as readonly SimPlan[];
        return {
          plans: rows.map((x) => this.#planReport(x)),
          nextPage: currentPlanPageIsFull(rows.length, q.limit),
        };
      },
      undefined,
      (rf) => okBody(this.venue.currentPlanRows(query, rf)),
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
    query: QueryParams,
    body: unknown,
    onOk: (body: unknown) => T,
    onReject?: (r: VenueReject) => T,
    operate?: (rf: RequestFaults) => VenueReply,
  ): Promise<T> {
    // A throw inside the executor becomes a rejection, like a failed request.
    return new Promise<T>((resolve) => resolve(this.#exec(endpoint, query, body, onOk, onReject, operate)));
  }

  #exec<T>(
    endpoint: EndpointId,
    query: QueryParams,
    body: unknown,
    onOk: (body: unknown) => T,
    onReject: ((r: VenueReject) => T) | undefined,
    /** The operation, when not the venue's routed one (its answer as records, or known without running it). */
    operate?: (rf: RequestFaults) => VenueReply,
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
    const reply = operate !== undefined ? operate(rf) : venue.dispatch(endpoint, query, body, rf, now);
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
