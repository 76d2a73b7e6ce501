// Virtual time for backtests and tests: one RxJS VirtualTimeScheduler is the clock, the scheduler
// and the timers of the whole engine. Nothing sleeps; `advanceTo(t)` runs every timer due up to t
// in time order, letting the engine settle (await its idle()) after each instant, so work a timer
// releases (a budget wait ending, a coalescing window closing) completes before time moves on.
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { schedulerTimers, type Timers } from '../execution/timers.ts';

/** Lets queued promise callbacks run (a few microtask turns). */
export async function microtasks(turns = 4): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}

export class VirtualTime {
  readonly scheduler: VirtualTimeScheduler;
  readonly clock: Clock;
  readonly timers: Timers;

  constructor(startMs = 0) {
    this.scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
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

  /** Runs every pending timer (and those they schedule) until none is left, or `limitMs` of time passed. */
  async runAll(settle: () => Promise<void> = microtasks, limitMs = Number.POSITIVE_INFINITY): Promise<void> {
    const end = this.now() + limitMs;
    for (let due = this.nextDue(); due !== undefined && due <= end; due = this.nextDue()) {
      await this.advanceTo(due, settle);
    }
  }
}
