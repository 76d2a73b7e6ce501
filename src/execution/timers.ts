// Injected timers: the executor and the engine never call setTimeout themselves. Live, the timers
// run on RxJS's asyncScheduler; in backtests on a virtual-time scheduler, so waiting for the weight
// budget or a coalescing window costs no wall time and stays deterministic.
import type { SchedulerLike } from 'rxjs';

/** Cancels a pending timer; calling it after the timer fired does nothing. */
export type CancelTimer = () => void;

export interface Timers {
  /** Runs `fn` once, `ms` milliseconds of (scheduler) time from now. */
  after(ms: number, fn: () => void): CancelTimer;
}

export function schedulerTimers(scheduler: SchedulerLike): Timers {
  return {
    after(ms, fn) {
      const sub = scheduler.schedule(fn, Math.max(0, ms));
      return () => sub.unsubscribe();
    },
  };
}
