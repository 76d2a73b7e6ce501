// Virtual time for backtests and tests: one RxJS VirtualTimeScheduler is the clock, the scheduler
// and the timers of the whole engine. Nothing sleeps; `advanceTo(t)` runs every timer due up to t
// in time order, letting the engine settle (await its idle()) after each instant, so work a timer
// releases (a budget wait ending, a coalescing window closing) completes before time moves on.
import { Subscription, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { schedulerTimers, type Timers } from '../execution/timers.ts';

/** Lets queued promise callbacks run (a few microtask turns). */
export async function microtasks(turns = 4): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}

/**
 * A VirtualAction that is recycled when it reschedules itself (an `interval`, a periodic timer).
 * RxJS's VirtualAction instead chains a new action onto the old one at every period (actions are
 * kept immutable for test inspection): over a long replay that chain holds every period ever run
 * (memory grows with virtual time) and unsubscribing it overflows the stack. Ordering is unchanged:
 * a rescheduled action takes a fresh index, as the chained one would, so actions due at the same
 * time still run in the order they were scheduled.
 */
export class ReplayAction<T> extends VirtualAction<T> {
  /**
   * Queues the action at its place among the scheduler's actions (by time, then by index), as
   * VirtualAction's own does by pushing it and sorting the whole queue again (a few thousand
   * instructions a timer: the reconciliation loops set one at every round).
   */
  protected override requestAsyncId(scheduler: VirtualTimeScheduler, _id?: unknown, delay = 0): number {
    this.delay = scheduler.frame + delay;
    const actions = scheduler.actions;
    let i = actions.length;
    while (i > 0 && this.#runsBefore(actions[i - 1] as ReplayAction<T>)) i--;
    actions.splice(i, 0, this);
    return 1;
  }

  /** VirtualAction's order of the queue: by time, then by index (the order they were scheduled in). */
  #runsBefore(other: ReplayAction<T>): boolean {
    return this.delay < other.delay || (this.delay === other.delay && this.index < other.index);
  }

  override schedule(state?: T, delay = 0): Subscription {
    if (!Number.isFinite(delay)) return Subscription.EMPTY;
    if (this.closed) return this;
    if (!this.id) return super.schedule(state, delay);
    const scheduler = this.scheduler;
    const queued = scheduler.actions.indexOf(this);
    if (queued >= 0) scheduler.actions.splice(queued, 1);
    this.index = scheduler.index += 1;
    this.state = state as T; // AsyncAction keeps an undefined state as is
    this.pending = true;
    this.id = this.requestAsyncId(scheduler, this.id, delay);
    return this;
  }
}

export class VirtualTime {
  readonly scheduler: VirtualTimeScheduler;
  readonly clock: Clock;
  readonly timers: Timers;

  constructor(startMs = 0) {
    this.scheduler = new VirtualTimeScheduler(ReplayAction, Number.POSITIVE_INFINITY);
    this.scheduler.frame = startMs;
    this.clock = { now: () => this.scheduler.frame };
    this.timers = schedulerTimers(this.scheduler);
  }

  now(): number {
    return this.scheduler.frame;
  }

  /** Time of the earliest pending timer, or undefined when none is pending. */
  nextDue(): number | undefined {
    return this.scheduler.actions[0]?.delay;
  }

  /**
   * Moves time forward to `t` (never backward): every timer due at or before `t` fires at its own
   * time, and `settle` is awaited after each instant (default: a few microtask turns).
   */
  async advanceTo(t: number, settle: () => Promise<void> = microtasks): Promise<void> {
    const s = this.scheduler;
    for (;;) {
      const due = s.actions[0]?.delay;
      if (due === undefined || due > t) break;
      s.maxFrames = due;
      s.flush();
      await settle();
    }
    s.maxFrames = Number.POSITIVE_INFINITY;
    if (s.frame < t) s.frame = t;
  }

  /**
   * Moves time forward to `t` when no timer is due by then (nothing runs). False, and time stays,
   * when one is: use `advanceTo`.
   */
  jumpTo(t: number): boolean {
    const due = this.nextDue();
    if (due !== undefined && due <= t) return false;
    if (this.scheduler.frame < t) this.scheduler.frame = t;
    return true;
  }

  /** Runs every pending timer (and those they schedule) until none is left, or `limitMs` of time passed. */
  async runAll(settle: () => Promise<void> = microtasks, limitMs = Number.POSITIVE_INFINITY): Promise<void> {
    const end = this.now() + limitMs;
    for (let due = this.nextDue(); due !== undefined && due <= end; due = this.nextDue()) {
      await this.advanceTo(due, settle);
    }
  }
}
