// The engine: the RxJS composition of the data path (ARCHITECTURE.md).
//
//   tickers ─► strategy host (isolated streams) ─► risk gate ─► write-ahead store ─► executor ─► port
//   executor / reconciliation ─► order events ─► reducer ─► store ─► strategies, positions, metrics
//
// Rules it keeps:
// - Write-ahead: an approved placement gets its client_oid from the store's persisted sequence and is
//   inserted as `created` (with its journal line) BEFORE it is handed to the executor; every order
//   event is applied through the reducer and committed BEFORE anything acts on it.
// - Steps never nest (trampoline.ts): strategy reactions to order updates run after the step that
//   caused them. When the outermost step ends, the executor's coalescing window closes (one tick).
// - Time comes only from the injected clock and scheduler, so the same code runs live and in
//   virtual time. `onTick` is synchronous: a backtest calls `onTick(poll)` then awaits `idle()`.
import type { Logger } from 'pino';
import { interval, Subject, type Observable, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Dec } from '../core/decimal.ts';
import { InvariantViolation } from '../core/errors.ts';
import type { OrderEvent } from '../core/events.ts';
import type { ClientOid, StrategyId, SymbolId } from '../core/ids.ts';
import type { Intent, PlaceIntent } from '../core/intents.ts';
import type { Ticker } from '../core/market.ts';
import { applyOrderEvent, newOrder } from '../core/order-reducer.ts';
import { isOpening, isTerminal, type Order } from '../core/orders.ts';
import type { FillReport } from '../core/reports.ts';
import { createBudget } from '../execution/budget.ts';
import { formatClientOid } from '../execution/client-oid.ts';
import { Executor, type QueueDepth } from '../execution/executor.ts';
import { schedulerTimers } from '../execution/timers.ts';
import { refuse, riskRefused, type RiskDecision } from '../risk/decision.ts';
import { DEFAULT_HISTORY_HEADROOM, historyBacklog } from '../reconcile/history-headroom.ts';
import type { HedgePosition } from '../risk/exposure.ts';
import { evaluate, type RiskContext } from '../risk/gate.ts';
import { DEFAULT_RISK_LIMITS, type RiskLimits } from '../risk/limits.ts';
import { createOrderRate, recordPlacement, type OrderRateWindow } from '../risk/order-rate.ts';
import { engageKillSwitch, type TradingState } from '../risk/trading-state.ts';
import type { OrderStore, StoredFill } from '../store/port.ts';
import { hostStrategies, type HostOutput } from '../strategy/host.ts';
import { instantiateStrategy, type InstantiatedStrategy } from '../strategy/instantiate.ts';
import type { PnlSnapshot, StrategyFill, StrategyStateSource } from '../strategy/types.ts';
import type { EngineEvent } from './events.ts';
import { Counters, LOCAL_REJECTION_CODES, type EngineMetrics } from './metrics.ts';
import { OpenOrders } from './open-orders.ts';
import { Portfolio } from './portfolio.ts';
import { TradingGuard, type TradingStateChange } from './trading-guard.ts';
import type { CancelAllResult, CancelScope, Engine, EngineDeps, EngineStartOptions } from './engine-types.ts';
import { intentJson } from './journal.ts';
import { Trampoline } from './trampoline.ts';

export type * from './engine-types.ts';
export { intentJson } from './journal.ts';

/** The venue's "order does not exist" code (weex-facts.md §4.2), the answer to a cancel of a gone order. */
const ORDER_NOT_FOUND = '50005';

export function createEngine(deps: EngineDeps): Engine {
  return new EngineImpl(deps);
}

class EngineImpl implements Engine {
  readonly events$: Observable<EngineEvent>;
  readonly strategies: readonly InstantiatedStrategy[];
  readonly executor: Executor;

