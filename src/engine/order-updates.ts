// Order events → reducer → store → open-order index → strategies: each event is reduced and committed before anything acts on it, a fill is recorded once (by tradeId) and goes into the positions before its strategy sees it, and strategies hear of order changes as frozen copies inside a trampoline step.
import type { Logger } from 'pino';
import type { Subject } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { OrderEvent } from '../core/events.ts';
import { isProtectivePlan } from '../core/intents.ts';
import type { ClientOid, StrategyId } from '../core/ids.ts';
import { applyOrderEvent } from '../core/order-reducer.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import type { FillReport } from '../core/reports.ts';
import type { OrderStore, StoredFill } from '../store/port.ts';
import type { StrategyFill } from '../strategy/types.ts';
import type { CancelRequests } from './cancel-requests.ts';
import type { CloseCapper } from './close-cap.ts';
import type { EngineEvent } from './events.ts';
import { LOCAL_REJECTION_CODES, type Counters } from './metrics.ts';
import type { OpenOrders } from './open-orders.ts';
import type { Portfolio } from './portfolio.ts';
import type { RiskView } from './risk-view.ts';
import { strategyFill } from './strategy-fill.ts';
import type { Trampoline } from './trampoline.ts';
import { storedFill } from '../store/stored-fill.ts';

export interface OrderUpdatesDeps {
  readonly store: OrderStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly open: OpenOrders;
  readonly counters: Counters;
  readonly portfolio: Portfolio;
  readonly trampoline: Trampoline;
  /** Where strategies hear of their orders and fills. */
  readonly orders: Subject<Order>;
  readonly fills: Subject<StrategyFill>;
  /** The strategies this engine hosts (orders of others are tracked, not published). */
  readonly strategyIds: ReadonlySet<StrategyId>;
  readonly cancels: CancelRequests;
  /** Keeps count of the close orders whose fills are still in transit. */
  readonly closes: Pick<CloseCapper, 'track'>;
  readonly risk: RiskView;
  readonly emit: (e: EngineEvent) => void;
  /** The positions changed: the drawdown breaker weighs the account again. */
  readonly checkDrawdown: () => void;
  /** A committed order change, after the index and the strategies heard of it (attached plans). */
  readonly afterOrder?: (order: Order) => void;
  /** A store failure (or a bug) while applying: the engine stops instead of going on half-applied. */
  readonly fail: (error: unknown) => void;
}

export class OrderUpdates {
  readonly #store: OrderStore;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #open: OpenOrders;
  readonly #counters: Counters;
  readonly #portfolio: Portfolio;
  readonly #trampoline: Trampoline;
  readonly #orders: Subject<Order>;
  readonly #fills: Subject<StrategyFill>;
  readonly #strategyIds: ReadonlySet<StrategyId>;
  readonly #cancels: CancelRequests;
  readonly #closes: Pick<CloseCapper, 'track'>;
  readonly #risk: RiskView;
  readonly #emit: (e: EngineEvent) => void;
  readonly #checkDrawdown: () => void;
  readonly #fail: (error: unknown) => void;
  readonly #afterOrder: ((order: Order) => void) | undefined;

  constructor(deps: OrderUpdatesDeps) {
    this.#afterOrder = deps.afterOrder;
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#open = deps.open;
    this.#counters = deps.counters;
    this.#portfolio = deps.portfolio;
    this.#trampoline = deps.trampoline;
    this.#orders = deps.orders;
    this.#fills = deps.fills;
    this.#strategyIds = deps.strategyIds;
    this.#cancels = deps.cancels;
    this.#closes = deps.closes;
    this.#risk = deps.risk;
    this.#emit = deps.emit;
    this.#checkDrawdown = deps.checkDrawdown;
    this.#fail = deps.fail;
  }

  /** Open orders and positions from the store. */
  restore(): void {
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
    this.#risk.positionsChanged();
  }

