// The executor's job queue: ONE dispatch at a time in priority order (cancels > reads > placements), parked on an in-flight slot or the budget and giving way to any higher-priority arrival; it tracks requests in flight, answers being applied, retry timers and idleness.
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import type { Footprint } from '../core/footprint.ts';
import { TransportError } from '../core/errors.ts';
import { JOB_PRIORITY } from './executor-types.ts';
import type { Job, Prepared } from './jobs.ts';
import { classifyFailure, type FailureDisposition } from './outcomes.ts';
import type { RequestLedger } from './request-ledger.ts';
import type { CancelTimer, Timers } from './timers.ts';

/** How a request's answer is applied. */
export interface AnswerHandlers<T> {
  ok(value: T): void;
  failed(f: FailureDisposition, error: unknown): void;
}

/** What the dispatcher asks of the executor. */
export interface DispatchHooks {
  /** The request a job makes now, or undefined when it has nothing left to send. */
  prepare(job: Job): Prepared | undefined;
  /** The last answer being applied is applied in full (nothing is held any more). */
  applied(): void;
  /** A failure nothing here can handle: the executor stops. */
  fail(error: unknown): void;
}

export interface DispatcherDeps {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly log: Logger;
  readonly ledger: RequestLedger;
  readonly hooks: DispatchHooks;
  readonly maxInFlight: number;
  readonly retryDelayMs: number;
}

export class Dispatcher {
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #log: Logger;
  readonly #ledger: RequestLedger;
  readonly #hooks: DispatchHooks;
  readonly #maxInFlight: number;
  readonly #retryDelayMs: number;
  readonly #queue = new PQueue({ concurrency: 1 });
  /** Jobs added to the p-queue that have not started: settled by stop(), which clear() would strand. */
  readonly #queuedJobs = new Set<Job>();
  #stopped = false;
  #inFlight = 0;
  #retrying = 0;
  /** Retry timers, each with the job it will requeue (settled by stop() when the timer is canceled). */
  readonly #retryTimers = new Map<CancelTimer, Job | undefined>();
  /** >0 while answers are being turned into events: flushes wait until the whole answer is applied. */
  #hold = 0;
  /** The dispatch in progress, when it is parked waiting for a slot or for budget. */
  #wake: (() => void) | undefined;
  #parkedOnTime = false;
  #runningPriority = 0;
  #idleWaiters: (() => void)[] = [];
  /** Called on every change of the queue's state (drain waits through these). */
  readonly #listeners = new Set<() => void>();
  #idleCheckScheduled = false;