  readonly #deps: EngineDeps;
  readonly #log: Logger;
  readonly #store: OrderStore;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #limits: RiskLimits;
  readonly #cancelOnDisable: boolean;
  readonly #events = new Subject<EngineEvent>();
  readonly #tickers = new Subject<Ticker>();
  readonly #orders = new Subject<Order>();
  readonly #fills = new Subject<StrategyFill>();
  readonly #pulses = new Subject<number>();
  readonly #trampoline: Trampoline;
  readonly #counters = new Counters();
  readonly #portfolio = new Portfolio();
  /** The latest ticker per symbol; its exact `last` is the mark (decoded only when read). */
  readonly #latest = new Map<SymbolId, Ticker>();
  /** Live orders, with their exposure kept summed for the risk gate. */
  readonly #open = new OpenOrders();
  /** The risk gate's account-wide legs per symbol, until the next fill changes them. */
  #hedgePositions: ReadonlyMap<SymbolId, HedgePosition> | undefined;
  readonly #strategyIds: ReadonlySet<StrategyId>;
  /** Orders whose last cancel met "does not exist", with the time: not re-canceled for a while. */
  readonly #cancelRefusedAt = new Map<ClientOid, number>();
  #orderRate: OrderRateWindow = createOrderRate();
  readonly #guardian: TradingGuard;
  #subscriptions: Subscription[] = [];
  #started = false;
  #failure: Error | undefined = undefined;

