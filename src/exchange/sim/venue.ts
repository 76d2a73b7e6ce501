// The simulated venue behind both front doors (the HTTP server and the in-process port): the matching
// core plus weights, faults and counters, answering each operation with a wire-shaped body or a
// venue refusal. Front doors differ only in how they carry these answers (HTTP or core types).
// Time: operations run at the core's time, which the front door's clock mode has brought up to date.
import type { Endpoint, EndpointId } from '../../core/endpoints.ts';
import { contractToWire } from './contracts.ts';
import { FaultInjector, NO_FAULTS, type RequestFaults } from './faults.ts';
import { madeOnce } from './made-once.ts';
import type { CancelSelector, MatchingCore } from './matching.ts';
import type { SimFill, SimOrder, SimPlan } from './model.ts';
import {
  parseBatchOrdersBody,
  parseCancelBody,
  parseFillsQuery,
  parseHistoryQuery,
  parsePlaceOrderBody,
  parsePlanQuery,
  type BatchInput,
  type Parsed,
  type PlaceOrderInput,
  type QueryParams,
} from './params.ts';
import {
  parseCancelPlanBody,
  parseCurrentPlanQuery,
  parsePlanOrderBody,
  type PlanOrderInput,
} from './plan-params.ts';
import type { PlanSelector } from './plans.ts';
import { planRowToWire, type PlanRowStyle, type WirePlanRowOut } from './plan-wire.ts';
import { mapToObjects } from '../../core/object-lists.ts';
import type { OrderSide } from '../../core/orders.ts';
import { sortInPlace } from '../../core/small-sort.ts';
import { SimStats, type SimStatsSnapshot } from './stats.ts';
import { REJECT, type VenueReject } from './venue-errors.ts';
import { WeightLimiter } from './weights.ts';
import {
  batchEntryToWire,
  cancelReplyToWire,
  fillToWire,
  historyRowToWire,
  type WireHistoryRowOut,
  placeReplyToWire,
  timeToWire,
  type WireBatchEntryOut,
  type WireBatchReplyOut,
} from './wire.ts';

export type VenueReply =
  { readonly ok: true; readonly body: unknown } | { readonly ok: false; readonly reject: VenueReject };

/** A fills query's answer before its rows become wire rows (SimVenue.fillsPage). */
export interface SimFillsPage {
  /** Newest first, at most the query's limit (a duplicated-rows fault may add one). */
  readonly rows: readonly SimFill[];
  readonly nextFlag: boolean;
  /** Every fill matching the query. */
  readonly totals: number;
}

/** A historyPlan query's answer before its rows become wire rows (SimVenue.historyPlanRows). */
export interface SimPlanPage {
  /** Newest first, at most the query's page size (a duplicated-rows fault may add one). */
  readonly plans: readonly SimPlan[];
  /** More plans match than the page holds. */
  readonly more: boolean;
}

export interface VenueOptions {
  readonly core: MatchingCore;
  readonly limiter?: WeightLimiter;
  readonly faults?: FaultInjector;
  /** Fills tradeId/orderId as JSON number literals (as the venue sends them); default true. */
  readonly idsAsNumbers?: boolean;
  /** Plan rows in the documented codes (default) or the live upper-case words (./plan-wire.ts). */
  readonly planRowStyle?: PlanRowStyle;
}

const DELEGATE_SIDE: Readonly<Record<number, OrderSide>> = {
  1: 'open_long',
  2: 'open_short',
  3: 'close_long',
  4: 'close_short',
};

/** The account's key in the UID window: a label, never the API key itself (stats are public). */
export const ACCOUNT_UID = 'account';

const okReply = (body: unknown): VenueReply => ({ ok: true, body });
const noReply = (reject: VenueReject): VenueReply => ({ ok: false, reject });

function newestFirstOrders(a: SimOrder, b: SimOrder): number {
  return (
    b.createTime - a.createTime ||
    b.orderId.length - a.orderId.length ||
    (b.orderId < a.orderId ? -1 : b.orderId > a.orderId ? 1 : 0)
  );
}

