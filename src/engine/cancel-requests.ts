// Cancels of live orders: settled locally when the order never left, otherwise CancelRequested is committed and ONE cancel_order goes to the executor; the order then stays `canceling` (also once the venue answers `result: true`, CancelAccepted) until order history or fills show how it ended, and is not canceled again meanwhile; an order whose last cancel met "does not exist" is not re-canceled for cancelRetryMs (or until reconciliation changes it).
import { keptOnCancelAll } from '../core/intents.ts';
import type { Clock } from '../core/clock.ts';
import type { OrderEvent } from '../core/events.ts';
import type { Footprint } from '../core/footprint.ts';
import type { ClientOid } from '../core/ids.ts';
import { isTerminal, isUntriggeredPlan, type Order } from '../core/orders.ts';
import type { Executor } from '../execution/executor.ts';
import type { CancelAllResult, CancelScope } from './engine-types.ts';
import type { Counters } from './metrics.ts';
import type { OpenOrders } from './open-orders.ts';

/** The venue's "order does not exist" code (weex-facts.md §4.2), the answer to a cancel of a gone order. */
const ORDER_NOT_FOUND = '50005';

export interface CancelRequestsDeps {
  readonly open: OpenOrders;
  readonly clock: Clock;
  readonly counters: Counters;
  readonly executor: Pick<Executor, 'withdraw' | 'submitCancel'>;
  /** Applies an order event (reduce, commit, publish) before anything acts on it. */
  readonly applyEvent: (e: OrderEvent) => void;
  readonly cancelRetryMs: number | undefined;
}

export class CancelRequests {
  readonly #open: OpenOrders;
  readonly #clock: Clock;
  readonly #counters: Counters;
  readonly #executor: Pick<Executor, 'withdraw' | 'submitCancel'>;
  readonly #applyEvent: (e: OrderEvent) => void;
  readonly #retryMs: number;
  /** Orders whose last cancel met "does not exist", with the time: not re-canceled for a while. */
  readonly #refusedAt = new Map<ClientOid, number>();

  constructor(deps: CancelRequestsDeps) {
    this.#open = deps.open;
    this.#clock = deps.clock;
    this.#counters = deps.counters;
    this.#executor = deps.executor;
    this.#applyEvent = deps.applyEvent;
    this.#retryMs = deps.cancelRetryMs ?? 5_000;
  }

  /**
   * A committed event for the order: a "does not exist" refusal starts the hold, a change ends it.
   * Only a live order is held: the refusal of a cancel that raced the order's end (reconciliation
   * settled it while the cancel was out) would otherwise stay here for good, as nothing changes a
   * terminal order again to release it.
   */
  noteEvent(e: OrderEvent, changed: boolean): void {
    if (e.kind === 'CancelRejected' && e.code === ORDER_NOT_FOUND) {
      if (this.#open.get(e.clientOid) !== undefined) this.#refusedAt.set(e.clientOid, e.at);
    } else if (changed) this.#refusedAt.delete(e.clientOid);
  }

  /** Live orders whose cancel was refused lately (forgotten when they change or end): footprint.ts. */
  footprint(): Footprint {
    return { refusedAt: this.#refusedAt.size };
  }

  /** Reconciliation changed the order, or it ended: a refused cancel no longer holds it. */
  forget(clientOid: ClientOid): void {
    this.#refusedAt.delete(clientOid);
  }

  /**
   * Why a cancel of this live order is not sent now, or undefined when it would be: one was already
   * sent (in flight, or taken by the venue and awaiting its confirmation), or the exchange refused the last one ("does not exist") less than cancelRetryMs ago
   * (reconciliation settles the order meanwhile; the strategy may ask again after that).
   */
  held(order: Order): string | undefined {
    const current = this.#open.get(order.clientOid) ?? order;
    if (current.status === 'canceling')
      return 'a cancel of this order was already sent: it is canceling until the venue shows how it ended';
    const refusedAt = this.#refusedAt.get(current.clientOid);
    if (refusedAt === undefined) return undefined;
    const retryMs = this.#retryMs;
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
  request(order: Order, retryRefused = false): 'local' | 'requested' | undefined {
    const current = this.#open.get(order.clientOid) ?? order;
    if (isTerminal(current.status) || current.status === 'canceling') return undefined;
    const at = this.#clock.now();
    if (!retryRefused && this.held(current) !== undefined) return undefined;
    this.#counters.cancelsRequested++;
    // `created` never left (OrderSubmitted is committed before any request); a withdrawn placement
    // came back unsent (after a 429). Either way nothing is at the exchange: settle it here.
    if (this.#executor.withdraw(current.clientOid) || current.status === 'created') {
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
    this.#executor.submitCancel({
      symbol: updated.symbol,
      clientOid: updated.clientOid,
      // A plan not known to have fired is canceled with cancel_plan; its child with cancel_order.
      ...(isUntriggeredPlan(updated) ? { plan: true } : {}),
      ...(updated.orderId !== undefined ? { orderId: updated.orderId } : {}),
    });
    return 'requested';
  }

  /** Cancels every live order in `scope` (strategy, symbol; `retryRefused` ignores the hold). */
  cancelAll(scope: CancelScope): CancelAllResult {
    let local = 0;
    let requested = 0;
    for (const o of [...this.#open.values()]) {
      if (scope.strategy !== undefined && o.strategy !== scope.strategy) continue;
      if (scope.symbol !== undefined && o.symbol !== scope.symbol) continue;
      if (keptOnCancelAll(o, scope.keepProtectivePlans === true)) continue;
      const how = this.request(o, scope.retryRefused === true);
      if (how === 'local') local++;
      else if (how === 'requested') requested++;
    }
    return { local, requested };
  }
}