  constructor(deps: EngineDeps) {
    this.#deps = deps;
    this.#log = deps.log;
    this.#store = deps.store;
    this.#clock = deps.clock;
    const o = deps.options ?? {};
    this.#prefix = o.clientOidPrefix ?? 'cb';
    this.#limits = o.riskLimits ?? DEFAULT_RISK_LIMITS;
    this.#cancelOnDisable = o.cancelOnDisable ?? true;
    this.events$ = this.#events.asObservable();
    this.#trampoline = new Trampoline(() => this.executor.endOfTick());

    const state: StrategyStateSource = {
      latestTicker: (s) => this.#latest.get(s),
      openOrders: (strategy) =>
        Object.freeze([...this.#open.values()].filter((ord) => ord.strategy === strategy)),
      position: (strategy, symbol) => this.#portfolio.position(strategy, symbol),
      pnl: (strategy) => this.#portfolio.pnl(strategy, this.#mark),
      tradingState: () => this.#guardian.state,
    };
    const ids = new Set<string>();
    this.strategies = deps.strategies.map((s) => {
      if (ids.has(s.id)) throw new InvariantViolation(`duplicate strategy id ${s.id}`);
      ids.add(s.id);
      return instantiateStrategy({
        id: s.id,
        definition: s.definition,
        params: s.params,
        specs: deps.specs,
        clock: deps.clock,
        log: deps.log,
        state,
      });
    });
    this.#strategyIds = new Set(this.strategies.map((s) => s.id));

    this.executor = new Executor({
      port: deps.port,
      clock: deps.clock,
      timers: schedulerTimers(deps.scheduler),
      budget: createBudget(o.budget),
      onOrderEvent: (e) => this.#applyEvent(e),
      atomically: (fn) => deps.store.transaction(fn),
      onFatal: (e) => this.#fail(e),
      log: deps.log.child({ component: 'executor' }),
      ...(o.executor !== undefined ? { options: o.executor } : {}),
    });
    this.#guardian = new TradingGuard(deps.store, this.#limits, o.startingEquity);
    this.#loadState();
  }

  get failure(): Error | undefined {
    return this.#failure;
  }

  // ---- lifecycle -----------------------------------------------------------------------------------

  start(options: EngineStartOptions = {}): void {
    if (this.#started) throw new InvariantViolation('engine already started');
    this.#started = true;
    this.#settleUnsent();
    const host$ = hostStrategies(
      this.strategies,
      { tickers$: this.#tickers, orders$: this.#orders, fills$: this.#fills, clock$: this.#pulses },
      this.#clock,
    );
    this.#subscriptions.push(host$.subscribe((out) => this.#onHostOutput(out)));
    if (options.tickers$) {
      this.#subscriptions.push(
        options.tickers$.subscribe({
          next: (poll) => this.onTick(poll),
          error: (e: unknown) => this.#log.error({ err: e }, 'ticker source failed'),
        }),
      );
    }
    // Pulses only feed strategy timers: with no strategy declaring one, nothing would listen (and in
    // virtual time every pulse is an instant to settle).
    const pulseMs = this.#deps.options?.timerPulseMs;
    const timed = this.strategies.some((s) => s.instance.timerIntervalMs !== undefined);
    if (pulseMs !== undefined && timed) {
      this.#subscriptions.push(
        interval(pulseMs, this.#deps.scheduler).subscribe(() =>
          this.#trampoline.run(() => this.#pulses.next(this.#clock.now())),
        ),
      );
    }
  }

  stop(): void {
    for (const s of this.#subscriptions) s.unsubscribe();
    this.#subscriptions = [];
  }

  async shutdown(deadlineMs: number): Promise<QueueDepth> {
    this.stop();
    return this.executor.drain(deadlineMs);
  }

  async idle(): Promise<void> {
    for (;;) {
      this.#throwIfFailed();
      await this.executor.idle();
      this.#throwIfFailed();
      if (this.executor.isQuiescent() && !this.#trampoline.running) return;
    }
  }

  /**
   * True when the engine is idle now, without waiting: no executor work at all and no step running
   * (what `idle()` waits for, when nothing is pending). Throws the engine's failure, as `idle()` does.
   */
  idleNow(): boolean {
    this.#throwIfFailed();
    return this.executor.isEmpty() && this.executor.isQuiescent() && !this.#trampoline.running;
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }

  // ---- inputs --------------------------------------------------------------------------------------

  onTick(tickers: readonly Ticker[]): void {
    if (!this.#started) throw new InvariantViolation('engine.onTick before start()');
    if (this.#failure !== undefined) return;
    this.#trampoline.run(() => {
      for (const t of tickers) this.#latest.set(t.symbol, t);
      this.#counters.tickers += tickers.length;
      this.#checkDrawdown();
      this.#pulses.next(this.#clock.now());
      for (const t of tickers) this.#tickers.next(t);
    });
  }

  applyOrderEvents(events: readonly OrderEvent[]): void {
    this.#trampoline.run(() => {
      for (const e of events) this.#applyEvent(e);
    });
  }

  ordersChanged(orders: readonly Order[], fills: readonly StoredFill[] = []): void {
    this.#trampoline.run(() => {
      for (const f of fills) {
        const order =
          f.clientOid !== undefined
            ? (this.#open.get(f.clientOid) ?? this.#store.getOrder(f.clientOid))
            : undefined;
        this.#takeFill(f, order);
      }
      for (const o of orders) {
        this.#cancelRefusedAt.delete(o.clientOid);
        this.#orderUpdated(o);
      }
      this.#checkDrawdown();
    });
  }

  cancelAll(scope: CancelScope = {}): CancelAllResult {
    let local = 0;
    let requested = 0;
    this.#trampoline.run(() => {
      for (const o of [...this.#open.values()]) {
        if (scope.strategy !== undefined && o.strategy !== scope.strategy) continue;
        if (scope.symbol !== undefined && o.symbol !== scope.symbol) continue;
        const how = this.#requestCancel(o, scope.retryRefused === true);
        if (how === 'local') local++;
        else if (how === 'requested') requested++;
      }
    });
    return { local, requested };
  }

  killSwitch(reason: string): void {
    this.#trampoline.run(() => {
      const k = engageKillSwitch();
      this.#tradingChanged(this.#guardian.set(k.state, `kill switch: ${reason}`));
      for (const o of [...this.#open.values()]) this.#requestCancel(o);
    });
  }

  // ---- views ---------------------------------------------------------------------------------------

  tradingState(): TradingState {
    return this.#guardian.state;
  }

  hedgePositions(): ReadonlyMap<SymbolId, HedgePosition> {
    return this.#portfolio.hedgePositions();
  }

  pnl(): PnlSnapshot {
    return this.#portfolio.pnl(undefined, this.#mark);
  }