function newestFirstFills(a: SimFill, b: SimFill): number {
  return (
    b.createdTime - a.createdTime ||
    b.tradeId.length - a.tradeId.length ||
    (b.tradeId < a.tradeId ? -1 : b.tradeId > a.tradeId ? 1 : 0)
  );
}

export class SimVenue {
  readonly core: MatchingCore;
  readonly limiter: WeightLimiter;
  readonly faults: FaultInjector;
  readonly stats = new SimStats();
  readonly idsAsNumbers: boolean;
  readonly planRowStyle: PlanRowStyle;

  constructor(opts: VenueOptions) {
    this.core = opts.core;
    this.limiter = opts.limiter ?? new WeightLimiter();
    this.faults = opts.faults ?? new FaultInjector(NO_FAULTS, 0);
    this.idsAsNumbers = opts.idsAsNumbers ?? true;
    this.planRowStyle = opts.planRowStyle ?? 'documented';
  }

  readonly #known = (s: string): boolean => this.core.isKnownSymbol(s);
  /** Fill rows by fill (#fillRow). */
  readonly #fillRows = new WeakMap<SimFill, ReturnType<typeof fillToWire>>();
  /** History rows by order revision (#historyRow). */
  readonly #historyRows = new WeakMap<SimOrder, WireHistoryRowOut>();
  readonly #toFillRow = (f: SimFill): ReturnType<typeof fillToWire> => fillToWire(f, this.idsAsNumbers);
  readonly #toHistoryRow = (o: SimOrder): WireHistoryRowOut => historyRowToWire(o, this.core.contracts);

  /** Counts the request and rolls its faults. */
  begin(endpoint: EndpointId): RequestFaults {
    this.stats.request(endpoint);
    return this.faults.decide(endpoint);
  }

  /** Charges the weight windows at `now` (limiter time); a refusal is the 429 envelope. */
  admit(
    now: number,
    endpoint: Endpoint,
    ip: string,
    signed: boolean,
  ):
    | { readonly ok: true }
    | { readonly ok: false; readonly reject: VenueReject; readonly retryAfterMs: number } {
    const r = this.limiter.charge(now, endpoint, ip, signed ? ACCOUNT_UID : undefined);
    if (r.ok) {
      this.stats.charged(endpoint, signed);
      return r;
    }
    this.stats.limited(r.scope);
    return { ok: false, reject: REJECT.tooMany, retryAfterMs: r.retryAfterMs };
  }

  statsSnapshot(): SimStatsSnapshot {
    return this.stats.snapshot(this.faults.counts());
  }

  // -------------------------------------------------------------------------------------------
  // Public market endpoints

  time(serverNow: number): VenueReply {
    return okReply(timeToWire(serverNow));
  }

  tickers(): VenueReply {
    return okReply(this.core.tickers());
  }

  contracts(q: QueryParams): VenueReply {
    const symbol = q.get('symbol');
    if (symbol !== undefined && !this.core.isKnownSymbol(symbol)) return noReply(REJECT.invalid('symbol'));
    const symbols = symbol !== undefined ? [symbol] : this.core.knownSymbols();
    return okReply(symbols.map((s) => contractToWire(s, this.core.contracts.rules(s))));
  }

  // -------------------------------------------------------------------------------------------
  // Orders

