// Strategy output → close cap (a close larger than the closable size is shrunk or dropped: close-cap.ts) → risk gate → write-ahead → executor: every intent is journaled with its outcome; an approved placement gets its client_oid from the store's persisted sequence and is inserted as `created` BEFORE the executor sees it; cancels act only on the asking strategy's own orders.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import type { StrategyId } from '../core/ids.ts';
import type { Intent, PlaceIntent } from '../core/intents.ts';
import { newOrder } from '../core/order-reducer.ts';
import { isOpening, isTerminal, type Order } from '../core/orders.ts';
import { formatClientOid } from '../execution/client-oid.ts';
import type { Executor } from '../execution/executor.ts';
import { refuse, riskRefused, type RiskDecision } from '../risk/decision.ts';
import type { OrderStore } from '../store/port.ts';
import type { HostOutput } from '../strategy/host.ts';
import type { AttachedPlanBook } from './attached-plans.ts';
import type { CancelRequests } from './cancel-requests.ts';
import type { CloseCapper } from './close-cap.ts';
import type { EngineEvent } from './events.ts';
import type { Counters } from './metrics.ts';
import type { OpenOrders } from './open-orders.ts';
import type { OrderUpdates } from './order-updates.ts';
import type { RiskView } from './risk-view.ts';

export interface IntentPipelineDeps {
  readonly store: OrderStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly counters: Counters;
  readonly open: OpenOrders;
  readonly risk: RiskView;
  readonly cancels: CancelRequests;
  readonly closes: CloseCapper;
  readonly updates: OrderUpdates;
  readonly executor: Pick<Executor, 'submitPlacement'>;
  readonly emit: (e: EngineEvent) => void;
  readonly clientOidPrefix: string;
  /** A disabled strategy's live orders are canceled. */
  readonly cancelOnDisable: boolean;
  /** Where a placement's attached stop-loss / take-profit is written (with the order). */
  readonly attached: Pick<AttachedPlanBook, 'attach'>;
}

export class IntentPipeline {
  readonly #store: OrderStore;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #counters: Counters;
  readonly #open: OpenOrders;
  readonly #risk: RiskView;
  readonly #cancels: CancelRequests;
  readonly #closes: CloseCapper;
  readonly #updates: OrderUpdates;
  readonly #executor: Pick<Executor, 'submitPlacement'>;
  readonly #emit: (e: EngineEvent) => void;
  readonly #prefix: string;
  readonly #cancelOnDisable: boolean;
  readonly #attached: Pick<AttachedPlanBook, 'attach'>;

  constructor(deps: IntentPipelineDeps) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#counters = deps.counters;
    this.#open = deps.open;
    this.#risk = deps.risk;
    this.#cancels = deps.cancels;
    this.#closes = deps.closes;
    this.#updates = deps.updates;
    this.#executor = deps.executor;
    this.#emit = deps.emit;
    this.#prefix = deps.clientOidPrefix;
    this.#cancelOnDisable = deps.cancelOnDisable;
    this.#attached = deps.attached;
  }

  /** One output of the strategy host: an intent, or a strategy that was disabled. */
  take(out: HostOutput): void {
    this.#emit(out);
    if (out.kind === 'StrategyDisabled') {
      this.#counters.strategiesDisabled++;
      this.#log.warn({ strategy: out.strategy, reason: out.reason }, 'strategy disabled');
      if (this.#cancelOnDisable) for (const o of this.#ownOpen(out.strategy)) this.#cancels.request(o);
      return;
    }
    this.#counters.intents++;
    this.#handle(out.strategy, out.intent);
  }

  #handle(strategy: StrategyId, asked: Intent): void {
    const now = this.#clock.now();
    const { intent, decision } = this.#decide(strategy, asked, now);
    if (!decision.approved) {
      this.#counters.reject(decision.reason);
      this.#store.appendJournal({
        at: now,
        strategy,
        intent,
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
          intent,
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
          : this.#cancels.held(order);
        if (held !== undefined) {
          this.#emit({ kind: 'IntentIgnored', at: now, strategy, intent, reason: held });
          return;
        }
        this.#cancels.request(order);
        return;
      }
      case 'cancelAll':
        this.#store.appendJournal({ at: now, strategy, intent, outcome: 'approved' });
        for (const o of this.#ownOpen(strategy))
          if (intent.symbol === undefined || o.symbol === intent.symbol) this.#cancels.request(o);
        return;
    }
  }

  /**
   * The close cap first (a close is shrunk to what the venue will accept, or dropped), then the risk
   * gate on what is left: the gate weighs the order that would really be placed.
   */
  #decide(strategy: StrategyId, intent: Intent, now: number): { intent: Intent; decision: RiskDecision } {
    if (intent.kind !== 'place') return { intent, decision: this.#risk.decide(intent, now) };
    const capped = this.#closes.cap(strategy, intent);
    if (capped.kind === 'dropped') return { intent, decision: refuse('closable_size', capped.detail) };
    if (capped.kind === 'shrunk') {
      this.#emit({
        kind: 'CloseCapped',
        at: now,
        strategy,
        intent,
        size: capped.intent.size,
        closable: capped.closable,
      });
    }
    return { intent: capped.intent, decision: this.#risk.decide(capped.intent, now) };
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
        ...(intent.triggerPrice !== undefined ? { triggerPrice: intent.triggerPrice } : {}),
        ...(intent.tag !== undefined ? { tag: intent.tag } : {}),
        at: now,
      });
      store.insertOrder(o);
      if (intent.attach !== undefined) this.#attached.attach(clientOid, intent.attach);
      store.appendJournal({ at: now, strategy, intent, outcome: 'approved', clientOid });
      return o;
    });
    this.#risk.placed(now);
    this.#open.set(order);
    this.#counters.ordersCreated++;
    this.#emit({ kind: 'OrderCreated', at: now, order });
    this.#executor.submitPlacement({
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
      ...(order.triggerPrice !== undefined ? { triggerPrice: order.triggerPrice } : {}),
      // Position-reducing orders go first among placements.
      priority: isOpening(order.side) ? 0 : 1,
    });
    this.#updates.notifyOrder(order);
  }

  #ownOpen(strategy: StrategyId): Order[] {
    return [...this.#open.values()].filter((o) => o.strategy === strategy);
  }
}
