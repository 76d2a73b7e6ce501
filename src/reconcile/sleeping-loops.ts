// The backtest's discrete events for the reconciliation loops: rounds against the in-process
// simulator that could not find anything are not sent but charged (RoundShortcut, ./round-shortcut.ts),
// and a loop with nothing to find sleeps without a timer until `wake`, which charges every round it
// slept through at its own time, in closed form where no weight window can refuse them
// (./fast-forward.ts). One mechanism in one place: the pollers (./pollers.ts) only ask it whether a
// round may be skipped, let it note the reads of their real rounds, and wake it before anything else
// takes weight from the budget. Without a shortcut (live, paper over HTTP) there is none of this.
import type { Clock } from '../core/clock.ts';
import { ENDPOINTS, type EndpointCounts, type EndpointId, type UnsentReads } from '../core/endpoints.ts';
import { InvariantViolation } from '../core/errors.ts';
import type { Footprint } from '../core/footprint.ts';
import type { SymbolId } from '../core/ids.ts';
import { joinObjects, mapToDoubles, mapToObjects, NO_OBJECTS, objectList } from '../core/object-lists.ts';
import { isUntriggeredPlan, type Order } from '../core/orders.ts';
import { sortInPlace } from '../core/small-sort.ts';
import type { OrderStore } from '../store/port.ts';
import { CURRENT_PLAN_PAGE, type ReadThrough } from './fetch.ts';
import {
  addCounts,
  lastRound,
  mostPerSpan,
  roundRuns,
  roundsAfter,
  runsCount,
  type RoundRun,
} from './fast-forward.ts';
import { decodePlanCursor, encodePlanCursor } from './plan-cursor.ts';
import { planHistoryQueries, type PlanCursor } from './plan-history-window.ts';
import type { PlanWindowConfig } from './plan-history-window.ts';
import type { PollIntervals } from './poll-interval.ts';
import {
  LOOP_ORDER,
  mergeCharges,
  sleptRounds,
  type Loop,
  type RoundShortcut,
  type SkippedReads,
  type SleptRound,
} from './round-shortcut.ts';

/** Meta key (store) of the plan cursor, which skipped plan rounds move on (RECONCILE_META.planCursor). */
export const PLAN_CURSOR_META = 'reconcile.planCursor';

const TICKERS_READ: readonly EndpointId[] = ['tickers'];

/** Below this many requests, `wake` charges round by round (RoundShortcut.bulk is for long spells). */
const BULK_MIN_REQUESTS = 16;

/** The pollers' settings the sleeping loops read (ReconcilerConfig). */
export interface SleepingLoopsConfig {
  readonly fills: { readonly intervals: PollIntervals };
  readonly history: { readonly intervals: PollIntervals };
  readonly plans?: { readonly intervalMs: number; readonly window: PlanWindowConfig };
}

/** What the sleeping loops need of the pollers. */
export interface LoopHost {
  readonly store: OrderStore;
  readonly clock: Clock;
  /** Symbols watched for history and plan orders. */
  readonly symbols: readonly SymbolId[];
  readonly config: SleepingLoopsConfig;
  /** The loops are running (not stopped). */
  running(): boolean;
  /** A round is running or queued. */
  busy(): boolean;
  /** Gives `loop` its timer back: its next round in `ms`. */
  schedule(loop: Loop, ms: number): void;
  /** The loop's interval at `at`, its live orders having these statuses. */
  intervalAt(loop: Loop, statuses: readonly Order['status'][], at: number): number;
  /** The loop's interval now (`open`: the live orders, default the store's). */
  intervalOf(loop: Loop, open?: readonly Order[]): number;
  /** A fills or history round at `at` was settled without being sent (the pollers' status). */
  roundSettled(loop: 'fills' | 'history', at: number): void;
}

/** `#requestsDue`: no sleeping loop's round fell due, and no read was deferred. */
const NOTHING_DUE = -1;

/** A sleeping loop's rounds charged in closed form (`#bulkWake`); every one of the same shape. */
interface BulkLoop {
  readonly loop: Loop;
  readonly d: Dormant;
  readonly runs: RoundRun[];
  /** The reads of each round (of each after the first, for the plan loop). */
  readonly each: readonly EndpointId[];
  /** The plan loop's first round: its reads and the cursor after it; undefined for the others. */
  readonly first: { readonly endpoints: readonly EndpointId[]; readonly cursorAfter: PlanCursor } | undefined;
}

/** A request of the last span, listed for the windows (BulkCharges.tail). */
interface BulkTailRead {
  readonly at: number;
  readonly rank: number;
  readonly endpoints: readonly EndpointId[];
}

