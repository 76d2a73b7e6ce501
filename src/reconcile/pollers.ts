// The reconciliation pollers: fills, order history and plan-order history, each read through the
// weight budget on injected timers (wall time live, virtual time in tests and backtests).
//
//   fills loop    every fills interval:   fills pages from the cursor        ─┐
//   history loop  every history interval: history rows per symbol            ─┼─► kernel ─► one commit ─► engine
//   reconcileOnce (recovery, shutdown):    fills + history in one round      ─┘
//   plan loop     every plan interval:     historyPlan windows (+ currentPlan while a plan of ours awaits
//                                          its outcome) ─► plan rows as order rows ─► kernel ─► commit
//                                          ─► engine; every row is also recorded (and shown)
//
// With a `shortcut` (the in-process simulator of a backtest), a loop's round whose reads could not
// answer differently from its last real round is not run, and a loop with nothing to find sleeps
// without a timer: the mechanism is SleepingLoops (./sleeping-loops.ts), which the loops ask before
// each round.
//
// Rules:
// - Rounds never overlap (one at a time, in call order), so each kernel run sees the store as the
//   previous round left it and commits cursors together with what they cover.
// - Intervals adapt (poll-interval.ts): fast while an order is in flight or unknown, normal while orders
//   rest, idle when nothing happened for a while. `nudge()` (an order was just created or became
//   unknown) pulls the next round forward to the fast interval.
// - A round that fails (after the read lane's own retries) changes nothing; the loop tries again at
//   its next interval. `status()` tells /ready how fresh the picture is.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import type { Footprint } from '../core/footprint.ts';
import { mapToObjects, NO_OBJECTS } from '../core/object-lists.ts';
import { RecentSet } from '../core/recent-set.ts';
import type { StrategyId, SymbolId } from '../core/ids.ts';
import type { Order } from '../core/orders.ts';
import type { PlanReport } from '../core/reports.ts';
import type { CancelTimer, Timers } from '../execution/timers.ts';
import type { OrderStore } from '../store/port.ts';
import {
  fetchCurrentPlans,
  fetchPlansOf,
  fetchFills,
  fetchHistory,
  fetchPlans,
  type ReadThrough,
  type ReconcilePort,
} from './fetch.ts';
import { planRowsAsReports } from './plan-rows.ts';
import { decodeFillsCursor, encodeFillsCursor, type FillsPagingConfig } from './fills-paging.ts';
import type { HistoryWindowConfig } from './history-window.ts';
import { decodePlanCursor, encodePlanCursor } from './plan-cursor.ts';
import type { PlanWindowConfig } from './plan-history-window.ts';
import type { Loop, RoundShortcut } from './round-shortcut.ts';
import { activityOf, pollInterval, type PollIntervals } from './poll-interval.ts';
import { logWarnings, runRound, type RoundResult } from './round.ts';
import { PLAN_CURSOR_META, SleepingLoops, watchedPlans } from './sleeping-loops.ts';

export type { RoundShortcut } from './round-shortcut.ts';

/** Meta keys (store) of the pollers' state. */
export const RECONCILE_META = {
  fillsCursor: 'reconcile.fillsCursor',
  planCursor: PLAN_CURSOR_META,
  /** Clock time of the last committed round that read order history (a full picture). */
  lastReconciledAt: 'reconcile.lastAt',
} as const;

export interface ReconcilerConfig {
  /** How long an unknown order may stay without a trace before it is declared lost. */
  readonly graceMs: number;
  /** Terminal orders updated this recently stay in the kernel input (late fills, mismatches). */
  readonly recentMs: number;
  readonly fills: { readonly intervals: PollIntervals; readonly paging: FillsPagingConfig };
  readonly history: { readonly intervals: PollIntervals; readonly window: HistoryWindowConfig };
  /** Absent: plan orders are not polled. */
  readonly plans?: { readonly intervalMs: number; readonly window: PlanWindowConfig };
}

export interface ReconcilerDeps {
  readonly store: OrderStore;
  readonly port: ReconcilePort;
  /** Budgeted reads at read priority (`engine.executor.read`). */
  readonly read: ReadThrough;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly log: Logger;
  readonly prefix: string;
  readonly strategies: readonly StrategyId[];
  /** Symbols watched for history and plan orders (the strategies' symbols). */
  readonly symbols: readonly SymbolId[];
  readonly config: ReconcilerConfig;
  /** After every committed round (tell the engine: `engine.ordersChanged(changed, fills)`). */
  readonly onRound?: (r: RoundResult) => void;
  /** A plan order seen for the first time (or whose status changed). */
  readonly onPlanOrder?: (p: PlanReport, firstSeen: boolean) => void;
  /** Skip rounds that cannot find anything (backtests on the in-process simulator). */
  readonly shortcut?: RoundShortcut;
}

