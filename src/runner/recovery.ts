// Restart recovery: before any strategy sees a ticker, the store's picture of every non-terminal order
// is reconciled with the exchange (ARCHITECTURE.md invariant 10).
//
// 1. The engine has loaded the store (open orders, positions from every stored fill, trading state);
//    client_oid sequences are persisted, so new orders continue after the last one ever issued.
// 2. One full reconciliation round (fills from the cursor — or far enough back to cover the oldest
//    open order — and history reaching back to it) settles what happened while we were down: orders
//    filled or canceled meanwhile, `unknown` ones found by client_oid, fills not yet recorded, orders
//    of ours missing from the store (adopted). With plan orders configured, a plan-history poll
//    comes first: only plan rows settle a plan order. It is retried until it succeeds or the attempts run out
//    (then start-up fails: trading on an unreconciled picture is what this module prevents).
// 3. An order still `submitted` was in flight when the process died: its outcome is now unknown and it
//    is settled like any unknown order (found by client_oid, or declared lost after the grace period).
//    An order still `created` never left (`submitted` is committed before a request is sent); the
//    engine rejects those locally when it starts.
//    An order still `canceling` had its cancel in flight (or not yet sent): the cancel is sent again
//    (cancels may be repeated; a second one answers "does not exist", which settles it too).
// 4. Optionally (orders.cancelOnStart) every open order is canceled, and reconciled once more.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import type { ClientOid } from '../core/ids.ts';
import type { OrderStatus } from '../core/orders.ts';
import type { Engine } from '../engine/engine.ts';
import type { Timers } from '../execution/timers.ts';
import type { Reconciler } from '../reconcile/pollers.ts';
import type { RoundResult } from '../reconcile/round.ts';
import type { OrderStore } from '../store/port.ts';
import { cancelsSettled } from './cancel-all.ts';
import { delay } from './wait.ts';

export interface RecoveryDeps {
  readonly engine: Engine;
  readonly reconciler: Reconciler;
  readonly store: OrderStore;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly log: Logger;
  readonly cancelOnStart: boolean;
  /** With cancelOnStart: protective plan orders stay resting (orders.keepProtectivePlans). Default true. */
  readonly keepProtectivePlans?: boolean;
  /** Attempts of the start-up reconciliation before giving up. Default 5. */
  readonly attempts?: number;
  /** Delay between attempts (doubles each time). Default 1000 ms. */
  readonly retryDelayMs?: number;
  /** How long start-up cancels may take. Default 10 000 ms. */
  readonly cancelDeadlineMs?: number;
  /** True once a stop was requested: no further attempt is made. */
  readonly stopping?: () => boolean;
}

export interface RecoveryReport {
  /** Non-terminal orders in the store before recovery, by status. */
  readonly openBefore: Readonly<Partial<Record<OrderStatus, number>>>;
  readonly round: RoundResult;
  /** Orders whose outcome is still unknown (found nowhere yet, within the grace period). */
  readonly unsettled: readonly ClientOid[];
  readonly canceled: { readonly local: number; readonly requested: number };
}

function countByStatus(statuses: readonly OrderStatus[]): Partial<Record<OrderStatus, number>> {
  const out: Partial<Record<OrderStatus, number>> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

export async function recover(d: RecoveryDeps): Promise<RecoveryReport> {
  const before = d.store.openOrders();
  const openBefore = countByStatus(before.map((o) => o.status));
  d.log.info(
    { open: before.length, byStatus: openBefore },
    'recovery: reconciling every non-terminal order before strategies start',
  );

  let round = await reconcileWithRetries(d);

  const at = d.clock.now();
  const inFlight = d.engine.openOrders().filter((o) => o.status === 'submitted');
  if (inFlight.length > 0) {
    d.engine.applyOrderEvents(
      inFlight.map((o) => ({
        kind: 'OrderOutcomeUnknown' as const,
        clientOid: o.clientOid,
        at,
        reason: 'the process stopped while the request was in flight',
      })),
    );
    d.log.warn(
      { count: inFlight.length, clientOids: inFlight.map((o) => o.clientOid) },
      'recovery: orders in flight at the crash are now unknown; reconciliation settles them',
    );
  }

  const canceling = d.engine.openOrders().filter((o) => o.status === 'canceling');
  for (const o of canceling) {
    d.engine.executor.submitCancel({
      symbol: o.symbol,
      clientOid: o.clientOid,
      ...(o.orderId !== undefined ? { orderId: o.orderId } : {}),
    });
  }
  if (canceling.length > 0) {
    d.log.warn(
      { count: canceling.length, clientOids: canceling.map((o) => o.clientOid) },
      'recovery: cancels in flight at the crash are sent again',
    );
  }

  let canceled = { local: 0, requested: 0 };
  if (d.cancelOnStart) {
    canceled = d.engine.cancelAll({ retryRefused: true, keepProtectivePlans: d.keepProtectivePlans ?? true });
    d.log.info(canceled, 'recovery: canceling every open order (orders.cancelOnStart)');
    if (!(await cancelsSettled(d.engine, d.timers, d.cancelDeadlineMs ?? 10_000))) {
      d.log.warn('recovery: start-up cancels did not all complete in time; reconciliation follows them');
    }
    round = await reconcileWithRetries(d);
  }

  const unsettled = d.engine
    .openOrders()
    .filter((o) => o.status === 'unknown' || o.status === 'submitted')
    .map((o) => o.clientOid);
  const after = countByStatus(d.engine.openOrders().map((o) => o.status));
  d.log.info(
    {
      byStatus: after,
      adopted: round.output.adopted.length,
      fillsRecorded: round.committed.fillsRecorded,
      unsettled: unsettled.length,
    },
    'recovery: done',
  );
  return { openBefore, round, unsettled, canceled };
}

async function reconcileWithRetries(d: RecoveryDeps): Promise<RoundResult> {
  const attempts = d.attempts ?? 5;
  let wait = d.retryDelayMs ?? 1_000;
  for (let i = 1; ; i++) {
    try {
      // Plans first: only plan rows settle a plan (its reply lost, or canceled or fired while the
      // runner was down), and its child's rows link to it only once its own id is known.
      await d.reconciler.pollPlansOnce();
      return await d.reconciler.reconcileOnce();
    } catch (e) {
      if (i >= attempts || d.stopping?.() === true) throw e;
      d.log.warn({ err: e, attempt: i, retryInMs: wait }, 'recovery: reconciliation failed; retrying');
      await delay(d.timers, wait);
      wait *= 2;
    }
  }
}