interface Dormant {
  /** When its next round falls due. */
  due: number;
  /** The venue version when it fell asleep. */
  readonly version: number;
  /** The statuses of the live orders then (its interval depends on them; they cannot change asleep). */
  readonly statuses: readonly Order['status'][];
}

/** Our plan orders not known to have fired (sent, not finished): what a plan round watches. */
export function watchedPlans(store: OrderStore): Order[] {
  return store.openOrders().filter((o) => isUntriggeredPlan(o) && o.status !== 'created');
}

export class SleepingLoops {
  readonly #h: LoopHost;
  readonly #sc: RoundShortcut;
  /** Rounds not sent because they could not find anything. */
  #skipped = 0;
  /** Per loop: the venue version its last real round started at, and the reads it made. */
  readonly #lastReal = new Map<Loop, { readonly version: number; readonly reads: readonly EndpointId[] }>();
  /** Loops asleep without a timer (RoundShortcut.quiet): their next round's time and what they saw. */
  readonly #dormant = new Map<Loop, Dormant>();
  /**
   * The plan cursor as skipped plan rounds moved it, not yet in the store: those rounds run many
   * times a minute of a backtest, and it is written once, before the next real plan poll or at stop.
   */
  #unsavedPlanCursor: PlanCursor | undefined;

  constructor(host: LoopHost, shortcut: RoundShortcut) {
    this.#h = host;
    this.#sc = shortcut;
  }

  /** Rounds not sent because they could not find anything (`status().skippedRounds`). */
  get skippedRounds(): number {
    return this.#skipped;
  }

