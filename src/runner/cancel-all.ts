// Waiting for the cancels of a cancel-all (`engine.cancelAll`) to be answered: for
// `orders.cancelOnStart`, the cancel-on-exit of a shutdown and `capibot kill` without a runner.
import type { Engine } from '../engine/engine.ts';
import type { Timers } from '../execution/timers.ts';
import { waitUntil } from './wait.ts';

/** Waits until no cancel is queued, in flight or waiting for a retry (or the deadline passes). */
export function cancelsSettled(engine: Engine, timers: Timers, deadlineMs: number): Promise<boolean> {
  return waitUntil(
    timers,
    () => {
      const d = engine.executor.depth();
      return d.cancels === 0 && d.inFlight === 0 && d.retrying === 0;
    },
    deadlineMs,
  );
}