export type RoundKind = 'fills' | 'history' | 'full';

/**
 * Foreign orders (without our client_oid prefix) are logged once each; this many are remembered, so
 * an account that also trades by hand does not grow the reconciler's memory (one forgotten long ago
 * and shown again is logged again).
 */
export const FOREIGN_SEEN_MAX = 4_096;

export interface ReconcilerStatus {
  /** Clock time of the last successful round of any kind. */
  readonly lastSuccessAt?: number;
  /** Clock time of the last successful round that read order history. */
  readonly lastFullAt?: number;
  readonly lastFailureAt?: number;
  readonly lastError?: string;
  readonly consecutiveFailures: number;
  readonly rounds: number;
  /** Rounds not sent because they could not find anything (RoundShortcut); not in `rounds`. */
  readonly skippedRounds: number;
}

export interface ReconcileOnceOptions {
  /** Read through something else than the budgeted lane (shutdown, after the executor stopped). */
  readonly read?: ReadThrough;
}

export class Reconciler {
  readonly #d: ReconcilerDeps;
  #queue: Promise<unknown> = Promise.resolve();
  #pending = 0;
  /** Loop ticks between their timer firing and their next round being scheduled. */
  #ticking = 0;
  #running = false;
  readonly #timers = new Map<Loop, { cancel: CancelTimer; due: number }>();
  #lastActivityAt: number | undefined;
  #lastSuccessAt: number | undefined;
  #lastFullAt: number | undefined;
  #lastFailureAt: number | undefined;
  #lastError: string | undefined;
  /** Failures since the last success, per kind of round (a fills success says nothing of history). */
  readonly #failures = new Map<string, number>();
  #rounds = 0;
  readonly #foreignSeen = new RecentSet<string>(FOREIGN_SEEN_MAX);
  /** Backtests on the in-process simulator: the rounds that cannot find anything (absent live). */
  readonly #sleep: SleepingLoops | undefined;

  constructor(deps: ReconcilerDeps) {
    this.#d = deps;
    const last = deps.store.getMeta(RECONCILE_META.lastReconciledAt);
    if (last !== undefined && /^\d+$/.test(last)) this.#lastFullAt = Number(last);
    this.#sleep =
      deps.shortcut === undefined
        ? undefined
        : new SleepingLoops(
            {
              store: deps.store,
              clock: deps.clock,
              symbols: deps.symbols,
              config: deps.config,
              running: () => this.#running,
              busy: () => this.#pending > 0,
              schedule: (loop, ms) => this.#schedule(loop, ms),
              intervalAt: (loop, statuses, at) => this.#intervalAt(loop, statuses, at),
              intervalOf: (loop, open) => this.#intervalOf(loop, open),
              roundSettled: (loop, at) => this.#roundSettled(loop, at),
            },
            deps.shortcut,
          );
  }

