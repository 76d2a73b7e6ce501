// The executor: turns approved, already-persisted placements and cancels (and reconciliation reads)
// into exchange requests, as few and as well-ordered as the weight budget allows.
//
// Shape:
// - Placements are staged, then made eligible when the engine signals the end of a tick (or after
//   `coalesceMs`). Eligible placements wait in a pool; each time a placement request may leave, the
//   pure planner (planner.ts) picks the most urgent call from the WHOLE pool (≤ 20 same-symbol entries
//   per batchOrders, a lone order as placeOrder), so under budget pressure batches fill up.
// - Jobs (cancel, read, place) sit in a p-queue by priority: cancels > reads > placements. The queue
//   runs ONE dispatch at a time; a dispatch waits for an in-flight slot and for the budget
//   (`tryConsume`; when refused it parks for `waitMs` on the injected timers), then launches its
//   request without waiting for the answer. A parked dispatch yields to any higher-priority job that
//   arrives, so the budget is always spent in priority order and reads are never starved by
//   placements.
// - Before a placement leaves, every entry gets `OrderSubmitted` through `onOrderEvent`, which the
//   engine commits to the store synchronously. Answers become OrderAccepted / OrderRejected per entry;
//   a lost answer makes every entry OrderOutcomeUnknown and is NEVER retried. A 429 proves the request
//   was refused, so its entries go back to the pool (without a second OrderSubmitted).
// - Cancels go one per order through cancel_order (deduplicated by client_oid); they may be retried.
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import { ENDPOINTS, type BulkCharges, type EndpointId, type UnsentReads } from '../core/endpoints.ts';
import type { OrderEvent } from '../core/events.ts';
import type { ClientOid } from '../core/ids.ts';
import type { PlaceOutcome } from '../core/reports.ts';
import { InvariantViolation, TransportError } from '../core/errors.ts';
import {
  DEFAULT_EXECUTOR_OPTIONS,
  JOB_PRIORITY,
  type CancelRequestJob,
  type ExecutorDeps,
  type ExecutorMetrics,
  type ExecutorOptions,
  type ExecutorPort,
  type PlacementRequest,
  type QueueDepth,
} from './executor-types.ts';
import { moved, onRateLimited, tryConsume, usage, type BudgetState, type BudgetUsage } from './budget.ts';
import { consumeGroups } from './budget-groups.ts';
import { entries, expire } from '../core/sliding-window.ts';
import { cancelEvent, classifyFailure, placementEvents, type FailureDisposition } from './outcomes.ts';
import { PlacementPool, type PooledPlacement } from './placement-pool.ts';
import type { PlannedCall } from './planner.ts';
import type { CancelTimer, Timers } from './timers.ts';

export * from './executor-types.ts';

type Job =
  | { readonly kind: 'place' }
  | { readonly kind: 'cancel'; readonly req: CancelRequestJob; attempts: number }
  | {
      readonly kind: 'read';
      readonly endpoint: EndpointId;
      readonly run: () => Promise<unknown>;
      readonly resolve: (v: unknown) => void;
      readonly reject: (e: unknown) => void;
      attempts: number;
    };

/** A request ready to leave: its endpoint (for the budget) and how to launch it. */
interface Prepared {
  readonly endpoint: EndpointId;
  launch(): void;
}

export class Executor {
  readonly #port: ExecutorPort;
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #emit: (event: OrderEvent) => void;
  readonly #atomically: (fn: () => void) => void;
  readonly #onFatal: (error: unknown) => void;
  readonly #log: Logger;
  readonly #opts: ExecutorOptions;
  readonly #queue = new PQueue({ concurrency: 1 });
  /** Jobs added to the p-queue that have not started: settled by stop(), which clear() would strand. */
  readonly #queuedJobs = new Set<Job>();

