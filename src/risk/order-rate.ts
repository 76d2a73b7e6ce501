// The orders-per-minute window of the risk gate: approved placements in the last 60 s, as a pure,
// persistent value (see core/sliding-window.ts). The gate reads it; the caller records each approval.
import {
  append,
  createWindowLog,
  expire,
  fitTime,
  newestTime,
  sumOf,
  type WindowLog,
} from '../core/sliding-window.ts';
import { ORDER_RATE_WINDOW_MS } from './limits.ts';

export interface OrderRateWindow {
  readonly log: WindowLog;
}

export function createOrderRate(windowMs: number = ORDER_RATE_WINDOW_MS): OrderRateWindow {
  return { log: createWindowLog(windowMs, 1) };
}

/** Placements recorded within the window ending at `now`. */
export function placementsInWindow(w: OrderRateWindow, now: number): number {
  return sumOf(expire(w.log, now), 0);
}

/** Earliest time ≥ now at which one more placement stays within `max` per window. */
export function nextPlacementAt(w: OrderRateWindow, now: number, max: number): number {
  return fitTime(w.log, now, 0, 1, max);
}

/** Records one approved placement at `now` (a clock that steps back is held at the newest entry). */
export function recordPlacement(w: OrderRateWindow, now: number): OrderRateWindow {
  const t = Math.max(now, newestTime(w.log) ?? now);
  return { log: append(expire(w.log, t), t, [1]) };
}