  openOrders(): readonly Order[] {
    return [...this.#open.values()];
  }

  queueDepth(): QueueDepth {
    return this.executor.depth();
  }

  metrics(): EngineMetrics {
    const c = this.#counters;
    const x = this.executor.metrics();
    return {
      tickers: c.tickers,
      intents: c.intents,
      ordersCreated: c.ordersCreated,
      ordersAccepted: c.ordersAccepted,
      ordersRejected: c.ordersRejected,
      ordersUnknown: c.ordersUnknown,
      ordersCanceled: c.ordersCanceled,
      ordersFilled: c.ordersFilled,
      fills: c.fills,
      cancelsRequested: c.cancelsRequested,
      strategiesDisabled: c.strategiesDisabled,
      rejectionsByReason: { ...c.rejections },
      requestsByEndpoint: x.requestsByEndpoint,
      weightUsed: x.weightUsed,
      rateLimited: x.rateLimited,
      batchCalls: x.batchCalls,
      batchEntries: x.batchEntries,
      singleCalls: x.singleCalls,
      superseded: x.superseded,
      queue: this.executor.depth(),
      budget: this.executor.budgetUsage(),
      tradingState: this.#guardian.state,
    };
  }

  // ---- strategy output → risk gate → write-ahead → executor ----------------------------------------

  #onHostOutput(out: HostOutput): void {
    if (this.#failure !== undefined) return;
    // Never throw inside an RxJS subscriber: a failure stops the engine and is reported by #fail.
    this.#guard(false, () => {
      this.#emit(out);
      if (out.kind === 'StrategyDisabled') {
        this.#counters.strategiesDisabled++;
        this.#log.warn({ strategy: out.strategy, reason: out.reason }, 'strategy disabled');
        if (this.#cancelOnDisable) for (const o of this.#ownOpen(out.strategy)) this.#requestCancel(o);
        return;
      }
      this.#counters.intents++;
      this.#handleIntent(out.strategy, out.intent);
    });
  }

