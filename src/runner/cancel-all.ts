// Cancels every open order the engine knows (every strategy, adopted orders included), without
// touching the trading state: for `orders.cancelOnStart` and the cancel-on-exit of a shutdown. The
// kill switch (engine.killSwitch) is the other way, and it also HALTs trading.
//
// Same rules as the engine's own cancels: an order that never left (`created`, or withdrawn from the
// executor before it was sent) is canceled locally; any other gets CancelRequested (committed first),
// then one cancel_order through the executor's cancel lane (highest priority).
import type { Clock } from '../core/clock.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import type { Engine } from '../engine/engine.ts';
import type { Timers } from '../execution/timers.ts';
import { waitUntil } from './wait.ts';

export interface CancelAllResult {
  /** Orders canceled locally (never sent). */
  readonly local: number;
  /** cancel_order requests queued. */
  readonly requested: number;
}

export function cancelOpenOrders(
  engine: Engine,
  clock: Clock,
  filter: (o: Order) => boolean = () => true,
): CancelAllResult {
  let local = 0;
  let requested = 0;
  for (const o of engine.openOrders()) {
    if (isTerminal(o.status) || o.status === 'canceling' || !filter(o)) continue;
    const at = clock.now();
    if (engine.executor.withdraw(o.clientOid) || o.status === 'created') {
      engine.applyOrderEvents([
        { kind: 'OrderCanceled', clientOid: o.clientOid, at, reason: 'canceled before it was sent' },
      ]);
      local++;
      continue;
    }
    engine.applyOrderEvents([{ kind: 'CancelRequested', clientOid: o.clientOid, at }]);
    const now = engine.openOrders().find((x) => x.clientOid === o.clientOid);
    if (now?.status !== 'canceling') continue;
    engine.executor.submitCancel({
      symbol: now.symbol,
      clientOid: now.clientOid,
      ...(now.orderId !== undefined ? { orderId: now.orderId } : {}),
    });
    requested++;
  }
  return { local, requested };
}

/** Waits until no cancel is queued, in flight or waiting for a retry (or the deadline passes). */
export function cancelsSettled(engine: Engine, timers: Timers, deadlineMs: number): Promise<boolean> {
  return waitUntil(
    timers,
    () => {
      const d = engine.executor.depth();
      return d.cancels === 0 && d.inFlight === 0 && d.retrying === 0;
    },
    deadlineMs,
  );
}
