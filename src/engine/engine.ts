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
//
// Its parts: strategy-hosting.ts (strategies and their timer pulses), intent-pipeline.ts (intents →
// risk gate → write-ahead → executor), risk-view.ts (what the gate sees), order-updates.ts (order
// events → reducer → store → strategies), cancel-requests.ts (cancels and their holds), wired to
// each other by engine-parts.ts. This file keeps the lifecycle, the inputs and the views.
import type { Logger } from 'pino';
import { Subject, type Observable, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Dec } from '../core/decimal.ts';
import { InvariantViolation } from '../core/errors.ts';
import { combineFootprints, type Footprint } from '../core/footprint.ts';
import type { OrderEvent } from '../core/events.ts';
import type { SymbolId } from '../core/ids.ts';
import type { Ticker } from '../core/market.ts';
import type { Order } from '../core/orders.ts';
import { TickerView } from '../core/ticker-view.ts';
import type { Executor } from '../execution/executor.ts';
import { type QueueDepth } from '../execution/executor.ts';
import type { HedgePosition } from '../risk/exposure.ts';
import { engageKillSwitch, type TradingState } from '../risk/trading-state.ts';
import type { StoredFill } from '../store/port.ts';
import { hostStrategies, type HostOutput } from '../strategy/host.ts';
import type { InstantiatedStrategy } from '../strategy/instantiate.ts';
import type { PnlSnapshot, StrategyFill } from '../strategy/types.ts';
import type { NetEstimate } from './account-totals.ts';
import type { AttachedPlanBook } from './attached-plans.ts';
import type { CancelRequests } from './cancel-requests.ts';
import type { CloseCapper } from './close-cap.ts';
import type { EngineEvent } from './events.ts';
import type { IntentPipeline } from './intent-pipeline.ts';
import { Counters, engineMetrics, type EngineMetrics } from './metrics.ts';
import { OpenOrders } from './open-orders.ts';
import type { OrderUpdates } from './order-updates.ts';
import { Portfolio } from './portfolio.ts';
import type { RiskView } from './risk-view.ts';
import { instantiateStrategies, timerPulses } from './strategy-hosting.ts';
import type { TradingGuard } from './trading-guard.ts';
import { type TradingStateChange } from './trading-guard.ts';
import type { CancelAllResult, CancelScope, Engine, EngineDeps, EngineStartOptions } from './engine-types.ts';
import { Trampoline } from './trampoline.ts';
import { wireEngineParts } from './engine-parts.ts';

export type * from './engine-types.ts';

export function createEngine(deps: EngineDeps): Engine {
  return new EngineImpl(deps);
}

class EngineImpl implements Engine {
  readonly events$: Observable<EngineEvent>;
  readonly strategies: readonly InstantiatedStrategy[];
  readonly executor: Executor;

  readonly #deps: EngineDeps;
  readonly #log: Logger;
  readonly #clock: Clock;
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
  /** #checkDrawdown's scratch: the account's net PnL as a double (Portfolio.netEstimate). */
  readonly #estimate: NetEstimate = { net: 0, scale: 0 };
  /** Live orders, with their exposure kept summed for the risk gate. */
  readonly #open = new OpenOrders();
  readonly #guardian: TradingGuard;
  readonly #cancels: CancelRequests;
  readonly #updates: OrderUpdates;
  readonly #intents: IntentPipeline;
  #subscriptions: Subscription[] = [];
  #started = false;
  #failure: Error | undefined = undefined;
  readonly #keepProtectivePlans: boolean;
  readonly #attached: AttachedPlanBook;
  readonly #risk: RiskView;
  readonly #closes: CloseCapper;

  constructor(deps: EngineDeps) {
    this.#deps = deps;
    this.#log = deps.log;
    this.#clock = deps.clock;
    this.#keepProtectivePlans = deps.options?.killKeepsProtectivePlans ?? true;
    this.events$ = this.#events.asObservable();
    this.#trampoline = new Trampoline(() => this.executor.endOfTick());
    this.strategies = instantiateStrategies(deps, {
      latest: this.#latest,
      open: this.#open,
      portfolio: this.#portfolio,
      mark: this.#mark,
      tradingState: () => this.#guardian.state,
    });
    const parts = wireEngineParts(deps, {
      latest: this.#latest,
      open: this.#open,
      portfolio: this.#portfolio,
      counters: this.#counters,
      trampoline: this.#trampoline,
      orders: this.#orders,
      fills: this.#fills,
      strategyIds: new Set(this.strategies.map((s) => s.id)),
      emit: (e) => this.#emit(e),
      fail: (e) => this.#fail(e),
      checkDrawdown: () => this.#checkDrawdown(),
    });
    this.executor = parts.executor;
    this.#guardian = parts.guardian;
    this.#risk = parts.risk;
    this.#cancels = parts.cancels;
    this.#closes = parts.closes;
    this.#updates = parts.updates;
    this.#intents = parts.intents;
    this.#attached = parts.attached;
  }

