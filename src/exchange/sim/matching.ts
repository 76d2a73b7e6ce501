// The matching core: the account's orders per symbol matched against ticker snapshots (best bid,
// best ask, last). Pure and deterministic: no I/O, no ambient time (every call carries `now`), ids
// from seeded counters. The HTTP server, the in-process port and every clock mode share this one core.
//
// Rules (issue 3, weex-facts.md §9):
// - A limit order marketable on arrival fills at once as taker at the opposite best price; what the
//   liquidity cap leaves rests (normal) or is canceled (ioc); fok fills entirely or not at all;
//   post-only that would take is canceled.
// - A resting order fills as maker at its own price when the market reaches it: `through` needs the
//   opposite best to cross the limit by at least one tick, `touch` only to reach it.
// - Market orders fill at the opposite best ± slippage (rounded to the tick, against the taker) and
//   are recorded as order_type "ioc" with price "0.0".
// - Statuses: pending → open → filled, or (open →) canceling → canceled; canceled may be partially filled.
// - Hedge mode: a close never exceeds the leg minus the remaining size of the leg's active closes.
// - Retention (`retentionMs`, off by default here, on in SimPort): terminal orders and fills that no
//   query can reach any more are forgotten, without changing any answer (./retention.ts).
// - Plan (trigger) orders live in ./plans.ts; they fire at each snapshot, after the resting orders
//   matched, and their children are orders of this core like any other.
import { dec, decMin, roundToStep, ZERO, type Dec } from '../../core/decimal.ts';
import { withChanges } from '../../core/copies.ts';
import { combineFootprints, sumSizes, type Footprint } from '../../core/footprint.ts';
import { InvariantViolation } from '../../core/errors.ts';
import type { Ticker, WireTicker } from '../../core/market.ts';
import { rowsOf, type TickerRows } from '../../core/ticker-rows.ts';
import { isOpening } from '../../core/orders.ts';
import { SIM_COMPACT_MIN_DEAD } from './compaction.ts';
import { ContractTable } from './contracts.ts';
import { IdSequence } from './ids.ts';
import { MarketState, type Book } from './market-state.ts';
import {
  isActive,
  remainingOf,
  type Liquidity,
  type SimFill,
  type SimOrder,
  type SimOrderRequest,
  type SimPlan,
  type SimPlanRequest,
  type TriggerSource,
} from './model.ts';
import { SimPlans, type PlanConfig, type PlanPlaceResult, type PlanSelector } from './plans.ts';
import { applyFill, EMPTY_POSITION, isBuy, legOf, type LegName, type SymbolPosition } from './positions.ts';
import { OrderRetention } from './retention.ts';
import { REJECT, type VenueReject } from './venue-errors.ts';

export type FillModel = 'through' | 'touch';

export interface MatchingConfig extends PlanConfig {
  readonly contracts?: ContractTable;
  /** Resting-order fill rule; default `through` (conservative). */
  readonly fillModel?: FillModel;
  /** Market-order slippage in basis points against the taker; default 0. */
  readonly slippageBps?: Dec;
  /** Quantity (base coin) the market offers per symbol, per side, per snapshot; absent = unlimited. */
  readonly liquidityPerSnapshot?: Dec;
  /** Seed of the order-id and trade-id sequences. */
  readonly seed?: number;
  /** How long a new order stays `pending` before matching; default 0 (matched on arrival). */
  readonly acceptDelayMs?: number;
  /** How long a cancel stays `canceling` (the order may still fill meanwhile); default 0. */
  readonly cancelDelayMs?: number;
  /**
   * How long terminal orders and fills are remembered (./retention.ts), in the core's time; default
   * Infinity (everything, as `capibot sim`'s inspection API promises). SimPort sets a retention.
   */
  readonly retentionMs?: number;
  /**
   * Keep every revision of each order, for `ordersAsOf` (the stale-history fault's views); default
   * true. SimPort keeps them only when its fault profile can make history stale: each revision would
   * otherwise live as long as its order is remembered.
   */
  readonly keepRevisions?: boolean;
}

export type { Book } from './market-state.ts';

/** What the venue reads of the plan orders (./plans.ts). */
export type PlanReads = Pick<SimPlans, 'current' | 'history' | 'plan' | 'all' | 'remembered'>;

export type PlaceResult =
  | { readonly ok: true; readonly order: SimOrder }
  | { readonly ok: false; readonly clientOid: string; readonly reject: VenueReject };