  /** The last real rounds noted and the loops asleep (core/footprint.ts). */
  footprint(): Footprint {
    return { lastReal: this.#lastReal.size, dormant: this.#dormant.size };
  }

  /** At stop: charges what fell due, writes the plan cursor, and lets every loop go. */
  stop(): void {
    this.wake();
    this.savePlanCursor();
    this.#dormant.clear();
  }

  /**
   * A loop's round, when it falls due: skipped (true) when it could not find anything, its reads
   * charged now; the loop then sleeps without a timer while the venue is quiet, else keeps its timer.
   * False: the round runs for real.
   */
  trySkip(loop: Loop): boolean {
    const open = this.#skip(loop);
    if (open === undefined) return false;
    const ms = this.#h.intervalOf(loop, open);
    if (this.#sc.quiet?.() === true) {
      const statuses = mapToObjects(open, (o) => o.status);
      this.#dormant.set(loop, {
        due: this.#h.clock.now() + ms,
        version: this.#sc.venueVersion(loop),
        statuses,
      });
    } else {
      this.#h.schedule(loop, ms);
    }
    return true;
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
    const sc = this.#sc;
    const deferred = sc.takeDeferred?.() ?? NO_OBJECTS;
    if (this.#dormant.size === 0 && deferred.length === 0) return;
    const now = this.#h.clock.now();
    const blocked = this.#bulkWake(now, deferred) ? new Set<Loop>() : this.#chargeEachRound(now, deferred);
    for (const [loop, d] of [...this.#dormant]) {
      const changed = opts.work === true || sc.venueVersion(loop) !== d.version || sc.quiet?.() !== true;
      if (!blocked.has(loop) && !changed) continue;
      this.#dormant.delete(loop);
      if (this.#h.running()) this.#h.schedule(loop, Math.max(0, d.due - now));
    }
  }

  /**
   * The live orders changed while loops sleep (a round of another loop committed a change). A
   * sleeping loop's pace follows the statuses of the live orders (poll-interval.ts), which it kept
   * from when it fell asleep: its rounds from now on take today's. (A plan canceled while the fills
   * loop slept kept that loop at the pace of a book with an order in it: one round too many once the
   * idle pace was due.) Its rounds due by now keep the old pace because they are charged already:
   * a loop's round starts with a wake (Reconciler.#tick), and the rounds run outside the loops
   * (recovery before they start, shutdown after `stop`) run while none sleeps.
   */
  restatus(): void {
    if (this.#dormant.size === 0) return;
    const statuses = mapToObjects(this.#h.store.openOrders(), (o) => o.status);
    for (const [loop, d] of this.#dormant) {
      this.#dormant.set(loop, { due: d.due, version: d.version, statuses });
    }
  }

  /**
   * Every sleeping loop fell asleep at its venue's current version: a `wake` now (without `work`,
   * the venue quiet) would give no loop its timer back, only charge what they slept through.
   */
  asleepOnCurrentVenue(): boolean {
    for (const [loop, d] of this.#dormant) if (this.#sc.venueVersion(loop) !== d.version) return false;
    return true;
  }

  /**
   * `wake`'s charges round by round: every round slept through, merged in time order with the
   * deferred reads, in one `chargeUnsentRounds` call. Returns the loops whose round a window refused
   * (they run it for real).
   */
  #chargeEachRound(now: number, deferred: readonly UnsentReads[]): Set<Loop> {
    const sc = this.#sc;
    const { rounds, blocked } = sleptRounds(
      mapToObjects([...this.#dormant], ([loop, d]) => ({ loop, due: d.due })),
      now,
      (loop, at, cursor) => this.#skippedReads(loop, at, cursor),
      (loop, at) => this.#h.intervalAt(loop, this.#dormant.get(loop)?.statuses ?? NO_OBJECTS, at),
    );
    const charges = mergeCharges(rounds, deferred);
    const taken =
      charges.length === 0
        ? 0
        : sc.chargeUnsentRounds(mapToObjects(charges, (c) => ('round' in c ? c.round : c.deferred)));
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
   *
   * In small steps, each with objects of one shape: this runs at every wake of a long backtest, and a
   * large function whose objects vary in shape is compiled, thrown away and compiled again.
   */
  #bulkWake(now: number, deferred: readonly UnsentReads[]): boolean {
    const bulk = this.#sc.bulk;
    if (bulk === undefined) return false;
    const most = this.#requestsDue(now, deferred);
    if (most === NOTHING_DUE) return true;
    if (most < BULK_MIN_REQUESTS) return false;
    const roundsBound = this.skippedWeightBound(bulk.spanMs);
    if (roundsBound === undefined) return false;
    const counts: EndpointCounts = {};
    const loops = this.#bulkLoops(now, counts);
    if (loops === undefined) return false;
    addCounts(counts, TICKERS_READ, deferred.length);
    let last = deferred[deferred.length - 1]?.at ?? Number.NEGATIVE_INFINITY;
    for (const l of loops) last = Math.max(last, lastRound(l.runs) ?? Number.NEGATIVE_INFINITY);
    if (last === Number.NEGATIVE_INFINITY) return true; // nothing fell due
    const taken = bulk.charge({
      counts,
      tail: this.#bulkTail(loops, deferred, last - bulk.spanMs),
      roundsBound,
      deferredPerSpan: mostPerSpan(
        mapToDoubles(deferred, (r) => r.at),
        bulk.spanMs,
      ),
    });
    if (!taken) return false;
    for (const l of loops) this.#settleBulk(l);
    return true;
  }

  /**
   * Roughly how many requests fell due (each loop at its quickest pace), or NOTHING_DUE. A short pass
   * is charged round by round, which costs less than proving a bulk pass safe (the choice changes no
   * charge).
   */
  #requestsDue(now: number, deferred: readonly UnsentReads[]): number {
    let due = false;
    let most = deferred.length;
    for (const [loop, d] of this.#dormant) {
      if (d.due > now) continue;
      due = true;
      const reads =
        loop === 'plans' ? this.#h.symbols.length * 4 : (this.#lastReal.get(loop)?.reads.length ?? 1);
      most += (Math.floor((now - d.due) / this.#quickestMs(loop)) + 1) * Math.max(1, reads);
    }
    return !due && deferred.length === 0 ? NOTHING_DUE : most;
  }

  /**
   * Each sleeping loop's rounds up to `now` (its runs and the reads of each round), their requests
   * added to `counts`; undefined when a loop's rounds cannot be charged in closed form.
   */
  #bulkLoops(now: number, counts: EndpointCounts): BulkLoop[] | undefined {
    const loops: BulkLoop[] = [];
    for (const [loop, d] of this.#dormant) {
      const runs = roundRuns(d.due, now, (at) => this.#h.intervalAt(loop, d.statuses, at));
      const n = runsCount(runs);
      if (n === 0) continue;
      const l = loop === 'plans' ? this.#planLoop(d, runs, n) : this.#orderLoop(loop, d, runs);
      if (l === undefined) return undefined;
      if (l.first !== undefined) {
        addCounts(counts, l.first.endpoints);
        addCounts(counts, l.each, n - 1);
      } else {
        addCounts(counts, l.each, n);
      }
      loops.push(l);
    }
    return loops;
  }

  /** A fills or history loop's rounds: each reads what its last real round read. */
  #orderLoop(loop: Loop, d: Dormant, runs: RoundRun[]): BulkLoop | undefined {
    const each = this.#lastReal.get(loop)?.reads;
    return each === undefined ? undefined : { loop, d, runs, each, first: undefined };
  }

  /**
   * The plan loop's rounds: its first reads the windows due from the cursor; from the second on,
   * caught up, each reads one window per symbol (undefined when not caught up after the first).
   */
  #planLoop(d: Dormant, runs: RoundRun[], n: number): BulkLoop | undefined {
    const cfg = this.#h.config.plans;
    if (cfg === undefined) return undefined;
    const from = this.#unsavedPlanCursor ?? decodePlanCursor(this.#h.store.getMeta(PLAN_CURSOR_META));
    const plan = planHistoryQueries(this.#h.symbols, from, cfg.window, d.due);
    const caughtUp = this.#h.symbols.every((sym) => plan.cursorAfter[sym] === d.due);
    let longest = 0;
    for (const r of runs) longest = Math.max(longest, r.interval);
    if (n > 1 && (!caughtUp || longest + cfg.window.overlapMs > cfg.window.maxWindowMs)) return undefined;
    const watch = this.#watchReads();
    const windows = this.#h.symbols.length * Math.max(1, cfg.window.delegateTypes.length);
    const each = joinObjects(new Array<EndpointId>(windows).fill('historyPlan'), watch);
    const firstReads = joinObjects(
      mapToObjects(plan.queries, (): EndpointId => 'historyPlan'),
      watch,
    );
    return { loop: 'plans', d, runs, each, first: { endpoints: firstReads, cursorAfter: plan.cursorAfter } };
  }

  /** The requests of the rounds and deferred reads after `after` (they still weigh on the windows). */
  #bulkTail(loops: readonly BulkLoop[], deferred: readonly UnsentReads[], after: number): BulkTailRead[] {
    const tail = objectList<BulkTailRead>();
    for (const l of loops) {
      const firstAt = l.runs[0]?.start;
      for (const at of roundsAfter(l.runs, after)) {
        const endpoints = l.first !== undefined && at === firstAt ? l.first.endpoints : l.each;
        tail.push({ at, rank: LOOP_ORDER[l.loop], endpoints });
      }
    }
    for (const r of deferred) if (r.at > after) tail.push({ at: r.at, rank: 3, endpoints: r.endpoints });
    sortInPlace(tail, (a, b) => a.at - b.at || a.rank - b.rank);
    return tail;
  }

  /** A loop's rounds charged in closed form: counted, settled, its cursor moved, its next round set. */
  #settleBulk(l: BulkLoop): void {
    const at = lastRound(l.runs);
    if (at === undefined) return;
    const n = runsCount(l.runs);
    this.#skipped += n;
    if (l.loop !== 'plans') {
      this.#h.roundSettled(l.loop, at);
    } else if (l.first !== undefined) {
      const cursor: Record<string, number> = { ...l.first.cursorAfter };
      if (n > 1) for (const sym of this.#h.symbols) cursor[sym] = at;
      this.#unsavedPlanCursor = cursor;
    }
    l.d.due = at + Math.max(1, this.#h.intervalAt(l.loop, l.d.statuses, at));
  }

  /** The shortest interval a loop can poll at. */
  #quickestMs(loop: Loop): number {
    const cfg = this.#h.config;
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
    const cfg = this.#h.config;
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
    const now = this.#h.clock.now();
    const paceOf = (loop: Loop): number => {
      const d = this.#dormant.get(loop);
      return d === undefined
        ? this.#quickestMs(loop)
        : Math.max(1, this.#h.intervalAt(loop, d.statuses, Math.min(d.due, now)));
    };
    for (const loop of ['fills', 'history'] as const) {
      const last = this.#lastReal.get(loop);
      if (last === undefined) return undefined;
      add(paceOf(loop), last.reads);
    }
    if (cfg.plans !== undefined) {
      const w = cfg.plans.window;
      const perRound =
        this.#h.symbols.length * Math.max(1, w.maxWindows) * Math.max(1, w.delegateTypes.length);
      add(cfg.plans.intervalMs, new Array<EndpointId>(perRound).fill('historyPlan'));
    }
    return { ip, uid };
  }

  /**
   * After a real round: sleeps at once (RoundShortcut.quiet) when its next round would be skipped and
   * the loop would fall asleep there anyway: the venue is quiet and unchanged since the round started
   * (its next round's reads would answer the same) and every live order has its exchange id. That
   * next round is then charged by `wake` at its own time, as the skipped round it would have been, and
   * a change meanwhile gives the loop its timer back, exactly as it would a loop that fell asleep at
   * that round. One timer instant fewer per loop per round that found something.
   */
  sleepAfterRound(loop: Loop): boolean {
    return this.#sleepFrom(loop, (open) => this.#h.clock.now() + this.#h.intervalOf(loop, open));
  }

  /**
   * At a loop's timed round, before any wake: sleeps from this round on when the round would be
   * skipped (as `sleepAfterRound` judges), no window can refuse it (RoundShortcut.sleepRoom), and a
   * wake now could only charge: every sleeping loop's venue is as it fell asleep
   * (`asleepOnCurrentVenue`). The round is then the first one the next `wake` charges, at its own
   * time and in time order with everything else slept through, as it would have been charged now.
   * Nothing is charged now, so nothing needs waking: after an order, the plan loop's round (its
   * timer given back by the order's wake) cost a pass of bulk charges.
   */
  sleepThroughRound(loop: Loop): boolean {
    return (
      this.asleepOnCurrentVenue() &&
      this.#sc.sleepRoom?.() === true &&
      this.#sleepFrom(loop, () => this.#h.clock.now())
    );
  }

  /**
   * Puts `loop` to sleep, its next round at `dueOf(live orders)`, when its rounds would be skipped
   * until the venue changes (see `sleepAfterRound`); false, and nothing changed, otherwise.
   */
  #sleepFrom(loop: Loop, dueOf: (open: readonly Order[]) => number): boolean {
    const sc = this.#sc;
    const last = this.#lastReal.get(loop);
    if (sc.quiet === undefined || last === undefined || this.#h.busy()) return false;
    if (sc.venueVersion(loop) !== last.version || !sc.quiet()) return false;
    const open = this.#h.store.openOrders();
    if (open.some((o) => o.orderId === undefined)) return false;
    const statuses = mapToObjects(open, (o) => o.status);
    this.#dormant.set(loop, { due: dueOf(open), version: last.version, statuses });
    return true;
  }

  /**
   * Skips this loop's round when RoundShortcut allows it (returning the live orders it looked at),
   * else returns undefined and the round runs.
   */
  #skip(loop: Loop): readonly Order[] | undefined {
    const sc = this.#sc;
    const last = this.#lastReal.get(loop);
    if (last === undefined || this.#h.busy()) return undefined;
    if (sc.venueVersion(loop) !== last.version) return undefined;
    const open = this.#h.store.openOrders();
    if (open.some((o) => o.orderId === undefined)) return undefined;
    return this.#chargeSkipped(loop) ? open : undefined;
  }

  /** Charges the reads of one skipped round of `loop` now; false when they could not be charged. */
  #chargeSkipped(loop: Loop): boolean {
    const sc = this.#sc;
    const now = this.#h.clock.now();
    const reads = this.#skippedReads(loop, now);
    if (reads === undefined || !sc.chargeUnsent(reads.endpoints)) return false;
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
    if (last === undefined) return undefined;
    if (loop !== 'plans') return { endpoints: last.reads };
    const cfg = this.#h.config.plans;
    if (cfg === undefined) return undefined;
    const from =
      cursor ?? this.#unsavedPlanCursor ?? decodePlanCursor(this.#h.store.getMeta(PLAN_CURSOR_META));
    const plan = planHistoryQueries(this.#h.symbols, from, cfg.window, at);
    return {
      endpoints: joinObjects(
        mapToObjects(plan.queries, (): EndpointId => 'historyPlan'),
        this.#watchReads(),
      ),
      planCursor: plan.cursorAfter,
    };
  }

  /**
   * The currentPlan pages a plan round reads while it watches plans (a real round reads pages until
   * one is not full). A skipped round finds every watched plan still there: no targeted history read.
   */
  #watchReads(): EndpointId[] {
    const n = watchedPlans(this.#h.store).length;
    return n === 0 ? [] : new Array<EndpointId>(Math.floor(n / CURRENT_PLAN_PAGE) + 1).fill('currentPlan');
  }

  /** Records a skipped round of `loop` at `at` as done (its reads were charged). */
  #countSkipped(loop: Loop, at: number, planCursor?: PlanCursor): void {
    if (planCursor !== undefined) this.#unsavedPlanCursor = planCursor;
    this.#skipped++;
    if (loop !== 'plans') this.#h.roundSettled(loop, at);
  }

  /** Wraps `read` to note the endpoints a loop's round reads, and the venue version it started at. */
  noting(loop: Loop, read: ReadThrough): { read: ReadThrough; done: () => void } {
    this.#lastReal.delete(loop);
    const version = this.#sc.venueVersion(loop);
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
  savePlanCursor(): void {
    if (this.#unsavedPlanCursor === undefined) return;
    this.#h.store.setMeta(PLAN_CURSOR_META, encodePlanCursor(this.#unsavedPlanCursor));
    this.#unsavedPlanCursor = undefined;
  }
}