  /**
   * Orders still `created` at start were never sent (OrderSubmitted is committed before a request
   * leaves): they are rejected locally, exactly.
   */
  settleUnsent(): void {
    const at = this.#clock.now();
    for (const o of [...this.#open.values()]) {
      if (o.status === 'created')
        this.apply({
          kind: 'OrderRejected',
          clientOid: o.clientOid,
          at,
          code: 'NOT_SENT',
          reason: 'found unsent at start-up',
        });
    }
  }

  /** Applies one event: reduce, commit, then publish. A failure stops the engine and is rethrown. */
  apply(e: OrderEvent): void {
    try {
      this.#apply(e);
    } catch (err) {
      // Rethrown: the executor must not act on an event the store did not take.
      this.#fail(err);
      throw err;
    }
  }

  #apply(e: OrderEvent): void {
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
        this.#store.recordFill(storedFill(e.fill, e.clientOid));
        if (r.changed) this.#store.updateOrder(r.order);
      });
    } else if (r.changed) {
      // A single statement is atomic (and committed) on its own: no transaction around it.
      this.#store.updateOrder(r.order);
    }
    this.#count(e);
    this.#cancels.noteEvent(e, r.changed);
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
    if (e.kind === 'OrderFilled') this.takeFill(e.fill, r.order);
    if (r.changed) this.orderUpdated(r.order);
  }

  /** Reconciliation's changes, already in the store: its fills first, then its orders. */
  reconciled(orders: readonly Order[], fills: readonly StoredFill[]): void {
    for (const f of fills) {
      const order =
        f.clientOid !== undefined
          ? (this.#open.get(f.clientOid) ?? this.#store.getOrder(f.clientOid))
          : undefined;
      this.takeFill(f, order);
    }
    for (const o of orders) {
      this.#cancels.forget(o.clientOid);
      this.orderUpdated(o);
    }
  }

  /** Keeps the open-order index and the strategies up to date with a committed order. */
  orderUpdated(order: Order): void {
    const before = this.#open.get(order.clientOid);
    this.#closes.track(order);
    if (isTerminal(order.status)) {
      this.#open.delete(order.clientOid);
      this.#cancels.forget(order.clientOid);
      if (before !== undefined) {
        if (order.status === 'canceled') this.#counters.ordersCanceled++;
        if (order.status === 'filled') this.#counters.ordersFilled++;
      }
    } else {
      this.#open.set(order);
    }
    this.notifyOrder(order);
    this.#afterOrder?.(order);
  }

  /**
   * Its strategy (when hosted here) hears of the order, as a frozen copy, when some strategy listens
   * to its orders: the same object `ctx.openOrders()` lists while the order is open (OpenOrders). A copy, not the engine's own object frozen in place: V8 spreads a frozen object
   * into the order's next revision about 7 times slower than an unfrozen one, and frozen and unfrozen
   * orders meeting at the same property reads make them polymorphic; freezing in place cost a
   * market maker's month 20 % more CPU (BENCHMARKS.md, 2026-11-27). The step still runs when nobody
   * listens: its end is where the executor's coalescing window closes (trampoline.ts).
   */
  notifyOrder(order: Order): void {
    if (!this.#strategyIds.has(order.strategy)) return;
    this.#trampoline.run(() => {
      if (this.#orders.observed) this.#orders.next(this.#open.viewOf(order));
    });
  }

  /** A fill recorded once in the store: into the positions, then to its strategy. */
  takeFill(fill: FillReport, order: Order | undefined): void {
    this.#counters.fills++;
    const skipped = this.#portfolio.applyFill(fill, order?.strategy, order?.side);
    this.#risk.positionsChanged();
    if (skipped !== undefined) this.#log.warn({ tradeId: fill.tradeId }, skipped);
    if (order !== undefined) this.#releaseProtection(order);
    if (order === undefined || !this.#strategyIds.has(order.strategy)) return;
    const sf = strategyFill(fill, order);
    this.#trampoline.run(() => this.#fills.next(sf));
    this.#checkDrawdown();
  }

  /**
   * A fill that leaves the strategy's leg flat makes its protective plans (stopLoss / takeProfit of
   * that leg) pointless: they are canceled, so a stop cannot later open or be refused against a
   * position that is gone (one-cancels-the-other, once a stop or a target has closed the leg).
   */
  #releaseProtection(order: Order): void {
    if (!this.#open.hasProtectivePlans()) return;
    const leg = order.side === 'open_long' || order.side === 'close_long' ? 'long' : 'short';
    if (this.#portfolio.position(order.strategy, order.symbol)[leg].gt(0)) return;
    const side = leg === 'long' ? 'close_long' : 'close_short';
    for (const o of [...this.#open.values()]) {
      if (
        o.clientOid !== order.clientOid &&
        o.strategy === order.strategy &&
        o.symbol === order.symbol &&
        o.side === side &&
        o.status === 'untriggered' &&
        isProtectivePlan(o)
      )
        this.#cancels.request(o);
    }
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
}