  /** Starts the loops (the first rounds run at once, in order fills, history, plans). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule('fills', 0);
    this.#schedule('history', 0);
    if (this.#d.config.plans !== undefined) this.#schedule('plans', 0);
  }

  /** Stops the loops; a round in progress finishes (await `whenIdle()` for it). */
  stop(): void {
    this.#sleep?.stop();
    this.#running = false;
    for (const t of this.#timers.values()) t.cancel();
    this.#timers.clear();
  }

  /**
   * Per loop (fills, history, plans) or kind of round: timers, failures, last real rounds, sleeping
   * loops; and the foreign orders already logged, at most FOREIGN_SEEN_MAX (core/footprint.ts).
   */
  footprint(): Footprint {
    return {
      timers: this.#timers.size,
      failures: this.#failures.size,
      ...(this.#sleep?.footprint() ?? { lastReal: 0, dormant: 0 }),
      foreignSeen: this.#foreignSeen.size,
    };
  }

  /** True while a round (or plan poll) is running or queued, or a loop has yet to schedule its next one. */
  get busy(): boolean {
    return this.#pending > 0 || this.#ticking > 0;
  }

  /** Resolves when no round is running or queued. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const q = this.#queue;
      await q.catch(() => undefined);
      if (q === this.#queue) return;
    }
  }

  /** Activity that needs settling soon (an order created or gone unknown): poll at the fast pace. */
  nudge(): void {
    // Rounds slept through before this activity keep the pace they had (they use #lastActivityAt).
    if (this.#running) this.wake({ work: true });
    this.#lastActivityAt = this.#d.clock.now();
    if (!this.#running) return;
    for (const loop of ['fills', 'history'] as const) {
      const t = this.#timers.get(loop);
      const fast = this.#d.config[loop].intervals.fastMs;
      if (t !== undefined && t.due > this.#d.clock.now() + fast) this.#schedule(loop, fast);
    }
  }

  /**
   * Backtests: charges the rounds the sleeping loops slept through up to now, and gives a loop its
   * timer back when its venue changed or `work` reaches the executor (SleepingLoops.wake). Call it
   * before anything else takes weight from the budget, so charges stay in time order.
   */
  wake(opts: { readonly work?: boolean } = {}): void {
    this.#sleep?.wake(opts);
  }

  /**
   * Backtests: every sleeping loop fell asleep at its venue's current version, so a wake now would
   * only charge the rounds they slept through, which may wait (SleepingLoops.asleepOnCurrentVenue).
   * True live (nothing sleeps).
   */
  asleepOnCurrentVenue(): boolean {
    return this.#sleep?.asleepOnCurrentVenue() ?? true;
  }

  /**
   * The most weight the rounds of skipped or sleeping loops can take in any `spanMs`
   * (SleepingLoops.skippedWeightBound); undefined live, or while a loop has no real round yet.
   */
  skippedWeightBound(spanMs: number): { readonly ip: number; readonly uid: number } | undefined {
    return this.#sleep?.skippedWeightBound(spanMs);
  }

  /** One complete round (fills and history), after any round in progress. Rejects when a read fails. */
  reconcileOnce(opts: ReconcileOnceOptions = {}): Promise<RoundResult> {
    return this.#exclusive(() => this.#round('full', opts.read ?? this.#d.read));
  }

  /** One plan-history poll (recorded in the store). */
  pollPlansOnce(opts: ReconcileOnceOptions = {}): Promise<number> {
    return this.#exclusive(() => this.#plans(opts.read ?? this.#d.read));
  }

  /** Rounds run so far (`status().rounds`, without building the status). */
  get rounds(): number {
    return this.#rounds;
  }

  status(): ReconcilerStatus {
    return {
      ...(this.#lastSuccessAt !== undefined ? { lastSuccessAt: this.#lastSuccessAt } : {}),
      ...(this.#lastFullAt !== undefined ? { lastFullAt: this.#lastFullAt } : {}),
      ...(this.#lastFailureAt !== undefined ? { lastFailureAt: this.#lastFailureAt } : {}),
      ...(this.#lastError !== undefined ? { lastError: this.#lastError } : {}),
      consecutiveFailures: Math.max(0, ...this.#failures.values()),
      rounds: this.#rounds,
      skippedRounds: this.#sleep?.skippedRounds ?? 0,
    };
  }

  // ---- loops -----------------------------------------------------------------------------------

  #schedule(loop: Loop, ms: number): void {
    this.#timers.get(loop)?.cancel();
    const due = this.#d.clock.now() + ms;
    const cancel = this.#d.timers.after(ms, () => {
      this.#timers.delete(loop);
      void this.#tick(loop);
    });
    this.#timers.set(loop, { cancel, due });
  }

  async #tick(loop: Loop): Promise<void> {
    if (!this.#running) return;
    // A round that would find nothing, while a wake could only charge, sleeps instead: the next wake
    // charges it at its own time (SleepingLoops.sleepThroughRound).
    if (this.#sleep?.sleepThroughRound(loop) === true) return;
    // Rounds of sleeping loops that fell due before this one are charged first (time order).
    this.wake();
    if (this.#sleep?.trySkip(loop) === true) return;
    // Counted as busy until the next round is scheduled: whoever waits for the pollers to settle
    // (virtual time) must not let time pass before the next interval starts from this round's end.
    this.#ticking++;
    try {
      await this.#exclusive(async () => {
        const noted = this.#sleep?.noting(loop, this.#d.read) ?? {
          read: this.#d.read,
          done: () => undefined,
        };
        if (loop === 'plans') {
          // A later plan round may be skipped while the venue is unchanged (plan revisions change it).
          await this.#plans(noted.read);
          noted.done();
        } else {
          await this.#round(loop, noted.read);
          noted.done();
        }
      });
    } catch {
      // Logged and counted by the round; the loop goes on.
    }
    try {
      if (this.#running && !this.#timers.has(loop) && this.#sleep?.sleepAfterRound(loop) !== true) {
        this.#schedule(loop, this.#intervalOf(loop));
      }
    } finally {
      this.#ticking--;
    }
  }

  /** A round settled without being sent (SleepingLoops): as fresh as a real round at `at`. */
  #roundSettled(loop: 'fills' | 'history', at: number): void {
    this.#lastSuccessAt = Math.max(this.#lastSuccessAt ?? at, at);
    if (loop === 'history') this.#lastFullAt = at;
  }

  #intervalOf(loop: Loop, open?: readonly Order[]): number {
    if (loop === 'plans') return this.#intervalAt(loop, NO_OBJECTS, this.#d.clock.now());
    const statuses = mapToObjects(open ?? this.#d.store.openOrders(), (o) => o.status);
    return this.#intervalAt(loop, statuses, this.#d.clock.now());
  }

  #intervalAt(loop: Loop, statuses: readonly Order['status'][], at: number): number {
    const cfg = this.#d.config;
    if (loop === 'plans') return cfg.plans?.intervalMs ?? 60_000;
    return pollInterval(activityOf(statuses, this.#lastActivityAt), cfg[loop].intervals, at);
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.#pending++;
    const run = this.#queue.then(fn, fn).finally(() => {
      this.#pending--;
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  // ---- rounds ----------------------------------------------------------------------------------

  async #round(kind: RoundKind, read: ReadThrough): Promise<RoundResult> {
    const d = this.#d;
    const cfg = d.config;
    const started = d.clock.now();
    try {
      const withFills = kind !== 'history';
      const withHistory = kind !== 'fills';
      const open = d.store.openOrders();
      const oldestOpenAt = open.length > 0 ? Math.min(...open.map((o) => o.createdAt)) : undefined;
      const meta: Record<string, string> = {};
      let fills: Awaited<ReturnType<typeof fetchFills>>['fills'] = [];
      if (withFills) {
        const cursor = decodeFillsCursor(d.store.getMeta(RECONCILE_META.fillsCursor));
        const got = await fetchFills(read, d.port, cursor, cfg.fills.paging, started, oldestOpenAt, d.log);
        fills = got.fills;
        meta[RECONCILE_META.fillsCursor] = encodeFillsCursor(got.cursor);
      }
      let reports: Awaited<ReturnType<typeof fetchHistory>>['reports'] = [];
      let coversSince = Number.POSITIVE_INFINITY;
      let coversSinceBySymbol: ReadonlyMap<SymbolId, number> | undefined;
      if (withHistory) {
        // Read the open orders again: the fills pages took time, orders may have been created since.
        const got = await fetchHistory(
          read,
          d.port,
          d.store.openOrders(),
          d.symbols,
          cfg.history.window,
          started,
        );
        reports = got.reports;
        coversSince = got.coversSince;
        coversSinceBySymbol = got.coversSinceBySymbol;
      }
      const now = d.clock.now();
      if (withHistory) meta[RECONCILE_META.lastReconciledAt] = String(now);
      const result = runRound(
        d.store,
        {
          fills,
          reports,
          coversSince: withHistory ? coversSince : now + 1,
          ...(withHistory && coversSinceBySymbol !== undefined ? { coversSinceBySymbol } : {}),
          meta,
        },
        {
          now,
          graceMs: cfg.graceMs,
          prefix: d.prefix,
          strategies: d.strategies,
          recentMs: cfg.recentMs,
          readHistory: withHistory,
        },
      );
      this.#succeeded(result, kind);
      return result;
    } catch (e) {
      this.#failed(kind, e);
      throw e;
    }
  }

  #succeeded(r: RoundResult, kind: RoundKind): void {
    this.#rounds++;
    if (kind !== 'history') this.#failures.delete('fills');
    if (kind !== 'fills') this.#failures.delete('history');
    this.#lastSuccessAt = r.at;
    if (kind !== 'fills') this.#lastFullAt = r.at;
    this.#reported(r);
  }

  /** What a committed round found, to the logs and the engine (order rounds and plan rounds alike). */
  #reported(r: RoundResult): void {
    const d = this.#d;
    logWarnings(d.log, r.warnings);
    for (const f of r.output.foreign) {
      if (!this.#foreignSeen.add(f.orderId)) continue;
      d.log.info(
        { orderId: f.orderId, clientOid: f.clientOid ?? null, symbol: f.symbol, status: f.status },
        'order at the exchange without our client_oid prefix: reported, never touched',
      );
    }
    for (const a of r.committed.anomalies) {
      d.log.warn({ clientOid: a.clientOid, event: a.event, anomaly: a.anomaly }, 'reconcile: order anomaly');
    }
    for (const a of r.output.adopted) {
      d.log.warn(
        { clientOid: a.clientOid, orderId: a.orderId, status: a.status },
        'adopted an order of ours found only at the exchange',
      );
    }
    if (r.committed.orphanEvents > 0)
      d.log.error(
        { count: r.committed.orphanEvents },
        'reconcile: events for orders in neither the output nor the store',
      );
    if (r.committed.changed.length > 0 || r.committed.fillsRecorded > 0) this.#lastActivityAt = r.at;
    // Orders changed under loops that sleep on (another loop's round found it): their pace from now
    // on follows the live orders as they are now, as a loop with a timer would read them.
    if (r.committed.changed.length > 0) this.#sleep?.restatus();
    d.onRound?.(r);
  }

  #failed(kind: string, e: unknown): void {
    const key = kind === 'full' ? 'history' : kind;
    const n = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, n);
    this.#lastFailureAt = this.#d.clock.now();
    this.#lastError = e instanceof Error ? e.message : String(e);
    // Once stopped (shutdown), a round cut short is expected: not worth a warning.
    const level = this.#running ? 'warn' : 'debug';
    this.#d.log[level](
      { err: e, round: kind, consecutiveFailures: n },
      'reconciliation round failed; retrying at the next interval',
    );
  }

  async #plans(read: ReadThrough): Promise<number> {
    const d = this.#d;
    const cfg = d.config.plans;
    if (cfg === undefined) return 0;
    const now = d.clock.now();
    this.#sleep?.savePlanCursor();
    try {
      const cursor = decodePlanCursor(d.store.getMeta(RECONCILE_META.planCursor));
      const got = await fetchPlans(read, d.port, d.symbols, cursor, cfg.window, now);
      // Our plans not known to have fired: those resting are in currentPlan; one that is not has
      // fired, been canceled or expired (or never arrived): its own row is read from historyPlan
      // around its creation (the windows walk by creation time, so a later window never shows a
      // plan that finishes long after it was placed).
      const watched = watchedPlans(this.#d.store);
      const current =
        watched.length > 0 ? await fetchCurrentPlans(read, d.port) : { plans: [], complete: true };
      const resting = new Set(
        current.plans.flatMap((p) => (p.clientOid !== undefined ? [p.orderId, p.clientOid] : [p.orderId])),
      );
      const gone = watched.filter(
        (o) => !resting.has(o.clientOid) && (o.orderId === undefined || !resting.has(o.orderId)),
      );
      const finished = await fetchPlansOf(read, d.port, gone, now);
      const seenAt = d.clock.now();
      const rows = [...current.plans, ...got.plans, ...finished.plans];
      const fresh: { plan: PlanReport; first: boolean }[] = [];
      d.store.transaction(() => {
        for (const p of rows) {
          // Asked row by row before recording it: a row read twice this round (currentPlan and a
          // history window) compares with what its first reading recorded.
          const before = d.store.planOrderStatus?.(p.orderId);
          d.store.recordPlanOrder?.(p, seenAt);
          if (before === undefined || before !== p.status)
            fresh.push({ plan: p, first: before === undefined });
        }
      });
      // The rows settle our plan orders through the kernel, in one commit with the cursor.
      const result = runRound(
        d.store,
        {
          fills: [],
          reports: planRowsAsReports(rows),
          // Each watched plan gone from currentPlan had its own historyPlan window around its
          // creation: only with both lists complete may one be declared lost.
          coversSince: current.complete && finished.complete ? finished.coversSince : seenAt + 1,
          meta: { [RECONCILE_META.planCursor]: encodePlanCursor(got.cursor) },
        },
        {
          now: seenAt,
          graceMs: d.config.graceMs,
          prefix: d.prefix,
          strategies: d.strategies,
          recentMs: d.config.recentMs,
          readHistory: current.complete && finished.complete,
          lostScope: 'plans',
        },
      );
      for (const { plan, first } of fresh) {
        d.log.debug(
          {
            orderId: plan.orderId,
            clientOid: plan.clientOid ?? null,
            symbol: plan.symbol,
            status: plan.status,
            type: plan.type,
            triggerPrice: plan.triggerPrice.toFixed(),
            size: plan.size.toFixed(),
          },
          first ? 'plan order seen' : 'plan order status changed',
        );
        d.onPlanOrder?.(plan, first);
      }
      this.#failures.delete('plans');
      this.#reported(result);
      return rows.length;
    } catch (e) {
      this.#failed('plans', e);
      throw e;
    }
  }
}