  get failure(): Error | undefined {
    return this.#failure;
  }

  // ---- lifecycle -----------------------------------------------------------------------------------

  start(options: EngineStartOptions = {}): void {
    if (this.#started) throw new InvariantViolation('engine already started');
    this.#started = true;
    this.#updates.settleUnsent();
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
    const pulses = timerPulses(this.strategies, this.#deps.options?.timerPulseMs, this.#deps.scheduler, () =>
      this.#trampoline.run(() => this.#pulses.next(this.#clock.now())),
    );
    if (pulses !== undefined) this.#subscriptions.push(pulses);
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
      // Strategy timers listen to the pulses; without any, a tick sends none.
      if (this.#pulses.observed) this.#pulses.next(this.#clock.now());
      for (const t of tickers) this.#tickers.next(t);
    });
  }

  applyOrderEvents(events: readonly OrderEvent[]): void {
    this.#trampoline.run(() => {
      for (const e of events) this.#updates.apply(e);
    });
  }

  ordersChanged(orders: readonly Order[], fills: readonly StoredFill[] = []): void {
    this.#trampoline.run(() => {
      this.#updates.reconciled(orders, fills);
      this.#checkDrawdown();
    });
  }

  cancelAll(scope: CancelScope = {}): CancelAllResult {
    // Zero when called from inside a step: the cancels run after it (trampoline.ts).
    let result: CancelAllResult = { local: 0, requested: 0 };
    this.#trampoline.run(() => {
      result = this.#cancels.cancelAll(scope);
    });
    return result;
  }

  killSwitch(reason: string): void {
    this.#trampoline.run(() => {
      const k = engageKillSwitch();
      this.#tradingChanged(this.#guardian.set(k.state, `kill switch: ${reason}`));
      // Protective plans (stop-loss / take-profit of a position) stay unless told otherwise: the
      // positions they guard are still open after a kill, and the exchange holds them if we die.
      this.#cancels.cancelAll({ keepProtectivePlans: this.#keepProtectivePlans });
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
    return engineMetrics(this.#counters, this.executor, this.#guardian.state);
  }

  footprint(): Footprint {
    return {
      // Per symbol, per subscription, per rejection reason: none grows with the orders.
      latest: this.#latest.size,
      subscriptions: this.#subscriptions.length,
      rejectionReasons: Object.keys(this.#counters.rejections).length,
      ...combineFootprints({
        open: this.#open.footprint(),
        cancels: this.#cancels.footprint(),
        closes: this.#closes.footprint(),
        attached: this.#attached.footprint(),
        portfolio: this.#portfolio.footprint(),
        risk: this.#risk.footprint(),
        trampoline: this.#trampoline.footprint(),
        executor: this.executor.footprint(),
      }),
    };
  }

  // ---- strategy output, order events, trading state ------------------------------------------------

  #onHostOutput(out: HostOutput): void {
    if (this.#failure !== undefined) return;
    // Never throw inside an RxJS subscriber: a failure stops the engine and is reported by #fail.
    try {
      this.#intents.take(out);
    } catch (e) {
      this.#fail(e);
    }
  }

  readonly #mark = (symbol: SymbolId): Dec | undefined => this.#latest.get(symbol)?.last;
  /**
   * The same mark as its nearest double, without decoding it where the ticker already holds it (a
   * TickerView's `price` is Number() of the `last` text; any other Ticker converts its exact `last`).
   */
  readonly #markNumber = (symbol: SymbolId): number | undefined => {
    const t = this.#latest.get(symbol);
    return t === undefined ? undefined : t instanceof TickerView ? t.price : t.last.toNumber();
  };

  #checkDrawdown(): void {
    // Screened in doubles first (TradingGuard.surelyUnchanged): the exact account only when close.
    this.#portfolio.netEstimate(this.#markNumber, this.#estimate);
    if (this.#guardian.surelyUnchanged(this.#estimate)) return;
    this.#tradingChanged(this.#guardian.onNetPnl(this.#portfolio.accountNet(this.#mark)));
  }

  #tradingChanged(change: TradingStateChange | undefined): void {
    if (change === undefined) return;
    this.#log.warn(change, 'trading state changed');
    this.#emit({ kind: 'TradingStateChanged', at: this.#clock.now(), ...change });
  }

  // ---- start-up and plumbing -----------------------------------------------------------------------

  #emit(e: EngineEvent): void {
    this.#events.next(e);
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