export type CancelResult =
  { readonly ok: true; readonly order: SimOrder } | { readonly ok: false; readonly reject: VenueReject };

export interface CancelSelector {
  readonly symbol?: string;
  readonly orderId?: string;
  readonly clientOid?: string;
}

const BPS = dec(10_000);

/** Orders sort by id: ids are equal-length increasing decimal strings, compared as numbers. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

export class MatchingCore {
  readonly contracts: ContractTable;
  readonly #fillModel: FillModel;
  readonly #slippage: Dec;
  readonly #liquidityCap: Dec | undefined;
  readonly #acceptDelayMs: number;
  readonly #cancelDelayMs: number;
  readonly #orderIds: IdSequence;
  readonly #tradeIds: IdSequence;

  #now = 0;
  readonly #orders = new Map<string, SimOrder>();
  /** Order ids in creation order: non-decreasing create time, then increasing id (newestOrders). */
  readonly #created: string[] = [];
  /** Every revision of each remembered order, oldest first (`keepRevisions`; else none). */
  readonly #revisions = new Map<string, SimOrder[]>();
  readonly #keepRevisions: boolean;
  readonly #byClientOid = new Map<string, string>();
  /** Active (pending/open/canceling) order ids per symbol. */
  readonly #active = new Map<string, Set<string>>();
  /** The ids in #active, all symbols together: a snapshot with none looks at no symbol. */
  #activeCount = 0;
  /** Orders waiting for a due time (pending activation or cancel completion). */
  readonly #timed = new Set<string>();
  /** Fills in time order; those before `#fillHead` are forgotten (dropped in batches). */
  readonly #fills: SimFill[] = [];
  #fillHead = 0;
  /** Orders forgotten whose ids are still in `#created` (dropped in batches). */
  #createdGone = 0;
  readonly #retention: OrderRetention | undefined;
  readonly #positions = new Map<string, SymbolPosition>();
  /**
   * Each symbol's latest ticker, book and liquidity, decoded only for the symbols something asks
   * about (market-state.ts). Read it from outside; only `applyTickers` and `applyRows` install snapshots.
   */
  readonly market: MarketState;
  /** Bumped by every stored revision (placement, activation, fill, cancel): see `version`. */
  #version = 0;
  readonly #plans: SimPlans;
  /** Set while a triggered plan's child is placed (it may carry the plan's client_oid). */
  #placingChild = false;

  constructor(config: MatchingConfig = {}) {
    this.contracts = config.contracts ?? new ContractTable();
    this.#fillModel = config.fillModel ?? 'through';
    this.#slippage = config.slippageBps ?? ZERO;
    this.#liquidityCap = config.liquidityPerSnapshot;
    this.market = new MarketState(config.liquidityPerSnapshot);
    this.#acceptDelayMs = config.acceptDelayMs ?? 0;
    this.#cancelDelayMs = config.cancelDelayMs ?? 0;
    const retention = config.retentionMs ?? Number.POSITIVE_INFINITY;
    if (!(retention >= 0)) throw new RangeError(`retentionMs must be ≥ 0, got ${retention}`);
    this.#retention = Number.isFinite(retention) ? new OrderRetention(retention) : undefined;
    this.#keepRevisions = config.keepRevisions ?? true;
    const seed = config.seed ?? 1;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the plan host reads the private clock
    const core = this;
    this.#orderIds = new IdSequence(seed, 1);
    this.#tradeIds = new IdSequence(seed, 2);
    this.#plans = new SimPlans(
      {
        get now() {
          return core.#now;
        },
        takeOrderId: () => this.#orderIds.take(),
        checkPlan: (symbol, req) => this.#validatePlan(symbol, req),
        placeChild: (symbol, req) => {
          this.#placingChild = true;
          try {
            return this.place(this.#now, symbol, req);
          } finally {
            this.#placingChild = false;
          }
        },
        price: (symbol, source) => this.#watchedPrice(symbol, source),
        priceNumber: (symbol, source) => this.#watchedPriceNumber(symbol, source),
        inSnapshotOrder: (symbols) => this.market.inSnapshotOrder(symbols),
      },
      config,
      retention,
    );
  }

  /** The plan orders, read-only (placement and cancel go through placePlan and cancelPlan). */
  get plans(): PlanReads {
    return this.#plans;
  }

  // -------------------------------------------------------------------------------------------
  // Reads

  /** The core's time: the latest `now` it was given. */
  get now(): number {
    return this.#now;
  }

  /**
   * A number that changes whenever an order or a fill changes (every stored revision, visible or
   * not). While it stays the same, every order and fills read answers as it did.
   */
  get version(): number {
    return this.#version + this.#plans.version;
  }

  /** The part of `version` orders and fills make (what order history and fills reads show). */
  get orderVersion(): number {
    return this.#version;
  }

  /**
   * The part of `version` plan orders make (what plan reads show: a triggered plan's row carries its
   * child's progress, and every child revision is a plan revision too: plans.ts).
   */
  get planVersion(): number {
    return this.#plans.version;
  }

  /**
   * True when an order waits for a due time (activation, cancel completion) or a preset plan for its
   * lag: time alone changes it. (A plan's 90-day expiry is not counted: it is applied, and the version
   * moves, whenever time reaches it.)
   */
  get hasTimedWork(): boolean {
    return this.#timed.size > 0 || this.#plans.hasTimedWork;
  }

  /** The last snapshot's tickers, exactly as given. */
  tickers(): readonly WireTicker[] {
    return this.market.tickers();
  }

  /** The current snapshot's tickers as TickerViews (the same objects until the next snapshot). */
  tickerViews(): readonly Ticker[] {
    return this.market.views();
  }

  /** The current snapshot's tickers of `symbols` only, as TickerViews, in the snapshot's order. */
  tickerViewsOf(symbols: ReadonlySet<string>): readonly Ticker[] {
    return this.market.viewsOf(symbols);
  }

  book(symbol: string): Book | undefined {
    return this.market.book(symbol);
  }

  /** A symbol is tradable when the contracts table names it or the market data has shown it. */
  isKnownSymbol(symbol: string): boolean {
    return this.contracts.names(symbol) || this.market.has(symbol);
  }

  knownSymbols(): readonly string[] {
    return [...new Set([...this.contracts.namedSymbols(), ...this.market.symbols()])].sort();
  }

  /** Every order, oldest first, in its current state. */
  orders(): readonly SimOrder[] {
    return [...this.#orders.values()];
  }

  order(orderId: string): SimOrder | undefined {
    return this.#orders.get(orderId);
  }

  orderByClientOid(clientOid: string): SimOrder | undefined {
    const id = this.#byClientOid.get(clientOid);
    return id === undefined ? undefined : this.#orders.get(id);
  }

  /**
   * The newest orders first (create time, then id, descending), those of `symbol` (all when
   * undefined) created at or after `since`, at most `limit`: what sorting every order would give,
   * walking back from the newest only as far as the page reaches (orders are created in time order).
   */
  newestOrders(symbol: string | undefined, since: number | undefined, limit: number): SimOrder[] {
    const out: SimOrder[] = [];
    for (let i = this.#created.length - 1; i >= 0 && out.length < limit; i--) {
      const o = this.#orders.get(this.#created[i] as string);
      if (o === undefined) continue;
      if (since !== undefined && o.createTime < since) break;
      if (symbol === undefined || o.symbol === symbol) out.push(o);
    }
    return out;
  }

  /**
   * Every order as it stood at time `t` (orders created later are absent): stale history views.
   * Needs `keepRevisions`.
   */
  ordersAsOf(t: number): readonly SimOrder[] {
    if (!this.#keepRevisions)
      throw new InvariantViolation('simulator: ordersAsOf without keepRevisions (no stale-history fault)');
    const out: SimOrder[] = [];
    for (const revs of this.#revisions.values()) {
      let last: SimOrder | undefined;
      for (const r of revs) {
        if (r.updateTime > t) break;
        last = r;
      }
      if (last) out.push(last);
    }
    return out;
  }

  /** Every fill still remembered, oldest first. */
  fills(): readonly SimFill[] {
    return this.#fillHead === 0 ? this.#fills : this.#fills.slice(this.#fillHead);
  }

  /**
   * The remembered fills created in [startTime, endTime] (either bound optional), oldest first,
   * found by binary search: fills are appended in non-decreasing time.
   */
  fillsBetween(startTime: number | undefined, endTime: number | undefined): readonly SimFill[] {
    const all = this.#fills;
    const from = startTime === undefined ? this.#fillHead : this.#fillIndex(startTime);
    const to = endTime === undefined ? all.length : this.#fillIndex(endTime + 1);
    return from >= to ? [] : all.slice(from, to);
  }

  /** First index (≥ the head) whose fill was created at or after `t`. */
  #fillIndex(t: number): number {
    const all = this.#fills;
    let lo = this.#fillHead;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((all[mid] as SimFill).createdTime < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Orders and fills remembered (retention figures and tests). */
  get remembered(): { readonly orders: number; readonly fills: number } {
    return { orders: this.#orders.size, fills: this.#fills.length - this.#fillHead };
  }

  /**
   * Every collection of the core, its retention and its plans (core/footprint.ts). With a retention,
   * terminal orders and old fills leave once no query can reach them (./retention.ts); the backing
   * arrays of `created` and `fills` keep at most as many dead entries as live ones, or
   * SIM_COMPACT_MIN_DEAD (./compaction.ts).
   */
  footprint(): Footprint {
    return {
      orders: this.#orders.size,
      created: this.#created.length,
      revisions: this.#revisions.size,
      byClientOid: this.#byClientOid.size,
      active: sumSizes(this.#active),
      timed: this.#timed.size,
      fills: this.#fills.length - this.#fillHead,
      fillsBacking: this.#fills.length,
      positions: this.#positions.size,
      ...combineFootprints({
        ...(this.#retention !== undefined ? { retention: this.#retention.footprint() } : {}),
        plans: this.#plans.footprint(),
        market: this.market.footprint(),
      }),
    };
  }

  position(symbol: string): SymbolPosition {
    return this.#positions.get(symbol) ?? EMPTY_POSITION;
  }

  positions(): ReadonlyMap<string, SymbolPosition> {
    return this.#positions;
  }

  /** Leg quantity not yet promised to active close orders. */
  closable(symbol: string, leg: LegName): Dec {
    let reserved = ZERO;
    const closeSide = leg === 'long' ? 'close_long' : 'close_short';
    for (const id of this.#active.get(symbol) ?? []) {
      const o = this.#orders.get(id);
      if (o && o.side === closeSide) reserved = reserved.plus(remainingOf(o));
    }
    return this.position(symbol)[leg].qty.minus(reserved);
  }

  // -------------------------------------------------------------------------------------------
  // Time and market data

  /**
   * Moves time forward to `now` (never backward: an earlier `now` is read as the current time) and
   * runs what fell due meanwhile, in due order: pending orders reach matching, cancels complete.
   */
  advanceTo(now: number): void {
    const target = Math.max(now, this.#now);
    for (;;) {
      const next = this.#nextDue(target);
      if (!next) break;
      this.#now = Math.max(this.#now, next.at);
      if (next.order.status === 'pending') this.#activate(next.order, this.#now);
      else this.#finishCancel(next.order, this.#now);
    }
    this.#now = target;
    if (this.#retention !== undefined) {
      // Mostly nothing is due: no loop then (iterating the frozen empty answer allocates).
      const gone = this.#retention.due(target);
      if (gone.length > 0) this.#forgetOrders(gone);
    }
    this.#plans.advance(target);
  }

  /**
   * Installs a snapshot taken at `now` (its per-snapshot liquidity with it) and fills resting orders,
   * symbol by symbol in the snapshot's order. Only the symbols holding active orders are looked at.
   */
  applyTickers(now: number, tickers: readonly WireTicker[]): void {
    this.applyRows(now, rowsOf(tickers));
  }

  /** `applyTickers` over rows (a recording line: its ticker objects are made only where needed). */
  applyRows(now: number, rows: TickerRows): void {
    this.advanceTo(now);
    this.market.install(rows, this.#now);
    if (this.#activeCount > 0) {
      const active: string[] = [];
      for (const [symbol, ids] of this.#active) if (ids.size > 0) active.push(symbol);
      for (const symbol of this.market.inSnapshotOrder(active)) this.#matchResting(symbol, this.#now);
    }
    // Plans watch the snapshot too (nothing to do while none is armed).
    this.#plans.onSnapshot();
  }

  // -------------------------------------------------------------------------------------------
  // Requests

  place(now: number, symbol: string, req: SimOrderRequest): PlaceResult {
    this.advanceTo(now);
    const reject = this.#validate(symbol, req);
    if (reject) return { ok: false, clientOid: req.clientOid, reject };
    const t = this.#now;
    const isMarket = req.price === undefined;
    const order: SimOrder = {
      orderId: this.#orderIds.take(),
      clientOid: req.clientOid,
      symbol,
      side: req.side,
      orderType: isMarket && req.orderType === 'normal' ? 'ioc' : req.orderType,
      isMarket,
      ...optional('price', req.price),
      size: req.size,
      filledQty: ZERO,
      filledValue: ZERO,
      fee: ZERO,
      totalProfits: ZERO,
      status: 'pending',
      marginMode: req.marginMode ?? 'SHARED',
      ...optional('presetTakeProfitPrice', req.presetTakeProfitPrice),
      ...optional('presetStopLossPrice', req.presetStopLossPrice),
      createTime: t,
      updateTime: t,
      aggressive: false,
      activateAt: t + this.#acceptDelayMs,
    };
    this.#byClientOid.set(order.clientOid, order.orderId);
    this.#save(order);
    if (this.#acceptDelayMs <= 0) this.#activate(order, t);
    return { ok: true, order: this.#orders.get(order.orderId) ?? order };
  }

  /** Entries are placed one after the other; a client_oid repeated inside the batch is refused. */
  placeBatch(now: number, symbol: string, reqs: readonly SimOrderRequest[]): readonly PlaceResult[] {
    return reqs.map((r) => this.place(now, symbol, r));
  }

  /** `orderId` wins when both ids are given. Finished or unknown orders: 50005. */
  cancel(now: number, sel: CancelSelector): CancelResult {
    this.advanceTo(now);
    const o =
      sel.orderId !== undefined
        ? this.#orders.get(sel.orderId)
        : sel.clientOid !== undefined
          ? this.orderByClientOid(sel.clientOid)
          : undefined;
    if (!o || (sel.symbol !== undefined && sel.symbol !== o.symbol) || !isActive(o)) {
      return { ok: false, reject: REJECT.orderNotFound };
    }
    if (o.status === 'canceling') return { ok: true, order: o };
    const t = this.#now;
    // A pending order has not reached matching yet: it is withdrawn at once.
    if (this.#cancelDelayMs <= 0 || o.status === 'pending') {
      return { ok: true, order: this.#finishCancel(o, t, 'canceled by request') };
    }
    return {
      ok: true,
      order: this.#save({ ...o, status: 'canceling', cancelAt: t + this.#cancelDelayMs, updateTime: t }),
    };
  }

  /** plan_order: a plan resting untriggered (./plans.ts); shape checks as placeOrder's. */
  placePlan(now: number, symbol: string, req: SimPlanRequest): PlanPlaceResult {
    this.advanceTo(now);
    return this.#plans.place(symbol, req);
  }

  /** cancel_plan: only an untriggered plan can be canceled; anything else answers 50005. */
  cancelPlan(now: number, sel: PlanSelector): PlanPlaceResult {
    this.advanceTo(now);
    return this.#plans.cancel(sel);
  }

  /** Every plan order in its current state, oldest first. */
  planOrders(): readonly SimPlan[] {
    return this.#plans.all();
  }

  // -------------------------------------------------------------------------------------------
  // Validation

  /** A client_oid is taken by a remembered order or plan (a triggered plan's child may reuse its plan's). */
  #clientOidTaken(oid: string): boolean {
    return this.#byClientOid.has(oid) || (!this.#placingChild && this.#plans.hasClientOid(oid));
  }

  /** The shape rules of placeOrder, applied to a plan's size, trigger and execute prices. */
  #validatePlan(symbol: string, req: SimPlanRequest): VenueReject | undefined {
    return this.#validateShape(symbol, req.clientOid, req.size, [req.triggerPrice, req.executePrice]);
  }

  /** Symbol, a client_oid not taken, the size on the step and within limits, prices on the tick. */
  #validateShape(
    symbol: string,
    clientOid: string,
    size: Dec,
    prices: readonly (Dec | undefined)[],
  ): VenueReject | undefined {
    if (!this.isKnownSymbol(symbol)) return REJECT.invalid('symbol');
    if (this.#clientOidTaken(clientOid)) return REJECT.duplicateClientOid(clientOid);
    const rules = this.contracts.rules(symbol);
    const sizeText = size.toFixed();
    if (size.lte(0) || !size.mod(rules.sizeStep).eq(0)) return REJECT.sizeStep(rules.sizeStep, sizeText);
    if (size.lt(rules.minSize)) return REJECT.minSize(rules.minSize, sizeText);
    if (size.gt(rules.maxSize)) return REJECT.maxSize(rules.maxSize, sizeText);
    for (const p of prices) {
      if (p !== undefined && (p.lte(0) || !p.mod(rules.priceTick).eq(0)))
        return REJECT.priceTick(rules.priceTick, p.toFixed());
    }
    return undefined;
  }

  /** The price a plan watches: the mark price when asked for and present, else the last. */
  #watchedPrice(symbol: string, source: TriggerSource): Dec | undefined {
    if (source === 'mark') {
      const mark = this.market.mark(symbol);
      if (mark !== undefined) return mark;
    }
    return this.market.book(symbol)?.last;
  }

  /**
   * `#watchedPrice` as the nearest double (TickerView's numbers are Number() of the same texts), or
   * NaN where only the exact price can tell: no snapshot, or a price that is not positive (the exact
   * path then falls back or finds none).
   */
  #watchedPriceNumber(symbol: string, source: TriggerSource): number {
    const v = this.market.latestView(symbol);
    if (v === undefined) return Number.NaN;
    const n = source === 'mark' && v.mark !== undefined ? v.mark : v.price;
    return n > 0 ? n : Number.NaN;
  }

  #validate(symbol: string, req: SimOrderRequest): VenueReject | undefined {
    const shape = this.#validateShape(symbol, req.clientOid, req.size, [req.price]);
    if (shape) return shape;
    const presetReject = this.#validatePresets(symbol, req);
    if (presetReject) return presetReject;
    if (!isOpening(req.side)) {
      const leg = legOf(req.side);
      const closable = this.closable(symbol, leg);
      if (req.size.gt(closable)) return REJECT.closeExceedsPosition(leg, req.size.toFixed(), closable);
    }
    return undefined;
  }

  /** Preset TP/SL of an opening order must lie on the profitable/protective side of its price. */
  #validatePresets(symbol: string, req: SimOrderRequest): VenueReject | undefined {
    if (!isOpening(req.side)) return undefined;
    const ref = req.price ?? this.#opposite(symbol, isBuy(req.side)) ?? this.market.book(symbol)?.last;
    if (ref === undefined) return undefined;
    const long = req.side === 'open_long';
    const wording = long ? 'buy long' : 'sell short';
    const tp = req.presetTakeProfitPrice;
    if (tp !== undefined && (long ? tp.lte(ref) : tp.gte(ref)))
      return REJECT.presetTp(wording, ref, tp.toFixed());
    const sl = req.presetStopLossPrice;
    if (sl !== undefined && (long ? sl.gte(ref) : sl.lte(ref)))
      return REJECT.presetSl(wording, ref, sl.toFixed());
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Matching

  /** The price a buyer (asks) or seller (bids) meets; `last` stands in for a missing side. */
  #opposite(symbol: string, buy: boolean): Dec | undefined {
    const b = this.market.book(symbol);
    if (!b) return undefined;
    return (buy ? b.ask : b.bid) ?? b.last;
  }

  #marketable(o: SimOrder, best: Dec): boolean {
    if (o.price === undefined) return true;
    return isBuy(o.side) ? best.lte(o.price) : best.gte(o.price);
  }

  /** Quantity the snapshot still offers to `o`, rounded down to the size step. */
  #fillable(o: SimOrder): Dec {
    const rem = remainingOf(o);
    const liq = this.market.liquidity(o.symbol);
    const avail = liq ? (isBuy(o.side) ? liq.buy : liq.sell) : this.#liquidityCap;
    const q = avail === undefined ? rem : decMin(rem, avail);
    return q.lte(0) ? ZERO : roundToStep(q, this.contracts.rules(o.symbol).sizeStep, 'down');
  }

  /** Arrival at the matching engine (a pending order is never canceling: see cancel). */
  #activate(o: SimOrder, t: number): void {
    const buy = isBuy(o.side);
    const best = this.#opposite(o.symbol, buy);
    if (o.isMarket) {
      if (o.orderType === 'postOnly') {
        this.#finishCancel(o, t, 'post-only order would take liquidity');
      } else if (best === undefined) {
        this.#finishCancel(o, t, 'no market price for the symbol');
      } else {
        this.#takeOnArrival(o, this.#marketPrice(o.symbol, best, buy), t);
      }
      return;
    }
    if (best === undefined || !this.#marketable(o, best)) {
      if (o.orderType === 'ioc' || o.orderType === 'fok') this.#finishCancel(o, t, 'not marketable');
      else this.#save({ ...o, status: 'open', aggressive: false, updateTime: t });
    } else if (o.orderType === 'postOnly') {
      this.#finishCancel(o, t, 'post-only order would take liquidity');
    } else {
      this.#takeOnArrival(o, best, t);
    }
  }

  /** The opposite best moved against the taker by the slippage, rounded to the tick against the taker. */
  #marketPrice(symbol: string, best: Dec, buy: boolean): Dec {
    const tick = this.contracts.rules(symbol).priceTick;
    const factor = buy ? BPS.plus(this.#slippage).div(BPS) : BPS.minus(this.#slippage).div(BPS);
    const px = roundToStep(best.times(factor), tick, buy ? 'up' : 'down');
    return px.gt(0) ? px : tick;
  }

  /** A marketable order takes what the snapshot offers; the rest rests (normal) or is canceled. */
  #takeOnArrival(o: SimOrder, price: Dec, t: number): void {
    const q = this.#fillable(o);
    if (o.orderType === 'fok' && !q.eq(o.size)) {
      this.#finishCancel(o, t, 'fill-or-kill could not fill entirely');
      return;
    }
    const cur = q.gt(0) ? this.#fill(o, q, price, 'TAKER', t) : o;
    if (cur.status === 'filled') return;
    if (o.isMarket || o.orderType === 'ioc') this.#finishCancel(cur, t, 'immediate-or-cancel remainder');
    else this.#save({ ...cur, status: 'open', aggressive: true, updateTime: t });
  }

  /** A new snapshot: resting orders fill by price priority, then time priority. */
  #matchResting(symbol: string, t: number): void {
    const ids = this.#active.get(symbol);
    if (!ids || ids.size === 0) return;
    const resting = [...ids]
      .map((id) => this.#orders.get(id))
      .filter((o): o is SimOrder => o !== undefined && o.status !== 'pending' && o.price !== undefined)
      .sort((a, b) => {
        const ba = isBuy(a.side);
        if (ba !== isBuy(b.side)) return ba ? -1 : 1;
        const pa = a.price ?? ZERO;
        const pb = b.price ?? ZERO;
        const byPrice = ba ? pb.cmp(pa) : pa.cmp(pb);
        return byPrice || compareIds(a.orderId, b.orderId);
      });
    const tick = this.contracts.rules(symbol).priceTick;
    for (const o of resting) {
      const buy = isBuy(o.side);
      const best = this.#opposite(symbol, buy);
      const price = o.price;
      if (best === undefined || price === undefined) continue;
      const marketable = this.#marketable(o, best);
      if (o.aggressive && marketable) {
        const q = this.#fillable(o);
        if (q.gt(0)) this.#fill(o, q, best, 'TAKER', t);
        continue;
      }
      let cur = o;
      if (o.aggressive) cur = this.#save({ ...o, aggressive: false }, false);
      const reached =
        this.#fillModel === 'touch'
          ? marketable
          : buy
            ? best.lte(price.minus(tick))
            : best.gte(price.plus(tick));
      if (!reached) continue;
      const q = this.#fillable(cur);
      if (q.gt(0)) this.#fill(cur, q, price, 'MAKER', t);
    }
  }

  #fill(o: SimOrder, size: Dec, price: Dec, liquidity: Liquidity, t: number): SimOrder {
    const rules = this.contracts.rules(o.symbol);
    const value = size.times(price);
    const feeRate = liquidity === 'MAKER' ? rules.makerFeeRate : rules.takerFeeRate;
    const fee = value.times(feeRate);
    const effect = applyFill(this.position(o.symbol), o.side, size, price);
    this.#positions.set(o.symbol, effect.position);
    const liq = this.market.liquidity(o.symbol);
    if (liq) {
      if (isBuy(o.side) && liq.buy !== undefined) liq.buy = liq.buy.minus(size);
      if (!isBuy(o.side) && liq.sell !== undefined) liq.sell = liq.sell.minus(size);
    }
    this.#fills.push({
      tradeId: this.#tradeIds.take(),
      orderId: o.orderId,
      clientOid: o.clientOid,
      symbol: o.symbol,
      side: o.side,
      marginMode: o.marginMode,
      liquidity,
      size,
      price,
      value,
      fee,
      feeRate,
      realizedPnl: effect.realizedPnl,
      createdTime: t,
    });
    if (this.#retention !== undefined) this.#forgetFills(t - this.#retention.retentionMs);
    const filledQty = o.filledQty.plus(size);
    return this.#save({
      ...o,
      filledQty,
      filledValue: o.filledValue.plus(value),
      fee: o.fee.plus(fee),
      totalProfits: o.totalProfits.plus(effect.realizedPnl),
      status: filledQty.eq(o.size) ? 'filled' : o.status,
      updateTime: t,
    });
  }

  #finishCancel(o: SimOrder, t: number, reason = 'canceled by request'): SimOrder {
    if (o.status === 'filled' || o.status === 'canceled') return o;
    const cancelReason = o.cancelReason ?? reason;
    // Most orders never waited in `canceling` (an IOC remainder, a refused post-only): a plain copy.
    // Dropping `cancelAt` with a rest pattern takes V8's slow generic copy, so only when it is there.
    if (o.cancelAt === undefined)
      return this.#save(withChanges(o, { status: 'canceled', cancelReason, updateTime: t }));
    const { cancelAt: _cancelAt, ...rest } = o;
    return this.#save({ ...rest, status: 'canceled', cancelReason, updateTime: t });
  }

  /** The earliest pending activation or cancel completion due at or before `until`. */
  #nextDue(until: number): { at: number; order: SimOrder } | undefined {
    // Called at every advance of the clock, mostly with nothing timed: no iterator then.
    if (this.#timed.size === 0) return undefined;
    let best: { at: number; order: SimOrder } | undefined;
    for (const id of this.#timed) {
      const o = this.#orders.get(id);
      if (!o) continue;
      const at = o.status === 'pending' ? o.activateAt : o.status === 'canceling' ? o.cancelAt : undefined;
      if (at === undefined || at > until) continue;
      if (!best || at < best.at || (at === best.at && compareIds(o.orderId, best.order.orderId) < 0))
        best = { at, order: o };
    }
    return best;
  }

  /**
   * Forgets terminal orders no history page can show any more (./retention.ts). Not a revision: no
   * answer changes, so the version stays.
   */
  #forgetOrders(ids: readonly string[]): void {
    for (const id of ids) {
      const o = this.#orders.get(id);
      if (o === undefined || isActive(o)) continue;
      this.#orders.delete(id);
      this.#revisions.delete(id);
      if (this.#byClientOid.get(o.clientOid) === id) this.#byClientOid.delete(o.clientOid);
      this.#createdGone++;
    }
    // `#created` keeps creation order for newestOrders; forgotten ids are dropped in batches.
    if (this.#createdGone >= SIM_COMPACT_MIN_DEAD && this.#createdGone * 2 >= this.#created.length) {
      // Compacted in place (not `splice(0, n, ...kept)`: spreading a long array into arguments throws
      // a RangeError past about 120 000 items).
      let w = 0;
      for (const id of this.#created) if (this.#orders.has(id)) this.#created[w++] = id;
      this.#created.length = w;
      this.#createdGone = 0;
    }
  }

  /** Forgets the fills created before `horizon` (a prefix: fills are in time order). */
  #forgetFills(horizon: number): void {
    const all = this.#fills;
    while (this.#fillHead < all.length && (all[this.#fillHead] as SimFill).createdTime < horizon) {
      this.#fillHead++;
    }
    if (this.#fillHead >= SIM_COMPACT_MIN_DEAD && this.#fillHead * 2 >= all.length) {
      all.splice(0, this.#fillHead);
      this.#fillHead = 0;
    }
  }

  /** Stores a revision; `visible` false for internal flags that the wire never shows. */
  #save(o: SimOrder, visible = true): SimOrder {
    this.#version++;
    const prev = this.#orders.get(o.orderId);
    if (prev === undefined) {
      this.#created.push(o.orderId);
      this.#retention?.created(o.orderId, o.symbol, o.createTime);
    }
    if ((prev === undefined || isActive(prev)) && !isActive(o)) {
      this.#retention?.ended(o.orderId, o.symbol, o.updateTime);
    }
    this.#orders.set(o.orderId, o);
    this.#plans.onOrderSaved(prev, o);
    if (visible && this.#keepRevisions) {
      const revs = this.#revisions.get(o.orderId);
      if (revs) revs.push(o);
      else this.#revisions.set(o.orderId, [o]);
    }
    let ids = this.#active.get(o.symbol);
    if (!ids) {
      ids = new Set();
      this.#active.set(o.symbol, ids);
    }
    if (isActive(o)) {
      if (!ids.has(o.orderId)) {
        ids.add(o.orderId);
        this.#activeCount++;
      }
    } else if (ids.delete(o.orderId)) {
      this.#activeCount--;
    }
    if (o.status === 'pending' || o.status === 'canceling') this.#timed.add(o.orderId);
    else this.#timed.delete(o.orderId);
    return o;
  }
}

/** `{ key: value }` when the value is defined, `{}` otherwise (exactOptionalPropertyTypes). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