  #budget: BudgetState;
  readonly #pool = new PlacementPool();
  #placeJobQueued = false;
  readonly #cancelKeys = new Set<ClientOid>();
  #inFlight = 0;
  #retrying = 0;
  readonly #retryTimers = new Set<CancelTimer>();
  #flushTimer: CancelTimer | undefined;
  /** >0 while answers are being turned into events: flushes wait until the whole answer is applied. */
  #hold = 0;
  #flushPending = false;
  #stopped = false;
  #fatal = false;
  /** The dispatch in progress, when it is parked waiting for a slot or for budget. */
  #wake: (() => void) | undefined;
  #parkedOnTime = false;
  #runningPriority = 0;
  #idleWaiters: (() => void)[] = [];
  /** Called on every change of the queue's state (drain waits through these). */
  readonly #listeners = new Set<() => void>();
  #idleCheckScheduled = false;

  readonly #requests: Partial<Record<EndpointId, number>> = {};
  #intakeWatch: ((kind: 'place' | 'cancel' | 'read') => void) | undefined;
  #rateLimited = 0;
  #batchCalls = 0;
  #batchEntries = 0;
  #singleCalls = 0;
  #cancelsSent = 0;
  #superseded = 0;
  #outcomeUnknown = 0;

  constructor(deps: ExecutorDeps) {
    this.#port = deps.port;
    this.#clock = deps.clock;
    this.#timers = deps.timers;
    this.#budget = deps.budget;
    this.#emit = deps.onOrderEvent;
    this.#atomically = deps.atomically ?? ((fn) => fn());
    this.#onFatal = deps.onFatal;
    this.#log = deps.log;
    this.#opts = { ...DEFAULT_EXECUTOR_OPTIONS, ...deps.options };
    if (!Number.isInteger(this.#opts.maxInFlight) || this.#opts.maxInFlight < 1) {
      throw new RangeError(`maxInFlight must be a positive integer, got ${this.#opts.maxInFlight}`);
    }
    this.#queue.on('next', () => this.#changed());
  }

  // ---- intake --------------------------------------------------------------------------------------

  /**
   * Tells `watch` of every placement, cancel and read as it arrives, before it is queued (a
   * backtest's sleeping reconciliation loops charge their past rounds first: RoundShortcut.quiet).
   */
  watchIntake(watch: (kind: 'place' | 'cancel' | 'read') => void): void {
    this.#intakeWatch = watch;
  }

  /** Queues a placement whose order is already in the store as `created`. */
  submitPlacement(p: PlacementRequest): void {
    this.#intakeWatch?.('place');
    if (this.#stopped) {
      this.#rejectLocally([this.#pooled(p)], 'NOT_SENT', 'the executor is stopped');
      return;
    }
    this.#pool.stage(this.#pooled(p));
    if (this.#opts.coalesce !== 'tick' && this.#flushTimer === undefined) {
      this.#flushTimer = this.#timers.after(this.#opts.coalesce, () => {
        this.#flushTimer = undefined;
        this.#flush();
      });
    }
  }

  /** End of a tick (or of one engine step): staged placements become eligible (coalesce `tick`). */
  endOfTick(): void {
    if (this.#opts.coalesce !== 'tick') return;
    if (this.#hold > 0) this.#flushPending = true;
    else this.#flush();
  }

  /**
   * Takes back a placement that has not left yet (still staged or pooled). True when it was found:
   * the caller then settles the order locally; false means it is already submitted (cancel it).
   */
  withdraw(clientOid: ClientOid): boolean {
    return this.#pool.withdraw(clientOid);
  }

  /** Queues a cancel (one request per order); a cancel already queued for the order is not repeated. */
  submitCancel(req: CancelRequestJob): void {
    if (this.#stopped || this.#cancelKeys.has(req.clientOid)) return;
    this.#intakeWatch?.('cancel');
    this.#cancelKeys.add(req.clientOid);
    this.#enqueue({ kind: 'cancel', req, attempts: 0 });
  }

  /**
   * Runs a read (fills, history, ...) through the budget at read priority. A 429 or a transport
   * failure is retried; any other failure rejects the returned promise.
   */
  read<T>(endpoint: EndpointId, run: () => Promise<T>): Promise<T> {
    if (!ENDPOINTS[endpoint].idempotent) throw new RangeError(`${endpoint} is not a read`);
    return new Promise<T>((resolve, reject) => {
      if (this.#stopped) {
        reject(new TransportError(`${endpoint}: not sent, the executor is stopped`, endpoint));
        return;
      }
      this.#intakeWatch?.('read');
      this.#enqueue({ kind: 'read', endpoint, run, resolve: (v) => resolve(v as T), reject, attempts: 0 });
    });
  }

  /**
   * Takes the weight of one request of `endpoint` at read priority, for callers that send the request
   * themselves (the ticker poller's gate). Resolves when the budget granted it.
   */
  acquire(endpoint: EndpointId): Promise<void> {
    return this.read(endpoint, () => Promise.resolve());
  }

  /**
   * Takes the weight of reads that are not sent (a backtest round that could not find anything, see
   * RoundShortcut in src/reconcile/pollers.ts) as if they were sent now, and counts them; only when
   * sending them would not have waited or delayed anything: the executor has no work at all and the
   * budget grants every one at once, and `venue` (the simulator's own weighing) agreed. False, with
   * nothing taken here, otherwise.
   */
  chargeUnsent(
    endpoints: readonly EndpointId[],
    venue: () => boolean = () => true,
    /** A round that fell due at this earlier time, while the executor had no work (RoundShortcut.quiet). */
    at?: number,
  ): boolean {
    if (this.#stopped || (at === undefined && !this.isEmpty())) return false;
    const now = at ?? this.#clock.now();
    let budget = this.#budget;
    for (const endpoint of endpoints) {
      const r = tryConsume(budget, now, endpoint);
      if (!r.granted) return false;
      budget = r.state;
    }
    if (!venue()) return false;
    this.#budget = budget;
    for (const endpoint of endpoints) this.#requests[endpoint] = (this.#requests[endpoint] ?? 0) + 1;
    return true;
  }

  /**
   * The rounds a sleeping reconciliation loop slept through (RoundShortcut.quiet), in time order, each
   * charged at its own time exactly as `chargeUnsent(endpoints, venue, at)` per round would, in one
   * pass (budget.ts `consumeGroups`). `venue` charges the simulator for the rounds the budget granted
   * and says how many it took. Returns the number of rounds charged: the first ones.
   */
  chargeUnsentRounds(
    rounds: readonly UnsentReads[],
    venue: (granted: readonly UnsentReads[]) => number,
  ): number {
    if (this.#stopped || rounds.length === 0) return 0;
    const budgeted = consumeGroups(this.#budget, rounds);
    const n = budgeted.granted;
    const taken = n === 0 ? 0 : venue(n === rounds.length ? rounds : rounds.slice(0, n));
    if (taken === 0) return 0;
    this.#budget = taken === n ? budgeted.state : consumeGroups(this.#budget, rounds.slice(0, taken)).state;
    for (let i = 0; i < taken; i++) {
      for (const endpoint of rounds[i]?.endpoints ?? []) {
        this.#requests[endpoint] = (this.#requests[endpoint] ?? 0) + 1;
      }
    }
    return taken;
  }

  /**
   * Charges a pass of reads that no window can refuse (RoundShortcut.bulk), as `chargeUnsentRounds`
   * would charge them one by one: the tail (the requests of the last window) through the budget at
   * their times, so its windows end the same; the others only into the totals and counts (they would
   * have expired from every window by then). False when stopped. Throws when a tail read is refused:
   * the caller's proof that none could be was wrong.
   */
  chargeBulk(b: Pick<BulkCharges, 'counts' | 'tail'>): boolean {
    if (this.#stopped) return false;
    const r = consumeGroups(this.#budget, b.tail);
    if (r.granted !== b.tail.length)
      throw new InvariantViolation(
        `executor: a read of a bulk charge was refused at ${b.tail[r.granted]?.at}`,
      );
    let ip = 0;
    let uid = 0;
    let requests = 0;
    for (const [id, n] of Object.entries(b.counts) as [EndpointId, number][]) {
      ip += ENDPOINTS[id].ipWeight * n;
      uid += ENDPOINTS[id].uidWeight * n;
      requests += n;
      this.#requests[id] = (this.#requests[id] ?? 0) + n;
    }
    for (const g of b.tail) {
      for (const id of g.endpoints) {
        ip -= ENDPOINTS[id].ipWeight;
        uid -= ENDPOINTS[id].uidWeight;
        requests--;
      }
    }
    const s = r.state;
    this.#budget = moved(s, s.weights, s.orders, s.clock, {
      ipWeight: s.totals.ipWeight + ip,
      uidWeight: s.totals.uidWeight + uid,
      requests: s.totals.requests + requests,
    });
    return true;
  }

  // ---- state ---------------------------------------------------------------------------------------

  depth(): QueueDepth {
    return {
      staged: this.#pool.staged,
      placements: this.#pool.eligible,
      cancels: this.#queue.sizeBy({ priority: JOB_PRIORITY.cancel }),
      reads: this.#queue.sizeBy({ priority: JOB_PRIORITY.read }),
      inFlight: this.#inFlight,
      retrying: this.#retrying,
    };
  }

  budgetUsage(): BudgetUsage {
    return usage(this.#budget, this.#clock.now());
  }

  /** The weight pools' live requests now, oldest first: time, IP weight, UID weight. */
  budgetWindow(): readonly (readonly [number, number, number])[] {
    const log = expire(this.#budget.weights, Math.max(this.#clock.now(), this.#budget.clock));
    return entries(log).map((e) => [e.t, e.weights[0] ?? 0, e.weights[1] ?? 0] as const);
  }

  metrics(): ExecutorMetrics {
    const totals = this.#budget.totals;
    return {
      requestsByEndpoint: { ...this.#requests },
      weightUsed: { ip: totals.ipWeight, uid: totals.uidWeight },
      rateLimited: this.#rateLimited,
      batchCalls: this.#batchCalls,
      batchEntries: this.#batchEntries,
      singleCalls: this.#singleCalls,
      cancelsSent: this.#cancelsSent,
      superseded: this.#superseded,
      outcomeUnknown: this.#outcomeUnknown,
    };
  }

  /**
   * Resolves when nothing is in flight and nothing can progress until (scheduler) time passes: the
   * queue is empty, or what is left waits for budget, a retry delay or a coalescing window. A
   * virtual-time driver awaits this, then advances its clock.
   */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.#idleWaiters.push(resolve);
      this.#checkIdle();
    });
  }

  /** True when nothing is in flight and nothing is runnable without time passing. */
  isQuiescent(): boolean {
    if (this.#inFlight > 0 || this.#hold > 0) return false;
    if (this.#queue.pending === 0) return this.#queue.size === 0;
    return this.#parkedOnTime;
  }

  /** True when there is no work at all: nothing staged, pooled, queued, retrying or in flight. */
  isEmpty(): boolean {
    return (
      this.#pool.staged === 0 &&
      this.#pool.eligible === 0 &&
      this.#queue.size === 0 &&
      this.#queue.pending === 0 &&
      this.#inFlight === 0 &&
      this.#retrying === 0
    );
  }

  /**
   * Shutdown: flushes staged placements, then lets the queue work until it is empty or `deadlineMs`
   * (scheduler time) has passed. Placements still unsent then are rejected locally (`NOT_SENT`:
   * they never left, so this is exact). Returns what was left.
   */
  async drain(deadlineMs: number): Promise<QueueDepth> {
    this.#flush();
    let expired = false;
    const cancel = this.#timers.after(deadlineMs, () => {
      expired = true;
      this.#changed();
    });
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (!this.isEmpty() && !expired && !this.#fatal) return;
        this.#listeners.delete(check);
        resolve();
      };
      this.#listeners.add(check);
      check();
    });
    cancel();
    const left = this.depth();
    this.stop();
    return left;
  }

  /** Stops dispatching: unsent placements are rejected locally, queued cancels and reads dropped. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#flushTimer?.();
    this.#flushTimer = undefined;
    for (const c of this.#retryTimers) c();
    this.#retryTimers.clear();
    this.#retrying = 0;
    // p-queue's clear() drops queued closures without running them: settle their jobs here, so no
    // caller of read() waits forever.
    this.#queue.clear();
    for (const job of this.#queuedJobs) this.#abandon(job);
    this.#queuedJobs.clear();
    this.#placeJobQueued = false;
    const unsent = this.#pool.clear();
    this.#cancelKeys.clear();
    if (!this.#fatal) this.#rejectLocally(unsent, 'NOT_SENT', 'never sent: the executor stopped');
    this.#wake?.();
    this.#changed();
  }

  // ---- dispatch ------------------------------------------------------------------------------------

  #pooled(p: PlacementRequest): PooledPlacement {
    return {
      symbol: p.symbol,
      clientOid: p.entry.clientOid,
      strategy: p.strategy,
      ...(p.tag !== undefined ? { tag: p.tag } : {}),
      priority: p.priority ?? 0,
      enqueuedAt: this.#clock.now(),
      entry: p.entry,
      submitted: false,
      attempts: 0,
    };
  }

  #flush(): void {
    this.#flushPending = false;
    if (this.#pool.release()) this.#schedulePlaceJob();
  }

  #schedulePlaceJob(): void {
    if (this.#placeJobQueued || this.#pool.eligible === 0 || this.#stopped) return;
    this.#placeJobQueued = true;
    this.#enqueue({ kind: 'place' });
  }

  #enqueue(job: Job): void {
    const priority = JOB_PRIORITY[job.kind];
    this.#queuedJobs.add(job);
    this.#queue
      .add(
        () => {
          this.#queuedJobs.delete(job);
          return this.#dispatch(job);
        },
        { priority },
      )
      .catch((e: unknown) => this.#fail(e));
    // A parked dispatch of lower priority gives way (it re-queues itself).
    if (this.#wake !== undefined && priority > this.#runningPriority) this.#wake();
  }

  #higherQueued(priority: number): boolean {
    for (const p of Object.values(JOB_PRIORITY)) {
      if (p > priority && this.#queue.sizeBy({ priority: p }) > 0) return true;
    }
    return false;
  }

  async #dispatch(job: Job): Promise<void> {
    const priority = JOB_PRIORITY[job.kind];
    this.#runningPriority = priority;
    for (;;) {
      if (this.#stopped) return this.#abandon(job);
      if (this.#higherQueued(priority)) {
        // Go to the back of our own lane; the higher-priority job runs first.
        this.#queue.add(() => this.#dispatch(job), { priority }).catch((e: unknown) => this.#fail(e));
        return;
      }
      if (this.#inFlight >= this.#opts.maxInFlight) {
        await this.#park(undefined);
        continue;
      }
      const prepared = this.#prepare(job);
      if (prepared === undefined) return;
      const r = tryConsume(this.#budget, this.#clock.now(), prepared.endpoint);
      this.#budget = r.state;
      if (!r.granted) {
        if (!Number.isFinite(r.waitMs))
          throw new RangeError(`${prepared.endpoint} can never fit the weight budget`);
        await this.#park(r.waitMs);
        continue;
      }
      this.#requests[prepared.endpoint] = (this.#requests[prepared.endpoint] ?? 0) + 1;
      prepared.launch();
      return;
    }
  }

  /** Waits for a slot (ms undefined) or for time; any higher-priority arrival wakes it early. */
  #park(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      let cancel: CancelTimer | undefined;
      const done = (): void => {
        if (this.#wake !== done) return;
        this.#wake = undefined;
        this.#parkedOnTime = false;
        cancel?.();
        resolve();
      };
      this.#wake = done;
      if (ms !== undefined) {
        this.#parkedOnTime = true;
        cancel = this.#timers.after(ms, done);
      }
      this.#checkIdle();
    });
  }

  /** A job that will never run: a read's caller learns it was not sent (safe to try elsewhere). */
  #abandon(job: Job): void {
    if (job.kind === 'read') {
      job.reject(new TransportError(`${job.endpoint}: not sent, the executor is stopped`, job.endpoint));
    }
  }

  #prepare(job: Job): Prepared | undefined {
    switch (job.kind) {
      case 'place':
        return this.#preparePlacement();
      case 'cancel':
        return { endpoint: 'cancelOrder', launch: () => this.#launchCancel(job) };
      case 'read':
        return { endpoint: job.endpoint, launch: () => this.#launchRead(job) };
    }
  }

  // ---- placements ----------------------------------------------------------------------------------

  #preparePlacement(): Prepared | undefined {
    const { call, superseded } = this.#pool.next({
      maxBatch: this.#opts.maxBatch,
      supersede: this.#opts.supersede,
    });
    if (superseded.length > 0) {
      this.#superseded += superseded.length;
      this.#rejectLocally(superseded, 'SUPERSEDED', 'superseded by a newer placement before it was sent');
    }
    if (call === undefined) {
      this.#placeJobQueued = false;
      return undefined;
    }
    return {
      endpoint: call.kind === 'batch' ? 'batchOrders' : 'placeOrder',
      launch: () => this.#launchPlacement(call),
    };
  }

  #launchPlacement(call: PlannedCall<PooledPlacement>): void {
    const entries = this.#pool.take(call);
    this.#placeJobQueued = false;
    // Write-ahead: `submitted` is committed for every entry before the request leaves, in one commit.
    const at = this.#clock.now();
    this.#atomically(() => {
      for (const e of entries) {
        if (e.submitted) continue;
        this.#emit({ kind: 'OrderSubmitted', clientOid: e.clientOid, at });
      }
    });
    for (const e of entries) e.submitted = true;
    if (call.kind === 'batch') {
      this.#batchCalls++;
      this.#batchEntries += entries.length;
    } else {
      this.#singleCalls++;
    }
    const request =
      call.kind === 'batch'
        ? () =>
            this.#port.placeBatch(
              call.symbol,
              call.entries.map((e) => e.entry),
            )
        : () =>
            this.#port.placeOrder(call.symbol, call.entry.entry).then((o): readonly PlaceOutcome[] => [o]);
    this.#track(request, {
      ok: (outcomes) => {
        const events = placementEvents(
          entries.map((e) => e.clientOid),
          outcomes,
          this.#clock.now(),
        );
        for (const ev of events) {
          if (ev.kind === 'OrderOutcomeUnknown') this.#outcomeUnknown++;
          this.#emit(ev);
        }
      },
      failed: (f) => this.#placementFailed(entries, f),
    });
    this.#schedulePlaceJob();
  }

  #placementFailed(entries: readonly PooledPlacement[], f: FailureDisposition): void {
    const at = this.#clock.now();
    switch (f.kind) {
      case 'rateLimited':
        // Refused before anything happened: back to the pool, in front (they were the most urgent).
        this.#pool.putBack(entries);
        this.#schedulePlaceJob();
        return;
      case 'notSent': {
        const retry = entries.filter((e) => ++e.attempts < this.#opts.maxAttempts);
        const give = entries.filter((e) => e.attempts >= this.#opts.maxAttempts);
        for (const e of give)
          this.#emit({
            kind: 'OrderRejected',
            clientOid: e.clientOid,
            at,
            code: 'TRANSPORT',
            reason: f.message,
          });
        if (retry.length > 0) {
          this.#later(() => {
            this.#pool.putBack(retry);
            this.#schedulePlaceJob();
          });
        }
        return;
      }
      case 'refused':
        for (const e of entries)
          this.#emit({ kind: 'OrderRejected', clientOid: e.clientOid, at, code: f.code, reason: f.message });
        return;
      case 'unknown':
        // Never resent: reconciliation settles each entry by client_oid.
        for (const e of entries) {
          this.#outcomeUnknown++;
          this.#emit({ kind: 'OrderOutcomeUnknown', clientOid: e.clientOid, at, reason: f.message });
        }
        return;
    }
  }

  #rejectLocally(list: readonly PooledPlacement[], code: string, reason: string): void {
    const at = this.#clock.now();
    for (const p of list) this.#emit({ kind: 'OrderRejected', clientOid: p.clientOid, at, code, reason });
  }

  // ---- cancels and reads ---------------------------------------------------------------------------

  #launchCancel(job: Extract<Job, { kind: 'cancel' }>): void {
    const { req } = job;
    this.#cancelsSent++;
    const body = {
      symbol: req.symbol,
      ...(req.orderId !== undefined ? { orderId: req.orderId } : { clientOid: req.clientOid }),
    };
    this.#track(() => this.#port.cancelOrder(body), {
      ok: (outcome) => {
        this.#cancelKeys.delete(req.clientOid);
        this.#emit(cancelEvent(req.clientOid, outcome, this.#clock.now()));
      },
      failed: (f) => {
        const at = this.#clock.now();
        if (f.kind === 'rateLimited') {
          this.#enqueue(job);
          return;
        }
        if (f.kind === 'refused') {
          // 50005 (order does not exist) lands here: already gone; reconciliation brings the final state.
          this.#cancelKeys.delete(req.clientOid);
          this.#emit({
            kind: 'CancelRejected',
            clientOid: req.clientOid,
            at,
            code: f.code,
            reason: f.message,
          });
          return;
        }
        // A cancel may be sent again: the worst case is a second "order does not exist".
        job.attempts++;
        if (job.attempts < this.#opts.maxAttempts) {
          this.#later(() => this.#enqueue(job));
          return;
        }
        this.#cancelKeys.delete(req.clientOid);
        this.#emit({
          kind: 'CancelRejected',
          clientOid: req.clientOid,
          at,
          code: f.kind === 'unknown' ? 'OUTCOME_UNKNOWN' : 'TRANSPORT',
          reason: f.message,
        });
      },
    });
  }

  #launchRead(job: Extract<Job, { kind: 'read' }>): void {
    this.#track(job.run, {
      ok: (v) => job.resolve(v),
      failed: (f, e) => {
        if (f.kind === 'rateLimited') {
          this.#enqueue(job);
          return;
        }
        if (f.kind === 'notSent' || f.kind === 'unknown') {
          job.attempts++;
          if (job.attempts < this.#opts.maxAttempts) {
            this.#later(() => this.#enqueue(job));
            return;
          }
        }
        job.reject(e);
      },
    });
  }

  // ---- plumbing ------------------------------------------------------------------------------------

  /**
   * Launches a request and applies its answer. A 429 shrinks the budget before `failed` runs.
   * Answers are applied under `hold`, so placements the engine queues in reaction are flushed once,
   * after the whole answer.
   */
  #track<T>(
    request: () => Promise<T>,
    handlers: { ok: (value: T) => void; failed: (f: FailureDisposition, error: unknown) => void },
  ): void {
    this.#inFlight++;
    let p: Promise<T>;
    try {
      p = request();
    } catch (e) {
      p = Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    void p
      .then(
        (value) => this.#apply(() => handlers.ok(value)),
        (error: unknown) =>
          this.#apply(() => {
            const f = classifyFailure(error);
            if (f.kind === 'rateLimited') {
              this.#rateLimited++;
              this.#budget = onRateLimited(this.#budget, this.#clock.now(), f.retryAfterMs);
              this.#log.warn(
                { retryAfterMs: f.retryAfterMs },
                'rate limited (429): budget shrunk, request requeued',
              );
            }
            handlers.failed(f, error);
          }),
      )
      .finally(() => {
        this.#inFlight--;
        if (this.#wake !== undefined && !this.#parkedOnTime) this.#wake();
        this.#changed();
      });
  }

  #apply(fn: () => void): void {
    this.#hold++;
    try {
      fn();
    } catch (e) {
      this.#fail(e);
    } finally {
      this.#hold--;
    }
    if (this.#hold === 0 && this.#flushPending) this.#flush();
  }

  /** Runs `fn` after the retry delay (scheduler time). */
  #later(fn: () => void): void {
    this.#retrying++;
    const cancel = this.#timers.after(this.#opts.retryDelayMs, () => {
      this.#retryTimers.delete(cancel);
      this.#retrying--;
      if (!this.#stopped) fn();
      this.#changed();
    });
    this.#retryTimers.add(cancel);
  }

  #fail(e: unknown): void {
    if (this.#fatal) return;
    this.#fatal = true;
    this.#log.error({ err: e }, 'executor stopped on a fatal error');
    this.stop();
    this.#onFatal(e);
  }

  #changed(): void {
    for (const l of [...this.#listeners]) l();
    this.#checkIdle();
  }

  #checkIdle(): void {
    if (this.#idleWaiters.length === 0 || this.#idleCheckScheduled || !this.isQuiescent()) return;
    this.#idleCheckScheduled = true;
    // Confirm after pending microtasks (answers being applied, p-queue bookkeeping) have run.
    queueMicrotask(() =>
      queueMicrotask(() => {
        this.#idleCheckScheduled = false;
        if (!this.isQuiescent()) return;
        const waiters = this.#idleWaiters;
        this.#idleWaiters = [];
        for (const w of waiters) w();
      }),
    );
  }
}
