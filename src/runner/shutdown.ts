// The graceful stop of a run (SIGTERM/SIGINT, --duration-s, the end of a replayed recording):
//   1. no new tickers, no new reconciliation rounds; strategies stop (no new intents);
//   2. optionally every open order is canceled (orders never sent are canceled locally);
//   3. the executor drains what is queued (cancels first) until the drain deadline;
//   4. a last reconciliation round (straight to the venue: the executor has stopped), so the store
//      ends as close to the exchange as it can; repeated while an order still awaits its placement
//      outcome (its reply was lost: the venue's history may show it only a moment later), until the
//      deadline. Found by the crash test: an order whose reply was lost in the run's last half second
//      stayed `unknown` at exit while its fill sat in the store unattributed. Repeated too while an
//      order is `canceling`: the venue took its cancel but may still fill it, and only its history
//      says how it ended. With plan orders configured each round polls plan history first (issue
//      #18: a cancel_plan retried after a lost reply meets "does not exist" and leaves the plan
//      `untriggered` until plan rows say canceled).
// The store needs no flush: every commit was synchronous.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import { ENDPOINTS, type EndpointId } from '../core/endpoints.ts';
import type { ClientOid } from '../core/ids.ts';
import type { Order } from '../core/orders.ts';
import { OutcomeUnknownError, RateLimitedError, TransportError } from '../core/errors.ts';
import type { QueueDepth } from '../execution/executor.ts';
import type { CancelTimer, Timers } from '../execution/timers.ts';
import type { ReadThrough } from '../reconcile/fetch.ts';
import { mayBeLost } from '../reconcile/kernel.ts';
import type { CancelAllResult } from '../engine/engine.ts';
import type { Session } from './session.ts';
import type { TickerFeed } from './ticker-feed.ts';
import { delay } from './wait.ts';

export interface ShutdownDeps {
  readonly session: Session;
  readonly feed?: TickerFeed;
  /** The venue's clock (order events). */
  readonly clock: Clock;
  /** Wall clock and timers: deadlines are real time. */
  readonly wall: Clock;
  readonly timers: Timers;
  readonly log: Logger;
  readonly cancelOpenOrders: boolean;
  /** Protective plan orders stay resting when the open orders are canceled (orders.keepProtectivePlans). */
  readonly keepProtectivePlans?: boolean;
  readonly drainDeadlineMs: number;
  /** Pause between last rounds while an order awaits its placement outcome. Default 500 ms. */
  readonly unsettledRetryMs?: number;
}

export interface ShutdownReport {
  readonly canceled: CancelAllResult;
  /** What the executor still held at the deadline (unsent placements were rejected locally). */
  readonly left: QueueDepth;
  /**
   * 'unsettled': the first round succeeded, but some orders still awaited their outcome (or the
   * confirmation of their cancel) when the repeats stopped (the deadline came, or a repeat failed or
   * ran out of time).
   */
  readonly finalReconciliation: 'done' | 'unsettled' | 'failed' | 'timed-out';
  /** Orders still open in the store after the last round. */
  readonly openOrders: number;
  /** Orders whose placement outcome is still unknown (the next start settles them). */
  readonly unsettled: readonly ClientOid[];
}

