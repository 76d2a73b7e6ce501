// Feeds the run's metrics (src/obs/metrics.ts) from what the engine and the pollers publish: engine
// events as they happen, reconciliation rounds as they commit, and a one-second sample of the budget,
// the queues, the order book by status and the PnL.
import { interval, type SchedulerLike, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { StrategyId } from '../core/ids.ts';
import type { OrderStatus } from '../core/orders.ts';
import type { Engine } from '../engine/engine.ts';
import type { Metrics } from '../obs/metrics.ts';
import type { RoundResult } from '../reconcile/round.ts';
import type { OrderStore } from '../store/port.ts';

export class MetricsBridge {
  readonly #m: Metrics;
  readonly #engine: Engine;
  readonly #store: OrderStore;
  readonly #wall: Clock;
  readonly #subs: Subscription[] = [];

  constructor(metrics: Metrics, engine: Engine, store: OrderStore, wall: Clock) {
    this.#m = metrics;
    this.#engine = engine;
    this.#store = store;
    this.#wall = wall;
  }

  start(scheduler: SchedulerLike, sampleMs = 1_000): void {
    const m = this.#m;
    this.#subs.push(
      this.#engine.events$.subscribe((e) => {
        if (e.kind === 'OrderCreated') m.intent(e.order.strategy, 'approved');
        else if (e.kind === 'RiskRefused') m.intent(e.strategy, 'refused');
        else if (e.kind === 'StrategyDisabled') m.strategyFailed(e.strategy);
        else if (e.kind === 'TradingStateChanged') m.tradingState(e.to);
      }),
    );
    this.#subs.push(interval(sampleMs, scheduler).subscribe(() => this.sample()));
    m.tradingState(this.#engine.tradingState());
    this.sample();
  }

  /** A committed reconciliation round: corrections, fills, the reconciliation time. */
  round(r: RoundResult): void {
    const m = this.#m;
    if (r.full) m.reconciled(this.#wall.now());
    for (const [kind, n] of Object.entries(r.corrections)) m.reconcileCorrection(kind, n);
    for (const f of r.fillsForEngine) {
      const strategy: StrategyId | undefined =
        f.clientOid !== undefined ? this.#store.getOrder(f.clientOid)?.strategy : undefined;
      m.fill(strategy ?? 'unknown', f.symbol, f.fee, f.value);
    }
  }

  sample(): void {
    const m = this.#m;
    const x = this.#engine.metrics();
    m.budget('ip', x.budget.ip.used, x.budget.ip.remaining);
    m.budget('uid', x.budget.uid.used, x.budget.uid.remaining);
    m.budget('orders', x.budget.orderRate.used, x.budget.orderRate.remaining);
    m.queueDepth(x.queue.cancels, 'cancel');
    m.queueDepth(x.queue.reads, 'read');
    m.queueDepth(x.queue.placements + x.queue.staged, 'place');
    const counts: Partial<Record<OrderStatus, number>> = {};
    for (const o of this.#engine.openOrders()) counts[o.status] = (counts[o.status] ?? 0) + 1;
    m.ordersByStatus(counts);
    m.unknownOrders(counts.unknown ?? 0);
    const pnl = this.#engine.pnl();
    m.pnl('all', 'all', pnl.realized, pnl.unrealized);
  }

  stop(): void {
    for (const s of this.#subs) s.unsubscribe();
    this.#subs.length = 0;
  }
}
