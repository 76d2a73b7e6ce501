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
// answer differently from its last real round is not run: see RoundShortcut.
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
import { ENDPOINTS, type EndpointCounts, type EndpointId, type UnsentReads } from '../core/endpoints.ts';
import { InvariantViolation } from '../core/errors.ts';
import type { Footprint } from '../core/footprint.ts';
import { RecentSet } from '../core/recent-set.ts';
import type { StrategyId, SymbolId } from '../core/ids.ts';
import { isUntriggeredPlan, type Order } from '../core/orders.ts';
import type { PlanReport } from '../core/reports.ts';
import type { CancelTimer, Timers } from '../execution/timers.ts';
import type { OrderStore } from '../store/port.ts';
import {
  CURRENT_PLAN_PAGE,
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
import {
  planHistoryQueries,
  type PlanCursor,
  type PlanPollPlan,
  type PlanWindowConfig,
} from './plan-history-window.ts';
import {
  addCounts,
  lastRound,
  mostPerSpan,
  roundRuns,
  roundsAfter,
  runsCount,
  type RoundRun,
} from './fast-forward.ts';
import {
  LOOP_ORDER,
  mergeCharges,
  sleptRounds,
  type Loop,
  type RoundShortcut,
  type SkippedReads,
  type SleptRound,
} from './round-shortcut.ts';
import { activityOf, pollInterval, type PollIntervals } from './poll-interval.ts';
import { logWarnings, runRound, type RoundResult } from './round.ts';

export type { RoundShortcut } from './round-shortcut.ts';

/** Meta keys (store) of the pollers' state. */
export const RECONCILE_META = {
  fillsCursor: 'reconcile.fillsCursor',
  planCursor: 'reconcile.planCursor',
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

const TICKERS_READ: readonly EndpointId[] = ['tickers'];

/**
 * Foreign orders (without our client_oid prefix) are logged once each; this many are remembered, so
 * an account that also trades by hand does not grow the reconciler's memory (one forgotten long ago
 * and shown again is logged again).
 */
export const FOREIGN_SEEN_MAX = 4_096;

/** Below this many requests, `wake` charges round by round (RoundShortcut.bulk is for long spells). */
const BULK_MIN_REQUESTS = 16;

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

interface Dormant {
  /** When its next round falls due. */
  due: number;
  /** The venue version when it fell asleep. */
  readonly version: number;
  /** The statuses of the live orders then (its interval depends on them; they cannot change asleep). */
  readonly statuses: readonly Order['status'][];
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
  #skipped = 0;
  /** Per loop: the venue version its last real round started at, and the reads it made. */
  readonly #lastReal = new Map<Loop, { readonly version: number; readonly reads: readonly EndpointId[] }>();
  /** Loops asleep without a timer (RoundShortcut.quiet): their next round's time and what they saw. */
  readonly #dormant = new Map<Loop, Dormant>();
  readonly #foreignSeen = new RecentSet<string>(FOREIGN_SEEN_MAX);
  /**
   * The plan cursor as skipped plan rounds moved it, not yet in the store: those rounds run many
   * times a minute of a backtest, and it is written once, before the next real plan poll or at stop.
   */
  #unsavedPlanCursor: PlanCursor | undefined;

  constructor(deps: ReconcilerDeps) {
    this.#d = deps;
    const last = deps.store.getMeta(RECONCILE_META.lastReconciledAt);
    if (last !== undefined && /^\d+$/.test(last)) this.#lastFullAt = Number(last);
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
    this.wake();
    this.#savePlanCursor();
    this.#dormant.clear();
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
      lastReal: this.#lastReal.size,
      dormant: this.#dormant.size,
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
   * Sleeping loops (RoundShortcut.quiet): charges every round that fell due up to now, each at its own
   * time and all loops' rounds in time order, as the skipped rounds they were (one call:
   * RoundShortcut.chargeUnsentRounds). A loop whose venue changed, or any loop when `work` reaches the
   * executor (a placement or a cancel: the venue is about to change), or whose round could not be
   * charged, gets its timer back; the others sleep on. Call it before anything else takes weight from
   * the budget, so charges stay in time order.
   */
  wake(opts: { readonly work?: boolean } = {}): void {
    const sc = this.#d.shortcut;
    if (sc === undefined) return;
    const deferred = sc.takeDeferred?.() ?? [];
    if (this.#dormant.size === 0 && deferred.length === 0) return;
    const now = this.#d.clock.now();
    const blocked = this.#bulkWake(now, deferred) ? new Set<Loop>() : this.#chargeEachRound(now, deferred);
    for (const [loop, d] of [...this.#dormant]) {
      const changed = opts.work === true || sc.venueVersion(loop) !== d.version || sc.quiet?.() !== true;
      if (!blocked.has(loop) && !changed) continue;
      this.#dormant.delete(loop);
      if (this.#running) this.#schedule(loop, Math.max(0, d.due - now));
    }
  }

  /**
   * `wake`'s charges round by round: every round slept through, merged in time order with the
   * deferred reads, in one `chargeUnsentRounds` call. Returns the loops whose round a window refused
   * (they run it for real).
   */
  #chargeEachRound(now: number, deferred: readonly UnsentReads[]): Set<Loop> {
    const sc = this.#d.shortcut;
    const { rounds, blocked } = sleptRounds(
      [...this.#dormant].map(([loop, d]) => ({ loop, due: d.due })),
      now,
      (loop, at, cursor) => this.#skippedReads(loop, at, cursor),
      (loop, at) => this.#intervalAt(loop, this.#dormant.get(loop)?.statuses ?? [], at),
    );
    const charges = mergeCharges(rounds, deferred);
    const taken =
      sc === undefined || charges.length === 0
        ? 0
        : sc.chargeUnsentRounds(charges.map((c) => ('round' in c ? c.round : c.deferred)));
    let roundsTaken = 0;
    charges.forEach((c, i) => {
      if ('round' in c) {
        if (i < taken) roundsTaken++;
      } else if (i >= taken) {
        // A deferred read was taken only where no window could refuse it: one refused is a bug.
        throw new InvariantViolation('reconcile: a deferred read was refused by a weight window');
      }
    });
    this.#settleSlept(rounds, roundsTaken, blocked);
    return blocked;
  }

  /**
   * `wake`'s charges in closed form (RoundShortcut.bulk, fast-forward.ts): per sleeping loop, its
   * rounds up to now as runs of equal intervals; every request counted, those of the last span
   * listed for the windows. The same charges, in the same windows, as round by round. False (nothing
   * done) when the venue cannot take them so, or a plan loop is still catching up (its rounds then
   * read differing windows).
   */
  #bulkWake(now: number, deferred: readonly UnsentReads[]): boolean {
    const sc = this.#d.shortcut;
    const bulk = sc?.bulk;
    if (bulk === undefined) return false;
    let due = false;
    // Roughly how many requests fell due (each loop at its quickest pace): a short pass is charged
    // round by round, which costs less than proving a bulk pass safe (the choice changes no charge).
    let most = deferred.length;
    for (const [loop, d] of this.#dormant) {
      if (d.due > now) continue;
      due = true;
      const reads =
        loop === 'plans' ? this.#d.symbols.length * 4 : (this.#lastReal.get(loop)?.reads.length ?? 1);
      most += (Math.floor((now - d.due) / this.#quickestMs(loop)) + 1) * Math.max(1, reads);
    }
    if (!due && deferred.length === 0) return true; // nothing fell due: nothing to charge
    if (most < BULK_MIN_REQUESTS) return false;
    const roundsBound = this.skippedWeightBound(bulk.spanMs);
    if (roundsBound === undefined) return false;
    const counts: EndpointCounts = {};
    const loops: {
      loop: Loop;
      d: Dormant;
      runs: RoundRun[];
      each: readonly EndpointId[];
      first?: PlanPollPlan;
    }[] = [];
    for (const [loop, d] of this.#dormant) {
      const runs = roundRuns(d.due, now, (at) => this.#intervalAt(loop, d.statuses, at));
      const n = runsCount(runs);
      if (n === 0) continue;
      if (loop !== 'plans') {
        const each = this.#lastReal.get(loop)?.reads;
        if (each === undefined) return false;
        addCounts(counts, each, n);
        loops.push({ loop, d, runs, each });
        continue;
      }
      const cfg = this.#d.config.plans;
      if (cfg === undefined) return false;
      const from =
        this.#unsavedPlanCursor ?? decodePlanCursor(this.#d.store.getMeta(RECONCILE_META.planCursor));
      const first = planHistoryQueries(this.#d.symbols, from, cfg.window, d.due);
      // Steady from the second round on: caught up, each later round reads one window per symbol.
      const caughtUp = this.#d.symbols.every((sym) => first.cursorAfter[sym] === d.due);
      const longest = Math.max(...runs.map((r) => r.interval));
      if (n > 1 && (!caughtUp || longest + cfg.window.overlapMs > cfg.window.maxWindowMs)) return false;
      const watch = this.#watchReads();
      const each = [
        ...new Array<EndpointId>(this.#d.symbols.length * Math.max(1, cfg.window.delegateTypes.length)).fill(
          'historyPlan',
        ),
        ...watch,
      ];
      const firstReads = [...first.queries.map((): EndpointId => 'historyPlan'), ...watch];
      addCounts(counts, firstReads);
      addCounts(counts, each, n - 1);
      loops.push({ loop, d, runs, each, first });
    }
    addCounts(counts, TICKERS_READ, deferred.length);
    const lasts = loops.map((l) => lastRound(l.runs) ?? Number.NEGATIVE_INFINITY);
    const last = Math.max(deferred[deferred.length - 1]?.at ?? Number.NEGATIVE_INFINITY, ...lasts);
    if (last === Number.NEGATIVE_INFINITY) return true; // nothing fell due
    const after = last - bulk.spanMs;
    const tail: { at: number; rank: number; endpoints: readonly EndpointId[] }[] = [];
    for (const l of loops) {
      const firstAt = l.runs[0]?.start;
      for (const at of roundsAfter(l.runs, after)) {
        const endpoints =
          l.first !== undefined && at === firstAt
            ? [...l.first.queries.map((): EndpointId => 'historyPlan'), ...this.#watchReads()]
            : l.each;
        tail.push({ at, rank: LOOP_ORDER[l.loop], endpoints });
      }
    }
    for (const r of deferred) if (r.at > after) tail.push({ at: r.at, rank: 3, endpoints: r.endpoints });
    tail.sort((a, b) => a.at - b.at || a.rank - b.rank);
    const taken = bulk.charge({
      counts,
      tail,
      roundsBound,
      deferredPerSpan: mostPerSpan(
        deferred.map((r) => r.at),
        bulk.spanMs,
      ),
    });
    if (!taken) return false;
    for (const l of loops) {
      const at = lastRound(l.runs);
      if (at === undefined) continue;
      this.#skipped += runsCount(l.runs);
      if (l.loop !== 'plans') {
        this.#lastSuccessAt = Math.max(this.#lastSuccessAt ?? at, at);
        if (l.loop === 'history') this.#lastFullAt = at;
      } else if (l.first !== undefined) {
        const cursor: Record<string, number> = { ...l.first.cursorAfter };
        if (runsCount(l.runs) > 1) for (const sym of this.#d.symbols) cursor[sym] = at;
        this.#unsavedPlanCursor = cursor;
      }
      l.d.due = at + Math.max(1, this.#intervalAt(l.loop, l.d.statuses, at));
    }
    return true;
  }

  /** The shortest interval a loop can poll at. */
  #quickestMs(loop: Loop): number {
    const cfg = this.#d.config;
    if (loop === 'plans') return Math.max(1, cfg.plans?.intervalMs ?? 60_000);
    const i = cfg[loop].intervals;
    return Math.max(1, Math.min(i.fastMs, i.normalMs, i.idleMs));
  }

  /** Marks the first `charged` slept rounds done; a loop whose round was refused runs it for real. */
  #settleSlept(rounds: readonly SleptRound[], charged: number, blocked: Set<Loop>): void {
    for (let i = 0; i < rounds.length; i++) {
      const r = rounds[i];
      const d = r !== undefined ? this.#dormant.get(r.loop) : undefined;
      if (r === undefined || d === undefined) continue;
      if (i < charged) {
        this.#countSkipped(r.loop, r.at, r.planCursor);
        d.due = r.next;
      } else if (!blocked.has(r.loop)) {
        // Not charged (a weight window refused it): the loop runs it for real, from this time on.
        blocked.add(r.loop);
        d.due = r.at;
      }
    }
  }

  /**
   * The most weight the rounds of skipped or sleeping loops can take in any `spanMs`: each loop at its
   * quickest interval, each round with the reads of its last real round (plan polls: every window of
   * every symbol). The budget a driver may count on having spent when it defers reads (DeferredReads).
   * Undefined while a loop has no real round yet (its next round runs for real).
   */
  skippedWeightBound(spanMs: number): { readonly ip: number; readonly uid: number } | undefined {
    const cfg = this.#d.config;
    let ip = 0;
    let uid = 0;
    const add = (intervalMs: number, endpoints: readonly EndpointId[]): void => {
      const rounds = Math.floor(spanMs / Math.max(1, intervalMs)) + 1;
      for (const e of endpoints) {
        ip += rounds * ENDPOINTS[e].ipWeight;
        uid += rounds * ENDPOINTS[e].uidWeight;
      }
    };
    // A sleeping loop keeps its pace or slows down (its orders cannot change while it sleeps): its
    // quickest is the pace at its next round or now, whichever is earlier (rounds still to charge
    // included). Any other loop may poll at its quickest.
    const now = this.#d.clock.now();
    const paceOf = (loop: Loop): number => {
      const d = this.#dormant.get(loop);
      return d === undefined
        ? this.#quickestMs(loop)
        : Math.max(1, this.#intervalAt(loop, d.statuses, Math.min(d.due, now)));
    };
    for (const loop of ['fills', 'history'] as const) {
      const last = this.#lastReal.get(loop);
      if (last === undefined) return undefined;
      add(paceOf(loop), last.reads);
    }
    if (cfg.plans !== undefined) {
      const w = cfg.plans.window;
      const perRound =
        this.#d.symbols.length * Math.max(1, w.maxWindows) * Math.max(1, w.delegateTypes.length);
      add(cfg.plans.intervalMs, new Array<EndpointId>(perRound).fill('historyPlan'));
    }
    return { ip, uid };
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
      skippedRounds: this.#skipped,
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
    // Rounds of sleeping loops that fell due before this one are charged first (time order).
    this.wake();
    const open = this.#skip(loop);
    if (open !== undefined) {
      const ms = this.#intervalOf(loop, open);
      const sc = this.#d.shortcut;
      if (sc?.quiet?.() === true) {
        const statuses = open.map((o) => o.status);
        this.#dormant.set(loop, { due: this.#d.clock.now() + ms, version: sc.venueVersion(loop), statuses });
      } else {
        this.#schedule(loop, ms);
      }
      return;
    }
    // Counted as busy until the next round is scheduled: whoever waits for the pollers to settle
    // (virtual time) must not let time pass before the next interval starts from this round's end.
    this.#ticking++;
    try {
      await this.#exclusive(async () => {
        const noted = this.#noting(loop, this.#d.read);
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
      if (this.#running && !this.#timers.has(loop) && !this.#sleepAfterRound(loop)) {
        this.#schedule(loop, this.#intervalOf(loop));
      }
    } finally {
      this.#ticking--;
    }
  }

  /**
   * After a real round: sleeps at once (RoundShortcut.quiet) when its next round would be skipped and
   * the loop would fall asleep there anyway: the venue is quiet and unchanged since the round started
   * (its next round's reads would answer the same) and every live order has its exchange id. That
   * next round is then charged by `wake` at its own time, as the skipped round it would have been, and
   * a change meanwhile gives the loop its timer back, exactly as it would a loop that fell asleep at
   * that round. One timer instant fewer per loop per round that found something.
   */
  #sleepAfterRound(loop: Loop): boolean {
    const sc = this.#d.shortcut;
    const last = this.#lastReal.get(loop);
    if (sc?.quiet === undefined || last === undefined || this.#pending > 0) return false;
    if (sc.venueVersion(loop) !== last.version || !sc.quiet()) return false;
    const open = this.#d.store.openOrders();
    if (open.some((o) => o.orderId === undefined)) return false;
    const statuses = open.map((o) => o.status);
    const due = this.#d.clock.now() + this.#intervalOf(loop, open);
    this.#dormant.set(loop, { due, version: last.version, statuses });
    return true;
  }

  #intervalOf(loop: Loop, open?: readonly Order[]): number {
    if (loop === 'plans') return this.#intervalAt(loop, [], this.#d.clock.now());
    const statuses = (open ?? this.#d.store.openOrders()).map((o) => o.status);
    return this.#intervalAt(loop, statuses, this.#d.clock.now());
  }

  #intervalAt(loop: Loop, statuses: readonly Order['status'][], at: number): number {
    const cfg = this.#d.config;
    if (loop === 'plans') return cfg.plans?.intervalMs ?? 60_000;
    return pollInterval(activityOf(statuses, this.#lastActivityAt), cfg[loop].intervals, at);
  }

  /**
   * Skips this loop's round when RoundShortcut allows it (returning the live orders it looked at),
   * else returns undefined and the round runs.
   */
  #skip(loop: Loop): readonly Order[] | undefined {
    const sc = this.#d.shortcut;
    const last = this.#lastReal.get(loop);
    if (sc === undefined || last === undefined || this.#pending > 0) return undefined;
    if (sc.venueVersion(loop) !== last.version) return undefined;
    const open = this.#d.store.openOrders();
    if (open.some((o) => o.orderId === undefined)) return undefined;
    return this.#chargeSkipped(loop) ? open : undefined;
  }

  /** Charges the reads of one skipped round of `loop` now; false when they could not be charged. */
  #chargeSkipped(loop: Loop): boolean {
    const sc = this.#d.shortcut;
    const now = this.#d.clock.now();
    const reads = this.#skippedReads(loop, now);
    if (sc === undefined || reads === undefined || !sc.chargeUnsent(reads.endpoints)) return false;
    this.#countSkipped(loop, now, reads.planCursor);
    return true;
  }

  /**
   * The reads of one skipped round of `loop` at `at`: those of its last real round; for plan polls,
   * the windows due from the cursor (`cursor`, default the current one), which then moves on as a real
   * empty poll moves it. Undefined when they are not known.
   */
  #skippedReads(loop: Loop, at: number, cursor?: PlanCursor): SkippedReads | undefined {
    const last = this.#lastReal.get(loop);
    if (this.#d.shortcut === undefined || last === undefined) return undefined;
    if (loop !== 'plans') return { endpoints: last.reads };
    const cfg = this.#d.config.plans;
    if (cfg === undefined) return undefined;
    const from =
      cursor ?? this.#unsavedPlanCursor ?? decodePlanCursor(this.#d.store.getMeta(RECONCILE_META.planCursor));
    const plan = planHistoryQueries(this.#d.symbols, from, cfg.window, at);
    return {
      endpoints: [...plan.queries.map((): EndpointId => 'historyPlan'), ...this.#watchReads()],
      planCursor: plan.cursorAfter,
    };
  }

  /** Our plan orders not known to have fired (sent, not finished): what a plan round watches. */
  #watchedPlans(): Order[] {
    return this.#d.store.openOrders().filter((o) => isUntriggeredPlan(o) && o.status !== 'created');
  }

  /**
   * The currentPlan pages a plan round reads while it watches plans (a real round reads pages until
   * one is not full). A skipped round finds every watched plan still there: no targeted history read.
   */
  #watchReads(): EndpointId[] {
    const n = this.#watchedPlans().length;
    return n === 0 ? [] : new Array<EndpointId>(Math.floor(n / CURRENT_PLAN_PAGE) + 1).fill('currentPlan');
  }

  /** Records a skipped round of `loop` at `at` as done (its reads were charged). */
  #countSkipped(loop: Loop, at: number, planCursor?: PlanCursor): void {
    if (planCursor !== undefined) this.#unsavedPlanCursor = planCursor;
    this.#skipped++;
    if (loop !== 'plans') {
      this.#lastSuccessAt = at;
      if (loop === 'history') this.#lastFullAt = at;
    }
  }

  /** Wraps `read` to note the endpoints a loop's round reads, and the venue version it started at. */
  #noting(loop: Loop, read: ReadThrough): { read: ReadThrough; done: () => void } {
    const sc = this.#d.shortcut;
    if (sc === undefined) return { read, done: () => undefined };
    this.#lastReal.delete(loop);
    const version = sc.venueVersion(loop);
    const reads: EndpointId[] = [];
    return {
      read: (endpoint, run) => {
        reads.push(endpoint);
        return read(endpoint, run);
      },
      done: () => this.#lastReal.set(loop, { version, reads }),
    };
  }

  /** Writes the cursor that skipped plan rounds moved (before a real plan poll reads it, and at stop). */
  #savePlanCursor(): void {
    if (this.#unsavedPlanCursor === undefined) return;
    this.#d.store.setMeta(RECONCILE_META.planCursor, encodePlanCursor(this.#unsavedPlanCursor));
    this.#unsavedPlanCursor = undefined;
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
    this.#savePlanCursor();
    try {
      const cursor = decodePlanCursor(d.store.getMeta(RECONCILE_META.planCursor));
      const got = await fetchPlans(read, d.port, d.symbols, cursor, cfg.window, now);
      // Our plans not known to have fired: those resting are in currentPlan; one that is not has
      // fired, been canceled or expired (or never arrived): its own row is read from historyPlan
      // around its creation (the windows walk by creation time, so a later window never shows a
      // plan that finishes long after it was placed).
      const watched = this.#watchedPlans();
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
      const known = new Map((d.store.planOrders?.() ?? []).map((p) => [p.orderId, p.status]));
      const fresh: { plan: PlanReport; first: boolean }[] = [];
      d.store.transaction(() => {
        for (const p of rows) {
          d.store.recordPlanOrder?.(p, seenAt);
          const before = known.get(p.orderId);
          if (before === undefined || before !== p.status)
            fresh.push({ plan: p, first: before === undefined });
          known.set(p.orderId, p.status);
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
