// The executor: turns approved, already-persisted placements and cancels (and reconciliation reads)
// into exchange requests, as few and as well-ordered as the weight budget allows. Its parts:
// - placements.ts: placements are staged, then made eligible when the engine signals the end of a tick
//   (or after `coalesce` ms). Eligible placements wait in a pool; each time a placement request may
//   leave, the pure planner (planner.ts) picks the most urgent call from the WHOLE pool (≤ 20
//   same-symbol entries per batchOrders, a lone order as placeOrder), so under budget pressure batches
//   fill up. Before it leaves, every entry gets `OrderSubmitted` through `onOrderEvent`, which the engine
//   commits to the store synchronously. Answers become OrderAccepted / OrderRejected per entry; a lost
//   answer makes every entry OrderOutcomeUnknown and is NEVER retried. A 429 proves the request was
//   refused, so its entries go back to the pool (without a second OrderSubmitted).
// - retried-requests.ts: cancels go one per order through cancel_order (deduplicated by client_oid);
//   they may be retried, as reads may.
// - dispatcher.ts: jobs (cancel, read, place) sit in a p-queue by priority: cancels > reads >
//   placements. ONE dispatch runs at a time; it waits for an in-flight slot and for the budget (when
//   refused it parks for `waitMs` on the injected timers), then launches its request without waiting
//   for the answer. A parked dispatch yields to any higher-priority job that arrives, so the budget is
//   always spent in priority order and reads are never starved by placements.
// - request-ledger.ts: the budget state and the counts behind metrics().
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import { ENDPOINTS, type EndpointId } from '../core/endpoints.ts';
import { combineFootprints, type Footprint } from '../core/footprint.ts';
import type { ClientOid } from '../core/ids.ts';
import { TransportError } from '../core/errors.ts';
import {
  DEFAULT_EXECUTOR_OPTIONS,
  JOB_PRIORITY,
  type CancelRequestJob,
  type ExecutorDeps,
  type ExecutorMetrics,
  type ExecutorOptions,
  type PlacementRequest,
  type QueueDepth,
} from './executor-types.ts';
import type { BudgetUsage } from './budget.ts';
import { Dispatcher } from './dispatcher.ts';
import type { Job, Prepared } from './jobs.ts';
import { Placements } from './placements.ts';
import { RequestLedger } from './request-ledger.ts';
import { RetriedRequests } from './retried-requests.ts';
import { UnsentCharges } from './unsent-charges.ts';
import type { Timers } from './timers.ts';

export * from './executor-types.ts';

export class Executor {
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #onFatal: (error: unknown) => void;
  readonly #log: Logger;
  readonly #ledger: RequestLedger;
  readonly #dispatcher: Dispatcher;
  readonly #placements: Placements;
  readonly #retried: RetriedRequests;
  /** Reads weighed but not sent (a backtest's rounds that could not find anything): ./unsent-charges.ts. */
  readonly unsent: UnsentCharges;
  #fatal = false;
  #intakeWatch: ((kind: 'place' | 'cancel' | 'read') => void) | undefined;

