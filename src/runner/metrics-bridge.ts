// Feeds the run's metrics (src/obs/metrics.ts) from what the engine and the pollers publish: engine
// events as they happen, reconciliation rounds as they commit, and a one-second sample of the budget,
// the queues, the order book by status and the PnL per strategy and symbol (folded from the stored
// fills, each once, marked at the latest tickers).
import { interval, type SchedulerLike, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Dec } from '../core/decimal.ts';
import type { StrategyId, SymbolId } from '../core/ids.ts';
import type { Ticker } from '../core/market.ts';
import type { OrderStatus } from '../core/orders.ts';
import { applyFill, EMPTY_BOOK, summarize, type Position, type PositionBook } from '../core/positions.ts';
import type { Engine } from '../engine/engine.ts';
import type { Metrics } from '../obs/metrics.ts';
import type { RoundResult } from '../reconcile/round.ts';
import type { OrderStore, StoredFill } from '../store/port.ts';

export class MetricsBridge {
  readonly #m: Metrics;
  readonly #engine: Engine;
  readonly #store: OrderStore;
  readonly #wall: Clock;
  readonly #subs: Subscription[] = [];
  #book: PositionBook = EMPTY_BOOK;
  readonly #marks = new Map<SymbolId, Dec>();

  constructor(metrics: Metrics, engine: Engine, store: OrderStore, wall: Clock) {
    this.#m = metrics;
    this.#engine = engine;
    this.#store = store;
    this.#wall = wall;
    for (const f of store.allFills()) this.#fold(f);
  }

  #fold(f: StoredFill): void {
    const order = f.clientOid !== undefined ? this.#store.getOrder(f.clientOid) : undefined;
    this.#book = applyFill(this.#book, {
      fill: f,
      ...(order !== undefined ? { strategy: order.strategy, orderSide: order.side } : {}),
    }).book;
  }

  /** The latest prices, for unrealised PnL. */
  tickers(tickers: readonly Ticker[]): void {
    for (const t of tickers) this.#marks.set(t.symbol, t.last);
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
      this.#fold(f);
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
    const mark = (s: SymbolId): Dec | undefined => this.#marks.get(s);
    // One book per (strategy, symbol); fills not attributed to a strategy get their own label.
    const groups = new Map<string, Map<string, Position>>();
    for (const [key, p] of this.#book) {
      const g = `${p.strategy ?? 'unattributed'}\u0000${p.symbol}`;
      const book = groups.get(g) ?? new Map<string, Position>();
      book.set(key, p);
      groups.set(g, book);
    }
    for (const [g, book] of groups) {
      const [strategy = 'unattributed', symbol = ''] = g.split('\u0000');
      const sum = summarize(book, mark);
      m.pnl(strategy, symbol, sum.realizedPnl, sum.unrealizedPnl);
    }
  }

  stop(): void {
    for (const s of this.#subs) s.unsubscribe();
    this.#subs.length = 0;
  }
}
