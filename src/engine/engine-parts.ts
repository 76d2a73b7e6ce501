// The engine's parts, wired to each other: the executor, the trading guard, the risk view, cancels,
// the close capper, order updates, the intent pipeline and the attached-plan book. engine.ts keeps
// the lifecycle, the inputs and the views; what it shares with the parts (the latest tickers, the
// open orders, the portfolio, the counters, the trampoline, the strategies' order and fill streams,
// and its own emit / fail / drawdown check) comes in as EngineShared.
//
// Some parts call each other both ways (the executor reports order events to order updates, which
// is built after it): those calls go through closures that read the part once it exists, and none
// runs before this function returns.
import { InvariantViolation } from '../core/errors.ts';
import type { OrderEvent } from '../core/events.ts';
import type { SymbolId } from '../core/ids.ts';
import type { Ticker } from '../core/market.ts';
import type { Order } from '../core/orders.ts';
import { createBudget } from '../execution/budget.ts';
import { Executor } from '../execution/executor.ts';
import { schedulerTimers } from '../execution/timers.ts';
import { DEFAULT_RISK_LIMITS } from '../risk/limits.ts';
import { AttachedPlanBook } from './attached-plans.ts';
import { CancelRequests } from './cancel-requests.ts';
import { CloseCapper } from './close-cap.ts';
import type { EngineDeps } from './engine-types.ts';
import { IntentPipeline } from './intent-pipeline.ts';
import { OrderUpdates, type OrderUpdatesDeps } from './order-updates.ts';
import { RiskView } from './risk-view.ts';
import { TradingGuard } from './trading-guard.ts';

/**
 * What the engine owns and its parts use: the parts of order updates' dependencies that are the
 * engine's (its open orders, counters, portfolio, trampoline, the strategies' order and fill streams,
 * its emit / fail / drawdown check), and the latest tickers.
 */
export type EngineShared = Pick<
  OrderUpdatesDeps,
  | 'open'
  | 'counters'
  | 'portfolio'
  | 'trampoline'
  | 'orders'
  | 'fills'
  | 'strategyIds'
  | 'emit'
  | 'fail'
  | 'checkDrawdown'
> & { readonly latest: ReadonlyMap<SymbolId, Ticker> };

export interface EngineParts {
  readonly executor: Executor;
  readonly guardian: TradingGuard;
  readonly risk: RiskView;
  readonly cancels: CancelRequests;
  readonly closes: CloseCapper;
  readonly updates: OrderUpdates;
  readonly intents: IntentPipeline;
  readonly attached: AttachedPlanBook;
}

export function wireEngineParts(deps: EngineDeps, shared: EngineShared): EngineParts {
  const o = deps.options ?? {};
  const { open, counters, trampoline, emit } = shared;
  const limits = o.riskLimits ?? DEFAULT_RISK_LIMITS;
  const attached = new AttachedPlanBook(deps.store);
  // Built below; the closures that reach them run only once the engine runs.
  const late: { updates?: OrderUpdates; intents?: IntentPipeline } = {};
  const built = <T>(part: T | undefined, name: string): T => {
    if (part === undefined) throw new InvariantViolation(`engine: ${name} used before it was built`);
    return part;
  };
  const applyEvent = (e: OrderEvent): void => built(late.updates, 'order updates').apply(e);

  const executor = new Executor({
    port: deps.port,
    clock: deps.clock,
    timers: schedulerTimers(deps.scheduler),
    budget: createBudget(o.budget),
    ...(o.budgetGate !== undefined ? { budgetGate: o.budgetGate } : {}),
    onOrderEvent: applyEvent,
    atomically: (fn) => deps.store.transaction(fn),
    onFatal: shared.fail,
    log: deps.log.child({ component: 'executor' }),
    ...(o.executor !== undefined ? { options: o.executor } : {}),
  });
  const guardian = new TradingGuard(deps.store, limits, o.startingEquity);
  const risk = new RiskView({
    limits,
    portfolio: shared.portfolio,
    open,
    latest: shared.latest,
    guardian,
    store: deps.store,
    historyHeadroom: o.historyHeadroom,
  });
  const cancels = new CancelRequests({
    open,
    clock: deps.clock,
    counters,
    executor,
    applyEvent,
    cancelRetryMs: o.cancelRetryMs,
  });
  const closes = new CloseCapper({
    open,
    specs: deps.specs,
    position: (symbol) => risk.position(symbol),
    counters,
    log: deps.log,
  });

  /** An order whose attached stop-loss / take-profit fell due: placed as its strategy's intents. */
  const placeAttached = (order: Order): void => {
    // Called on every committed order change: nothing to do for almost all of them.
    if (!attached.mayBeDue(order)) return;
    // A trampoline step: the placements leave at its end, as a strategy's intents of a tick do.
    trampoline.run(() => {
      deps.store.transaction(() => {
        const at = deps.clock.now();
        for (const intent of attached.due(order))
          built(late.intents, 'the intent pipeline').take({
            kind: 'StrategyIntent',
            strategy: order.strategy,
            intent,
            at,
          });
      });
    });
  };

  const updates = new OrderUpdates({
    store: deps.store,
    clock: deps.clock,
    log: deps.log,
    open,
    counters,
    portfolio: shared.portfolio,
    trampoline,
    orders: shared.orders,
    fills: shared.fills,
    strategyIds: shared.strategyIds,
    cancels,
    closes,
    risk,
    emit,
    checkDrawdown: shared.checkDrawdown,
    fail: shared.fail,
    afterOrder: placeAttached,
  });
  const intents = new IntentPipeline({
    store: deps.store,
    clock: deps.clock,
    log: deps.log,
    counters,
    open,
    risk,
    cancels,
    closes,
    updates,
    executor,
    emit,
    clientOidPrefix: o.clientOidPrefix ?? 'cb',
    cancelOnDisable: o.cancelOnDisable ?? true,
    attached,
  });
  late.updates = updates;
  late.intents = intents;
  updates.restore();
  attached.restore(open.values());
  return { executor, guardian, risk, cancels, closes, updates, intents, attached };
}