  constructor(deps: ExecutorDeps) {
    this.#clock = deps.clock;
    this.#timers = deps.timers;
    this.#onFatal = deps.onFatal;
    this.#log = deps.log;
    const opts: ExecutorOptions = { ...DEFAULT_EXECUTOR_OPTIONS, ...deps.options };
    if (!Number.isInteger(opts.maxInFlight) || opts.maxInFlight < 1) {
      throw new RangeError(`maxInFlight must be a positive integer, got ${opts.maxInFlight}`);
    }
    const ledger = new RequestLedger(deps.budget, deps.budgetGate);
    const dispatcher = new Dispatcher({
      clock: deps.clock,
      timers: deps.timers,
      log: deps.log,
      ledger,
      hooks: {
        prepare: (job) => this.#prepare(job),
        applied: () => this.#placements.applied(),
        fail: (e) => this.#fail(e),
      },
      maxInFlight: opts.maxInFlight,
      retryDelayMs: opts.retryDelayMs,
    });
    this.#ledger = ledger;
    this.#dispatcher = dispatcher;
    this.#placements = new Placements({
      port: deps.port,
      clock: deps.clock,
      timers: deps.timers,
      emit: deps.onOrderEvent,
      atomically: deps.atomically ?? ((fn) => fn()),
      opts,
      ledger,
      dispatcher,
    });
    this.#retried = new RetriedRequests({
      port: deps.port,
      clock: deps.clock,
      emit: deps.onOrderEvent,
      maxAttempts: opts.maxAttempts,
      ledger,
      dispatcher,
    });
    this.unsent = new UnsentCharges({
      clock: deps.clock,
      ledger,
      stopped: () => this.#dispatcher.stopped,
      isEmpty: () => this.isEmpty(),
    });
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
    this.#placements.submit(p);
  }

  /** End of a tick (or of one engine step): staged placements become eligible (coalesce `tick`). */
  endOfTick(): void {
    this.#placements.endOfTick();
  }

  /**
   * Takes back a placement that has not left yet (still staged or pooled). True when it was found:
   * the caller then settles the order locally; false means it is already submitted (cancel it).
   */
  withdraw(clientOid: ClientOid): boolean {
    return this.#placements.withdraw(clientOid);
  }

  /** Queues a cancel (one request per order); a cancel already queued for the order is not repeated. */
  submitCancel(req: CancelRequestJob): void {
    if (this.#dispatcher.stopped || this.#retried.cancelPending(req.clientOid)) return;
    this.#intakeWatch?.('cancel');
    this.#retried.cancel(req);
  }

  /**
   * Runs a read (fills, history, ...) through the budget at read priority. A 429 or a transport
   * failure is retried; any other failure rejects the returned promise.
   */
  read<T>(endpoint: EndpointId, run: () => Promise<T>): Promise<T> {
    if (!ENDPOINTS[endpoint].idempotent) throw new RangeError(`${endpoint} is not a read`);
    return new Promise<T>((resolve, reject) => {
      if (this.#dispatcher.stopped) {
        reject(new TransportError(`${endpoint}: not sent, the executor is stopped`, endpoint));
        return;
      }
      this.#intakeWatch?.('read');
      this.#retried.read(endpoint, run, resolve as (v: unknown) => void, reject);
    });
  }

  /**
   * Takes the weight of one request of `endpoint` at read priority, for callers that send the request
   * themselves (the ticker poller's gate). Resolves when the budget granted it.
   */
  acquire(endpoint: EndpointId): Promise<void> {
    return this.read(endpoint, () => Promise.resolve());
  }

  // ---- state ---------------------------------------------------------------------------------------

  depth(): QueueDepth {
    return {
      staged: this.#placements.staged,
      placements: this.#placements.eligible,
      cancels: this.#dispatcher.queued(JOB_PRIORITY.cancel),
      reads: this.#dispatcher.queued(JOB_PRIORITY.read),
      inFlight: this.#dispatcher.inFlight,
      retrying: this.#dispatcher.retrying,
    };
  }

  /** Its parts' collections (core/footprint.ts): work in progress and the budget's windows. */
  footprint(): Footprint {
    return combineFootprints({
      dispatcher: this.#dispatcher.footprint(),
      placements: this.#placements.footprint(),
      retried: this.#retried.footprint(),
      ledger: this.#ledger.footprint(),
    });
  }

  budgetUsage(): BudgetUsage {
    return this.#ledger.usage(this.#clock.now());
  }

  /** The weight pools' live requests now, oldest first: time, IP weight, UID weight. */
  budgetWindow(): readonly (readonly [number, number, number])[] {
    return this.#ledger.window(this.#clock.now());
  }

  metrics(): ExecutorMetrics {
    return this.#ledger.metrics();
  }

  /** Requests sent or charged unsent so far, every endpoint: `metrics().requestsByEndpoint` summed. */
  requestTotal(): number {
    return this.#ledger.requestTotal;
  }

  /**
   * Resolves when nothing is in flight and nothing can progress until (scheduler) time passes: the
   * queue is empty, or what is left waits for budget, a retry delay or a coalescing window. A
   * virtual-time driver awaits this, then advances its clock.
   */
  idle(): Promise<void> {
    return this.#dispatcher.idle();
  }

  /** True when nothing is in flight and nothing is runnable without time passing. */
  isQuiescent(): boolean {
    return this.#dispatcher.isQuiescent();
  }

  /** True when there is no work at all: nothing staged, pooled, queued, retrying or in flight. */
  isEmpty(): boolean {
    return this.#placements.staged === 0 && this.#placements.eligible === 0 && this.#dispatcher.isEmpty();
  }

  /**
   * Shutdown: flushes staged placements, then lets the queue work until it is empty or `deadlineMs`
   * (scheduler time) has passed. Placements still unsent then are rejected locally (`NOT_SENT`:
   * they never left, so this is exact). Returns what was left.
   */
  async drain(deadlineMs: number): Promise<QueueDepth> {
    this.#placements.flush();
    let expired = false;
    const cancel = this.#timers.after(deadlineMs, () => {
      expired = true;
      this.#dispatcher.changed();
    });
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (!this.isEmpty() && !expired && !this.#fatal) return;
        this.#dispatcher.unlisten(check);
        resolve();
      };
      this.#dispatcher.listen(check);
      check();
    });
    cancel();
    const left = this.depth();
    this.stop();
    return left;
  }

  /** Stops dispatching: unsent placements are rejected locally, queued cancels and reads dropped. */
  stop(): void {
    if (this.#dispatcher.stopped) return;
    this.#dispatcher.stop();
    this.#retried.clear();
    this.#placements.stop(this.#fatal);
    this.#dispatcher.release();
  }

  // ---- plumbing ------------------------------------------------------------------------------------

  /** The request a job makes now (a placement job plans its call from the whole pool). */
  #prepare(job: Job): Prepared | undefined {
    switch (job.kind) {
      case 'place':
        return this.#placements.prepare();
      case 'cancel':
        return {
          endpoint: job.req.plan === true ? 'cancelPlan' : 'cancelOrder',
          launch: () => this.#retried.launchCancel(job),
        };
      case 'read':
        return { endpoint: job.endpoint, launch: () => this.#retried.launchRead(job) };
    }
  }

  #fail(e: unknown): void {
    if (this.#fatal) return;
    this.#fatal = true;
    this.#log.error({ err: e }, 'executor stopped on a fatal error');
    this.stop();
    this.#onFatal(e);
  }
}