  /**
   * The gate's inputs. Positions and the live orders' exposure are kept summed as fills and orders
   * change (not rebuilt per intent); an approved placement is in `#open` before the next decision.
   */
  #riskContext(now: number): RiskContext {
    this.#hedgePositions ??= this.#portfolio.hedgePositions();
    return {
      now,
      limits: this.#limits,
      tradingState: this.#guardian.state,
      lastPrices: this.#lastPricesNow(),
      positions: this.#hedgePositions,
      openOrders: this.#open.exposure(),
      orderRate: this.#orderRate,
    };
  }

  /**
   * The risk gate's answer; for a placement it approves, also the history headroom: while the symbol
   * holds an order with an unknown outcome, placements wait once one order-history page would no
   * longer reach that order (src/reconcile/history-headroom.ts).
   */
  #decide(intent: Intent, now: number): RiskDecision {
    const decision = evaluate(intent, this.#riskContext(now));
    if (!decision.approved || intent.kind !== 'place' || !this.#open.hasUnknown(intent.symbol)) {
      return decision;
    }
    const store = this.#store;
    const backlog = historyBacklog(
      this.#open.values(),
      intent.symbol,
      (t) => store.countOrdersSince?.(intent.symbol, t) ?? 0,
      now,
      this.#deps.options?.historyHeadroom ?? DEFAULT_HISTORY_HEADROOM,
    );
    return backlog === undefined ? decision : refuse('reconcile_backlog', backlog);
  }

  #handleIntent(strategy: StrategyId, intent: Intent): void {
    const now = this.#clock.now();
    const decision = this.#decide(intent, now);
    if (!decision.approved) {
      this.#counters.reject(decision.reason);
      this.#store.appendJournal({
        at: now,
        strategy,
        intent: intentJson(intent),
        outcome: `refused:${decision.reason}`,
      });
      this.#emit(riskRefused(strategy, intent, decision, now));
      return;
    }
    switch (intent.kind) {
      case 'place':
        this.#place(strategy, intent, now);
        return;
      case 'cancel': {
        const order =
          intent.clientOid !== undefined
            ? (this.#open.get(intent.clientOid) ?? this.#store.getOrder(intent.clientOid))
            : intent.orderId !== undefined
              ? this.#store.getOrderByOrderId(intent.orderId)
              : undefined;
        this.#store.appendJournal({
          at: now,
          strategy,
          intent: intentJson(intent),
          outcome: 'approved',
          ...(order ? { clientOid: order.clientOid } : {}),
        });
        if (order === undefined || order.strategy !== strategy || order.symbol !== intent.symbol) {
          this.#emit({
            kind: 'IntentIgnored',
            at: now,
            strategy,
            intent,
            reason: 'no such order of this strategy on this symbol',
          });
          return;
        }
        const held = isTerminal(order.status)
          ? `the order is already ${order.status}`
          : this.#cancelHeld(order);
        if (held !== undefined) {
          this.#emit({ kind: 'IntentIgnored', at: now, strategy, intent, reason: held });
          return;
        }
        this.#requestCancel(order);
        return;
      }
      case 'cancelAll':
        this.#store.appendJournal({ at: now, strategy, intent: intentJson(intent), outcome: 'approved' });
        for (const o of this.#ownOpen(strategy))
          if (intent.symbol === undefined || o.symbol === intent.symbol) this.#requestCancel(o);
        return;
    }
  }

  #place(strategy: StrategyId, intent: PlaceIntent, now: number): void {
    const store = this.#store;
    const order = store.transaction(() => {
      const clientOid = formatClientOid(this.#prefix, strategy, store.nextSequence(strategy));
      const o = newOrder({
        clientOid,
        strategy,
        symbol: intent.symbol,
        side: intent.side,
        orderType: intent.orderType,
        size: intent.size,
        ...(intent.price !== undefined ? { price: intent.price } : {}),
        ...(intent.tag !== undefined ? { tag: intent.tag } : {}),
        at: now,
      });
      store.insertOrder(o);
      store.appendJournal({ at: now, strategy, intent: intentJson(intent), outcome: 'approved', clientOid });
      return o;
    });
    this.#orderRate = recordPlacement(this.#orderRate, now);
    this.#open.set(order);
    this.#counters.ordersCreated++;
    this.#emit({ kind: 'OrderCreated', at: now, order });
    this.executor.submitPlacement({
      strategy,
      symbol: order.symbol,
      entry: {
        clientOid: order.clientOid,
        side: order.side,
        orderType: order.orderType,
        size: order.size,
        ...(order.price !== undefined ? { price: order.price } : {}),
      },
      ...(order.tag !== undefined ? { tag: order.tag } : {}),
      // Position-reducing orders go first among placements.
      priority: isOpening(order.side) ? 0 : 1,
    });
    this.#notifyOrder(order);
  }

  /**
   * Why a cancel of this live order is not sent now, or undefined when it would be: one is already
   * in flight, or the exchange refused the last one ("does not exist") less than cancelRetryMs ago
   * (reconciliation settles the order meanwhile; the strategy may ask again after that).
   */
  #cancelHeld(order: Order): string | undefined {
    const current = this.#open.get(order.clientOid) ?? order;
    if (current.status === 'canceling') return 'a cancel of this order is already in flight';
    const refusedAt = this.#cancelRefusedAt.get(current.clientOid);
    if (refusedAt === undefined) return undefined;
    const retryMs = this.#deps.options?.cancelRetryMs ?? 5_000;
    const since = this.#clock.now() - refusedAt;
    if (since >= retryMs) return undefined;
    return (
      `the exchange refused a cancel of this order ${since} ms ago: cancels of it wait ${retryMs} ms ` +
      'or until reconciliation changes the order'
    );
  }

  /**
   * Cancels one order: locally when it never left, through cancel_order otherwise. Says which, or
   * undefined when it does nothing (terminal, already canceling, refused too recently).
   */
  #requestCancel(order: Order, retryRefused = false): 'local' | 'requested' | undefined {
    const current = this.#open.get(order.clientOid) ?? order;
    if (isTerminal(current.status) || current.status === 'canceling') return undefined;
    const at = this.#clock.now();
    if (!retryRefused && this.#cancelHeld(current) !== undefined) return undefined;
    this.#counters.cancelsRequested++;
    // `created` never left (OrderSubmitted is committed before any request); a withdrawn placement
    // came back unsent (after a 429). Either way nothing is at the exchange: settle it here.
    if (this.executor.withdraw(current.clientOid) || current.status === 'created') {
      this.#applyEvent({
        kind: 'OrderCanceled',
        clientOid: current.clientOid,
        at,
        reason: 'canceled before it was sent',
      });
      return 'local';
    }
    this.#applyEvent({ kind: 'CancelRequested', clientOid: current.clientOid, at });
    const updated = this.#open.get(current.clientOid);
    if (updated?.status !== 'canceling') return undefined;
    this.executor.submitCancel({
      symbol: updated.symbol,
      clientOid: updated.clientOid,
      ...(updated.orderId !== undefined ? { orderId: updated.orderId } : {}),
    });
    return 'requested';
  }

  // ---- order events → reducer → store → strategies -------------------------------------------------

  /** Applies one event: reduce, commit, then publish. Synchronous: the executor acts right after. */
  #applyEvent(e: OrderEvent): void {
    // Rethrows: the executor must not act on an event the store did not take.
    this.#guard(true, () => {
      const order = this.#open.get(e.clientOid) ?? this.#store.getOrder(e.clientOid);
      if (order === undefined) {
        this.#log.warn(
          { event: e.kind, clientOid: e.clientOid },
          'order event for an order that is not in the store',
        );
        return;
      }
      if (e.kind === 'OrderFilled' && this.#store.hasFill(e.tradeId)) return;
      const r = applyOrderEvent(order, e);
      if (e.kind === 'OrderFilled') {
        this.#store.transaction(() => {
          this.#store.recordFill({ ...e.fill, clientOid: e.clientOid });
          if (r.changed) this.#store.updateOrder(r.order);
        });
      } else if (r.changed) {
        // A single statement is atomic (and committed) on its own: no transaction around it.
        this.#store.updateOrder(r.order);
      }
      this.#count(e);
      if (e.kind === 'CancelRejected' && e.code === ORDER_NOT_FOUND)
        this.#cancelRefusedAt.set(e.clientOid, e.at);
      else if (r.changed) this.#cancelRefusedAt.delete(e.clientOid);
      this.#emit(e);
      if (r.anomaly !== undefined) {
        this.#log.warn({ clientOid: e.clientOid, event: e.kind, anomaly: r.anomaly }, 'order anomaly');
        this.#emit({
          kind: 'OrderAnomaly',
          at: e.at,
          clientOid: e.clientOid,
          event: e.kind,
          anomaly: r.anomaly,
        });
      }
      if (e.kind === 'OrderFilled') this.#takeFill(e.fill, r.order);
      if (r.changed) this.#orderUpdated(r.order);
    });
  }

  #count(e: OrderEvent): void {
    const c = this.#counters;
    if (e.kind === 'OrderAccepted') c.ordersAccepted++;
    else if (e.kind === 'OrderOutcomeUnknown') c.ordersUnknown++;
    else if (e.kind === 'OrderLost') c.reject('lost');
    else if (e.kind === 'OrderRejected') {
      c.ordersRejected++;
      const local = LOCAL_REJECTION_CODES.has(e.code);
      c.reject(local ? `local:${e.code}` : `exchange:${e.code}`);
      // The counters keep the code; the words (which name sizes and prices) go to the log.
      if (!local)
        this.#log.info(
          { clientOid: e.clientOid, code: e.code, reason: e.reason },
          'order rejected by the exchange',
        );
    }
  }

  /** Keeps the open-order index and the strategies up to date with a committed order. */
  #orderUpdated(order: Order): void {
    const before = this.#open.get(order.clientOid);
    if (isTerminal(order.status)) {
      this.#open.delete(order.clientOid);
      this.#cancelRefusedAt.delete(order.clientOid);
      if (before !== undefined) {
        if (order.status === 'canceled') this.#counters.ordersCanceled++;
        if (order.status === 'filled') this.#counters.ordersFilled++;
      }
    } else {
      this.#open.set(order);
    }
    this.#notifyOrder(order);
  }

  #notifyOrder(order: Order): void {
    if (!this.#strategyIds.has(order.strategy)) return;
    const frozen = Object.freeze({ ...order });
    this.#trampoline.run(() => this.#orders.next(frozen));
  }

  /** A fill recorded once in the store: into the positions, then to its strategy. */
  #takeFill(fill: FillReport, order: Order | undefined): void {
    this.#counters.fills++;
    const skipped = this.#portfolio.applyFill(fill, order?.strategy, order?.side);
    this.#hedgePositions = undefined;
    if (skipped !== undefined) this.#log.warn({ tradeId: fill.tradeId }, skipped);
    if (order === undefined || !this.#strategyIds.has(order.strategy)) return;
    const sf: StrategyFill = Object.freeze({
      ...fill,
      strategy: order.strategy,
      clientOid: order.clientOid,
      side: order.side,
      price: fill.size.gt(0) ? fill.value.div(fill.size) : fill.value,
    });
    this.#trampoline.run(() => this.#fills.next(sf));
    this.#checkDrawdown();
  }

  // ---- trading state -------------------------------------------------------------------------------

  readonly #mark = (symbol: SymbolId): Dec | undefined => this.#latest.get(symbol)?.last;

  /** The exact last price per symbol, for the risk gate (built per decision: intents are rare). */
  #lastPricesNow(): ReadonlyMap<SymbolId, Dec> {
    const out = new Map<SymbolId, Dec>();
    for (const [symbol, t] of this.#latest) out.set(symbol, t.last);
    return out;
  }

  #checkDrawdown(): void {
    this.#tradingChanged(this.#guardian.onNetPnl(this.#portfolio.accountNet(this.#mark)));
  }

  #tradingChanged(change: TradingStateChange | undefined): void {
    if (change === undefined) return;
    this.#log.warn(change, 'trading state changed');
    this.#emit({ kind: 'TradingStateChanged', at: this.#clock.now(), ...change });
  }

  // ---- start-up and plumbing -----------------------------------------------------------------------

  /** Open orders and positions from the store. */
  #loadState(): void {
    for (const o of this.#store.openOrders()) this.#open.set(o);
    const byOid = new Map<ClientOid, Order>();
    for (const f of this.#store.allFills()) {
      let order: Order | undefined;
      if (f.clientOid !== undefined) {
        order = byOid.get(f.clientOid) ?? this.#store.getOrder(f.clientOid);
        if (order !== undefined) byOid.set(f.clientOid, order);
      }
      this.#portfolio.applyFill(f, order?.strategy, order?.side);
    }
    this.#hedgePositions = undefined;
  }

  /**
   * Orders still `created` at start were never sent (OrderSubmitted is committed before a request
   * leaves): they are rejected locally, exactly.
   */
  #settleUnsent(): void {
    const at = this.#clock.now();
    for (const o of [...this.#open.values()]) {
      if (o.status === 'created')
        this.#applyEvent({
          kind: 'OrderRejected',
          clientOid: o.clientOid,
          at,
          code: 'NOT_SENT',
          reason: 'found unsent at start-up',
        });
    }
  }

  #ownOpen(strategy: StrategyId): Order[] {
    return [...this.#open.values()].filter((o) => o.strategy === strategy);
  }

  #emit(e: EngineEvent): void {
    this.#events.next(e);
  }

  /** Store failures (and bugs) stop the engine instead of leaving it half-applied. */
  #guard(rethrow: boolean, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.#fail(e);
      if (rethrow) throw e;
    }
  }

  #fail(e: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = e instanceof Error ? e : new Error(String(e));
    this.#log.error({ err: e }, 'engine stopped on a fatal error');
    this.#emit({
      kind: 'EngineFailed',
      at: this.#clock.now(),
      message: e instanceof Error ? e.message : String(e),
    });
    this.stop();
    this.executor.stop();
  }
}