  constructor(deps: DispatcherDeps) {
    this.#clock = deps.clock;
    this.#timers = deps.timers;
    this.#log = deps.log;
    this.#ledger = deps.ledger;
    this.#hooks = deps.hooks;
    this.#maxInFlight = deps.maxInFlight;
    this.#retryDelayMs = deps.retryDelayMs;
    this.#queue.on('next', () => this.changed());
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Jobs waiting on a retry timer. */
  get retrying(): number {
    return this.#retrying;
  }

  /** True while an answer is being applied. */
  get holding(): boolean {
    return this.#hold > 0;
  }

  /**
   * Jobs queued (p-queue and the set that settles them at stop), running, waiting on retry timers;
   * idle waiters and drain listeners (footprint.ts). All are work in progress: none outlives its job.
   */
  footprint(): Footprint {
    return {
      queue: this.#queue.size + this.#queue.pending,
      queuedJobs: this.#queuedJobs.size,
      retryTimers: this.#retryTimers.size,
      idleWaiters: this.#idleWaiters.length,
      listeners: this.#listeners.size,
    };
  }

  /** Jobs of this priority queued and not started. */
  queued(priority: number): number {
    return this.#queue.sizeBy({ priority });
  }

  enqueue(job: Job): void {
    if (this.#startAtOnce(job)) return;
    const priority = JOB_PRIORITY[job.kind];
    this.#add(job, priority);
    // A parked dispatch of lower priority gives way (it re-queues itself).
    if (this.#wake !== undefined && priority > this.#runningPriority) this.#wake();
  }

  /**
   * With nothing queued or dispatching, a free in-flight slot and a synchronous budget that grants the
   * request now, the job is sent here and now: what p-queue would do inside add() (it starts the job
   * synchronously when idle), without the queued closure, its task record and its promises. A replay
   * meets this case on nearly every request (one reconciliation read at a time). Anything else
   * (budget short, no slot, a shared budget, work queued) returns false and is queued as before.
   */
  #startAtOnce(job: Job): boolean {
    if (this.#stopped || this.#queue.size > 0 || this.#queue.pending > 0) return false;
    if (this.#inFlight >= this.#maxInFlight || this.#ledger.gate !== undefined) return false;
    const prepared = this.#hooks.prepare(job);
    if (prepared !== undefined) {
      if (!this.#ledger.consume(this.#clock.now(), prepared.endpoint).granted) return false;
      this.#runningPriority = JOB_PRIORITY[job.kind];
      prepared.launch();
    }
    this.changed();
    return true;
  }

  /** Queues a job's dispatch, tracked until it starts so that stop() can settle it. */
  #add(job: Job, priority: number): void {
    this.#queuedJobs.add(job);
    this.#queue
      .add(
        () => {
          this.#queuedJobs.delete(job);
          return this.#dispatch(job);
        },
        { priority },
      )
      .catch((e: unknown) => this.#hooks.fail(e));
  }

  /**
   * Launches a request and applies its answer. A 429 shrinks the budget before `failed` runs.
   * Answers are applied under `hold`, so placements the engine queues in reaction are flushed once,
   * after the whole answer.
   */
  track<T>(request: () => Promise<T>, handlers: AnswerHandlers<T>): void {
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
              this.#ledger.rateLimitedAt(this.#clock.now(), f.retryAfterMs);
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
        this.changed();
      });
  }

  /**
   * Runs `fn` after the retry delay (scheduler time), unless stopped by then. `job` is the job `fn`
   * requeues, if any: stop() settles it (a read's caller learns it) instead of leaving it waiting.
   */
  later(fn: () => void, job?: Job): void {
    this.#retrying++;
    const cancel = this.#timers.after(this.#retryDelayMs, () => {
      this.#retryTimers.delete(cancel);
      this.#retrying--;
      if (!this.#stopped) fn();
      this.changed();
    });
    this.#retryTimers.set(cancel, job);
  }

  /** Resolves when `isQuiescent()` holds (confirmed after pending microtasks). */
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

  /** True when no job is queued, running, retrying or in flight. */
  isEmpty(): boolean {
    return (
      this.#queue.size === 0 && this.#queue.pending === 0 && this.#inFlight === 0 && this.#retrying === 0
    );
  }

  listen(listener: () => void): void {
    this.#listeners.add(listener);
  }

  unlisten(listener: () => void): void {
    this.#listeners.delete(listener);
  }

  /** The queue's state changed: listeners run, idle waiters are checked. */
  changed(): void {
    for (const l of [...this.#listeners]) l();
    this.#checkIdle();
  }

  /** Stops dispatching: retry timers canceled, queued jobs dropped (a read's caller learns it). */
  stop(): void {
    this.#stopped = true;
    for (const [cancel, job] of this.#retryTimers) {
      cancel();
      if (job !== undefined) this.#abandon(job);
    }
    this.#retryTimers.clear();
    this.#retrying = 0;
    // p-queue's clear() drops queued closures without running them: settle their jobs here, so no
    // caller of read() waits forever.
    this.#queue.clear();
    for (const job of this.#queuedJobs) this.#abandon(job);
    this.#queuedJobs.clear();
  }

  /** After stop(): the parked dispatch (if any) ends, and listeners learn the queue changed. */
  release(): void {
    this.#wake?.();
    this.changed();
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
        this.#add(job, priority);
        return;
      }
      if (this.#inFlight >= this.#maxInFlight) {
        await this.#park(undefined);
        continue;
      }
      const prepared = this.#hooks.prepare(job);
      if (prepared === undefined) return;
      // Without a shared budget the decision is synchronous (no await: backtests stay as they were).
      const gate = this.#ledger.gate;
      const r =
        gate === undefined
          ? this.#ledger.consume(this.#clock.now(), prepared.endpoint)
          : await this.#ledger.consumeShared(gate, () => this.#clock.now(), prepared.endpoint);
      // Stopped while the shared budget answered: the reservation is spent, nothing is sent.
      if (this.#stopped) return this.#abandon(job);
      if (!r.granted) {
        if (!Number.isFinite(r.waitMs))
          throw new RangeError(`${prepared.endpoint} can never fit the weight budget`);
        await this.#park(r.waitMs);
        continue;
      }
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

  #apply(fn: () => void): void {
    this.#hold++;
    try {
      fn();
    } catch (e) {
      this.#hooks.fail(e);
    } finally {
      this.#hold--;
    }
    if (this.#hold === 0) this.#hooks.applied();
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
