// Waiting on injected timers (wall time in the runner, virtual time in tests).
import type { Timers } from '../execution/timers.ts';

export function delay(timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => {
    timers.after(ms, resolve);
  });
}

/** Checks `done` every `stepMs` until it is true (→ true) or `deadlineMs` has passed (→ false). */
export async function waitUntil(
  timers: Timers,
  done: () => boolean,
  deadlineMs: number,
  stepMs = 50,
): Promise<boolean> {
  for (let waited = 0; ; waited += stepMs) {
    if (done()) return true;
    if (waited >= deadlineMs) return false;
    await delay(timers, stepMs);
  }
}