/** `p`, or 'timed-out' after `ms`; the timer is canceled either way (it must not keep the process up). */
async function within<T>(timers: Timers, ms: number, p: Promise<T>): Promise<T | 'timed-out'> {
  let cancel: CancelTimer | undefined;
  const timeout = new Promise<'timed-out'>((resolve) => {
    cancel = timers.after(Math.max(0, ms), () => resolve('timed-out'));
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    cancel?.();
  }
}

/** Reads straight to the venue, retrying what a read may retry (429, transport, lost reply). */
function retryingRead(timers: Timers, attempts = 3, waitMs = 500): ReadThrough {
  return async <T>(_endpoint: Parameters<ReadThrough>[0], run: () => Promise<T>): Promise<T> => {
    for (let i = 1; ; i++) {
      try {
        return await run();
      } catch (e) {
        const retryable =
          e instanceof RateLimitedError || e instanceof TransportError || e instanceof OutcomeUnknownError;
        if (!retryable || i >= attempts) throw e;
        await delay(timers, e instanceof RateLimitedError ? Math.max(waitMs, e.retryAfterMs) : waitMs);
      }
    }
  };
}

export async function shutdown(d: ShutdownDeps): Promise<ShutdownReport> {
  const { engine, reconciler } = d.session;
  const deadline = d.wall.now() + d.drainDeadlineMs;
  const remaining = (): number => Math.max(0, deadline - d.wall.now());

  d.feed?.stop();
  reconciler.stop();
  engine.stop();
  // A round waiting for budget would hold everything up: its reads fail now (the last round below
  // reads again, straight from the venue).
  d.session.abortReads('shutting down');
  await within(d.timers, remaining(), reconciler.whenIdle());

  const canceled = d.cancelOpenOrders
    ? engine.cancelAll({ retryRefused: true, keepProtectivePlans: d.keepProtectivePlans ?? true })
    : { local: 0, requested: 0 };
  if (d.cancelOpenOrders) d.log.info(canceled, 'shutdown: canceling every open order');

  const left = await engine.shutdown(remaining());
  const unsent = left.cancels + left.placements + left.staged + left.inFlight;
  if (unsent > 0) d.log.warn({ left }, 'shutdown: the drain deadline passed with requests left');

  const finalReconciliation = await lastRounds(d, Math.max(remaining(), 5_000));
  const open = engine.openOrders();
  const openOrders = open.length;
  const unsettled = open.filter(mayBeLost).map((o) => o.clientOid);
  if (unsettled.length > 0) {
    d.log.warn(
      { count: unsettled.length, clientOids: unsettled },
      'shutdown: orders whose placement outcome is still unknown; the next start settles them',
    );
  }
  d.log.info({ canceled, left, finalReconciliation, openOrders }, 'shutdown: done');
  return { canceled, left, finalReconciliation, openOrders, unsettled };
}

/** What the last rounds wait for: a placement outcome, or the venue's word on a cancel it took. */
function awaitsVenue(o: Order): boolean {
  return mayBeLost(o) || o.status === 'canceling';
}

/**
 * Reconciliation rounds straight to the venue, within `budgetMs`: one, then more while an order awaits
 * its placement outcome (a lost reply; the venue's history may lag behind its own orders) or the
 * confirmation of its cancel (`canceling`: it may still fill).
 *
 * A repeat starts only when the time left holds the pause and another round as long as the last one.
 * These reads bypass the weight budget (the executor has stopped), so repeats are spaced to use at
 * most half of the budget's limits: they follow the drain's cancels, and others may share the
 * account.
 */
async function lastRounds(d: ShutdownDeps, budgetMs: number): Promise<ShutdownReport['finalReconciliation']> {
  const { engine, reconciler } = d.session;
  const deadline = d.wall.now() + budgetMs;
  const minPause = d.unsettledRetryMs ?? 500;
  // The configured budget (with its safety margin, and shrunk if a 429 came lately), per window.
  const limits = engine.executor.budgetUsage();
  for (let round = 0; ; round++) {
    const started = d.wall.now();
    const weight = { ip: 0, uid: 0 };
    try {
      const read = weighed(retryingRead(d.timers), weight);
      // Plans first (only plan rows settle a plan: a cancel_plan answered "does not exist" after a
      // lost reply, a plan awaiting its outcome), then fills and order history.
      const r = await within(
        d.timers,
        deadline - started,
        reconciler.pollPlansOnce({ read }).then(() => reconciler.reconcileOnce({ read })),
      );
      if (r === 'timed-out') return round === 0 ? 'timed-out' : 'unsettled';
    } catch (e) {
      d.log.warn({ err: e }, 'shutdown: the last reconciliation failed; the next start reconciles');
      return round === 0 ? 'failed' : 'unsettled';
    }
    if (!engine.openOrders().some(awaitsVenue)) return 'done';
    const took = d.wall.now() - started;
    const share = Math.max(weight.ip / limits.ip.limit, weight.uid / limits.uid.limit);
    const pause = Math.max(minPause, Math.ceil(2 * share * limits.windowMs) - took);
    if (deadline - d.wall.now() < pause + took) return 'unsettled';
    await delay(d.timers, pause);
  }
}

/** `read`, adding the weight of every attempt to `into`. */
function weighed(read: ReadThrough, into: { ip: number; uid: number }): ReadThrough {
  return <T>(endpoint: EndpointId, run: () => Promise<T>): Promise<T> =>
    read(endpoint, () => {
      into.ip += ENDPOINTS[endpoint].ipWeight;
      into.uid += ENDPOINTS[endpoint].uidWeight;
      return run();
    });
}