  placeOrder(body: unknown): VenueReply {
    const p = parsePlaceOrderBody(body, this.#known);
    return p.ok ? this.placeOne(p.value) : noReply(p.reject);
  }

  /** A checked placement (a parsed body, or the in-process port's request: params.ts placeInputOf). */
  placeOne(input: PlaceOrderInput): VenueReply {
    const r = this.core.place(this.core.now, input.symbol, input.request);
    return r.ok ? okReply(placeReplyToWire(r.order)) : noReply(r.reject);
  }

  /** Entries succeed or fail one by one; the top-level `result` is true when every entry succeeded. */
  batchOrders(body: unknown): VenueReply {
    const p = parseBatchOrdersBody(body, this.#known);
    return p.ok ? okReply(this.placeBatch(p.value)) : noReply(p.reject);
  }

  /** A checked batch (a parsed body, or the in-process port's requests: params.ts batchInputOf). */
  placeBatch(input: BatchInput): WireBatchReplyOut {
    const info: WireBatchEntryOut[] = mapToObjects(input.entries, (e) =>
      e.ok ? batchEntryToWire(this.core.place(this.core.now, input.symbol, e.request)) : batchEntryToWire(e),
    );
    return { order_info: info, result: info.every((i) => i.result) };
  }

  cancelOrder(body: unknown): VenueReply {
    const p = parseCancelBody(body, this.#known);
    return p.ok ? this.cancelSelected(p.value) : noReply(p.reject);
  }

  /** A checked cancel (a parsed body, or the in-process port's selector: params.ts cancelSelectorOf). */
  cancelSelected(sel: CancelSelector): VenueReply {
    const r = this.core.cancel(this.core.now, sel);
    return r.ok ? okReply(cancelReplyToWire(r.order)) : noReply(r.reject);
  }

  // -------------------------------------------------------------------------------------------
  // Reads (with the read-side faults: stale history, duplicated rows, late fills)

  /** `{list,nextFlag,totals}`, newest first; `totals` counts every match, `list` the first `limit`. */
  fills(q: QueryParams, rf: RequestFaults): VenueReply {
    const page = this.fillsPage(q, rf);
    if (!page.ok) return noReply(page.reject);
    const { rows, nextFlag, totals } = page.value;
    return okReply({ list: rows.map((x) => this.#fillRow(x)), nextFlag, totals });
  }

  /**
   * What a fills query answers, before its rows become wire rows (`fills`; the in-process port maps
   * them to core reports directly, ./reports.ts): the first `limit` matches newest first, with the
   * read-side faults (late fills, duplicated rows), whether more match, and how many do.
   */
  fillsPage(q: QueryParams, rf: RequestFaults): Parsed<SimFillsPage> {
    const p = parseFillsQuery(q, this.#known);
    if (!p.ok) return p;
    const f = p.value;
    const now = this.core.now;
    // The window, by binary search (fills are in time order); forgotten fills are not served.
    const matching = sortInPlace(
      this.core
        .fillsBetween(f.startTime, f.endTime)
        .filter(
          (x) =>
            (f.symbol === undefined || x.symbol === f.symbol) &&
            (f.orderId === undefined || x.orderId === f.orderId),
        )
        .filter((x) => this.faults.fillVisible(x.tradeId, x.createdTime, now)),
      newestFirstFills,
    );
    const rows = this.#maybeDuplicate(matching.slice(0, f.limit), rf);
    return { ok: true, value: { rows, nextFlag: matching.length > f.limit, totals: matching.length } };
  }

  /** Bare array of every order of the account (any status), newest first. */
  history(q: QueryParams, rf: RequestFaults): VenueReply {
    const rows = this.historyOrders(q, rf);
    return rows.ok ? okReply(rows.value.map((o) => this.#historyRow(o))) : noReply(rows.reject);
  }

  /**
   * The order revisions a history query answers, before they become wire rows (`history`; the
   * in-process port maps them to core reports directly, ./reports.ts), with the read-side faults
   * (stale history, duplicated rows).
   */
  historyOrders(q: QueryParams, rf: RequestFaults): Parsed<readonly SimOrder[]> {
    const now = this.core.now;
    const p = parseHistoryQuery(q, this.#known, now);
    if (!p.ok) return p;
    const f = p.value;
    let rows: readonly SimOrder[];
    if (rf.staleLagMs !== undefined) {
      this.faults.count('staleHistory');
      rows = this.core
        .ordersAsOf(now - rf.staleLagMs)
        .filter(
          (o) =>
            (f.symbol === undefined || o.symbol === f.symbol) &&
            (f.since === undefined || o.createTime >= f.since),
        )
        .sort(newestFirstOrders)
        .slice(0, f.pageSize);
    } else {
      // From the index: the same page, without reading every order of the run.
      rows = this.core.newestOrders(f.symbol, f.since, f.pageSize);
    }
    return { ok: true, value: this.#maybeDuplicate(rows, rf) };
  }

  /** A fill's row, made once (a fill never changes; see #historyRow). */
  #fillRow(x: SimFill): ReturnType<typeof fillToWire> {
    return madeOnce(this.#fillRows, x, this.#toFillRow);
  }

  /**
   * An order revision's history row, made once: a revision is immutable (MatchingCore saves a new
   * object per change) and the contract rules are fixed, so the row is too. The history window re-reads
   * the same recent orders round after round; each is formatted once.
   */
  #historyRow(o: SimOrder): WireHistoryRowOut {
    return madeOnce(this.#historyRows, o, this.#toHistoryRow);
  }

  // -------------------------------------------------------------------------------------------
  // Plan (trigger) orders (./plans.ts)

  /** plan_order: `{client_oid, order_id}` like placeOrder (the client_oid echoed). */
  planOrder(body: unknown): VenueReply {
    const p = parsePlanOrderBody(body, this.#known);
    return p.ok ? this.placePlan(p.value) : noReply(p.reject);
  }

  /** A checked plan placement (a parsed body, or the in-process port's request: plan-params.ts planInputOf). */
  placePlan(input: PlanOrderInput): VenueReply {
    const r = this.core.placePlan(this.core.now, input.symbol, input.request);
    return r.ok
      ? okReply({ client_oid: r.plan.clientOid ?? null, order_id: r.plan.orderId })
      : noReply(r.reject);
  }

  /** cancel_plan: `{order_id, client_oid, result, err_msg}`; an unknown or finished plan is 50005. */
  cancelPlan(body: unknown): VenueReply {
    const p = parseCancelPlanBody(body, this.#known);
    return p.ok ? this.cancelPlanSelected(p.value) : noReply(p.reject);
  }

  /** A checked plan cancel (a parsed body, or the in-process port's selector). */
  cancelPlanSelected(sel: PlanSelector): VenueReply {
    const r = this.core.cancelPlan(this.core.now, sel);
    return r.ok
      ? okReply({
          order_id: r.plan.orderId,
          client_oid: r.plan.clientOid ?? null,
          result: true,
          err_msg: null,
        })
      : noReply(r.reject);
  }

  /** currentPlan: a bare array of the untriggered plans, newest first, page `page` of `limit`. */
  currentPlan(q: QueryParams, rf: RequestFaults): VenueReply {
    const rows = this.currentPlanRows(q, rf);
    return rows.ok ? okReply(rows.value.map((x) => this.#planRow(x))) : noReply(rows.reject);
  }

  /**
   * The plans a currentPlan query answers, before they become wire rows (`currentPlan`; the
   * in-process port maps each revision to its report once: ./reports.ts, sim-port.ts), with the read-side
   * faults (stale history, duplicated rows).
   */
  currentPlanRows(q: QueryParams, rf: RequestFaults): Parsed<readonly SimPlan[]> {
    const p = parseCurrentPlanQuery(q, this.#known);
    if (!p.ok) return p;
    const f = p.value;
    const all = this.core.plans.current(f.symbol, this.#staleAsOf(rf));
    const rows = all.slice(f.page * f.limit, (f.page + 1) * f.limit);
    return { ok: true, value: this.#maybeDuplicate(rows, rf) };
  }

  /** A plan revision's wire row, in this venue's row style. */
  #planRow(p: SimPlan): WirePlanRowOut {
    return planRowToWire(p, this.core.contracts, this.planRowStyle);
  }

  /**
   * historyPlan: `{list, nextPage}`, the symbol's plans no longer untriggered, created in
   * [startTime, endTime], newest first, at most `pageSize`; `nextPage` when more match (the next page
   * is asked for by moving endTime below the oldest row, as for fills).
   */
  historyPlan(q: QueryParams, rf: RequestFaults): VenueReply {
    const page = this.historyPlanRows(q, rf);
    if (!page.ok) return noReply(page.reject);
    return okReply({ list: page.value.plans.map((x) => this.#planRow(x)), nextPage: page.value.more });
  }

  /** The plans a historyPlan query answers, before they become wire rows (as `currentPlanRows`). */
  historyPlanRows(q: QueryParams, rf: RequestFaults): Parsed<SimPlanPage> {
    const p = parsePlanQuery(q, this.#known);
    if (!p.ok) return p;
    const f = p.value;
    const side = f.delegateType !== undefined ? DELEGATE_SIDE[f.delegateType] : undefined;
    const page = this.core.plans.history(
      {
        symbol: f.symbol,
        ...(f.startTime !== undefined ? { startTime: f.startTime } : {}),
        ...(f.endTime !== undefined ? { endTime: f.endTime } : {}),
        ...(side !== undefined ? { side } : {}),
        limit: f.pageSize,
      },
      this.#staleAsOf(rf),
    );
    return { ok: true, value: { plans: this.#maybeDuplicate(page.plans, rf), more: page.more } };
  }

  /** The stale-history fault on plan reads: the plans as they stood `lagMs` ago. */
  #staleAsOf(rf: RequestFaults): number | undefined {
    if (rf.staleLagMs === undefined) return undefined;
    this.faults.count('staleHistory');
    return this.core.now - rf.staleLagMs;
  }

  inspectPlans(): unknown[] {
    return this.core.planOrders().map((x) => ({
      ...planRowToWire(x, this.core.contracts, this.planRowStyle),
      origin: x.origin,
      ...(x.parentOrderId !== undefined ? { parentOrderId: x.parentOrderId } : {}),
      ...(x.child !== undefined ? { childOrderId: x.child.orderId } : {}),
      ...(x.reason !== undefined ? { reason: x.reason } : {}),
    }));
  }

  /** Every order and fill for the inspection API (current state, no faults, ids as strings). */
  inspectOrders(): unknown[] {
    return this.core.orders().map((o) => historyRowToWire(o, this.core.contracts));
  }

  inspectFills(): unknown[] {
    return this.core.fills().map((f) => fillToWire(f, false));
  }

  inspectPositions(): unknown[] {
    return [...this.core.positions()].map(([symbol, p]) => ({
      symbol,
      long: {
        qty: p.long.qty.toFixed(),
        cost: p.long.cost.toFixed(),
        realizedPnl: p.long.realizedPnl.toFixed(),
      },
      short: {
        qty: p.short.qty.toFixed(),
        cost: p.short.cost.toFixed(),
        realizedPnl: p.short.realizedPnl.toFixed(),
      },
    }));
  }

  /** Duplicated rows fault: one row (picked by the request's die) appears twice, adjacent. */
  #maybeDuplicate<T>(rows: readonly T[], rf: RequestFaults): readonly T[] {
    if (!rf.duplicateRows || rows.length === 0) return rows;
    const i = Math.min(rows.length - 1, Math.floor(rf.pick * rows.length));
    const row = rows[i];
    if (row === undefined) return rows;
    this.faults.count('duplicateRows');
    return [...rows.slice(0, i + 1), row, ...rows.slice(i + 1)];
  }

  /**
   * Runs the operation of a routed request. `serverNow` is the server clock (market/time); `q` the
   * query's parameters (`queryParams` of an URL's query text).
   */
  dispatch(
    endpoint: EndpointId,
    q: QueryParams,
    body: unknown,
    rf: RequestFaults,
    serverNow: number,
  ): VenueReply {
    switch (endpoint) {
      case 'time':
        return this.time(serverNow);
      case 'contracts':
        return this.contracts(q);
      case 'tickers':
        return this.tickers();
      case 'placeOrder':
        return this.placeOrder(body);
      case 'batchOrders':
        return this.batchOrders(body);
      case 'cancelOrder':
        return this.cancelOrder(body);
      case 'fills':
        return this.fills(q, rf);
      case 'history':
        return this.history(q, rf);
      case 'historyPlan':
        return this.historyPlan(q, rf);
      case 'planOrder':
        return this.planOrder(body);
      case 'cancelPlan':
        return this.cancelPlan(body);
      case 'currentPlan':
        return this.currentPlan(q, rf);
    }
  }
}
