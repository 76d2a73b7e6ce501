// How often the reconciliation pollers run (pure): quick while an order is in flight or its outcome
// is unknown (settling those is what keeps strategies from acting on a wrong picture), steady while
// orders rest in the book, slow when nothing has happened for a while (saves request weight).
export interface PollActivity {
  /** Orders sent whose reply has not come back (created/submitted). */
  readonly inFlight: number;
  /** Orders whose placement outcome is unknown, or whose cancel is in flight. */
  readonly unsettled: number;
  /** Orders resting at the exchange (pending/open). */
  readonly open: number;
  /** Last time anything changed (an order event, a new fill), epoch ms. */
  readonly lastActivityAt?: number;
}

export interface PollIntervals {
  readonly fastMs: number;
  readonly normalMs: number;
  readonly idleMs: number;
  /** No activity for this long and no open order: idle. */
  readonly idleAfterMs: number;
}

export type PollPace = 'fast' | 'normal' | 'idle';

export function pollPace(a: PollActivity, cfg: PollIntervals, now: number): PollPace {
  if (a.inFlight > 0 || a.unsettled > 0) return 'fast';
  if (a.open > 0) return 'normal';
  if (a.lastActivityAt !== undefined && now - a.lastActivityAt < cfg.idleAfterMs) return 'normal';
  return 'idle';
}

export function pollInterval(a: PollActivity, cfg: PollIntervals, now: number): number {
  switch (pollPace(a, cfg, now)) {
    case 'fast':
      return cfg.fastMs;
    case 'normal':
      return cfg.normalMs;
    case 'idle':
      return cfg.idleMs;
  }
}

/** Counts the activity of a local book (statuses only). */
export function activityOf(statuses: Iterable<string>, lastActivityAt?: number): PollActivity {
  let inFlight = 0;
  let unsettled = 0;
  let open = 0;
  for (const s of statuses) {
    if (s === 'created' || s === 'submitted') inFlight++;
    else if (s === 'unknown' || s === 'canceling') unsettled++;
    else if (s === 'pending' || s === 'open') open++;
  }
  return { inFlight, unsettled, open, ...(lastActivityAt !== undefined ? { lastActivityAt } : {}) };
}
