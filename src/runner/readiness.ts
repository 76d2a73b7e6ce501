// What /ready answers for a run: reconciled (the start-up recovery is done and a full reconciliation
// round succeeded recently) and fresh (tickers arrived recently). Judged on the wall clock: a replay
// running faster than real time must not make a healthy runner look stale.
import type { Clock } from '../core/clock.ts';
import type { Readiness } from '../obs/http-server.ts';

export interface ReadinessSource {
  /** Start-up recovery finished and the pollers run. */
  readonly started: boolean;
  /** Wall time of the last round that read order history. */
  readonly lastFullRoundAt: number | undefined;
  /** Wall time of the last tickers poll. */
  readonly lastTickersAt: number | undefined;
}

export interface ReadinessLimits {
  /** A full round older than this: not reconciled. */
  readonly reconcileMaxAgeMs: number;
  /** Tickers older than this: stale (polling.staleAfterMs). */
  readonly staleAfterMs: number;
}

export function readinessOf(src: ReadinessSource, limits: ReadinessLimits, wall: Clock): Readiness {
  const now = wall.now();
  if (!src.started)
    return { reconciled: false, fresh: false, detail: 'starting: restart recovery in progress' };
  const roundAge = src.lastFullRoundAt === undefined ? undefined : now - src.lastFullRoundAt;
  const tickAge = src.lastTickersAt === undefined ? undefined : now - src.lastTickersAt;
  const reconciled = roundAge !== undefined && roundAge <= limits.reconcileMaxAgeMs;
  const fresh = tickAge !== undefined && tickAge <= limits.staleAfterMs;
  const details: string[] = [];
  if (!reconciled)
    details.push(roundAge === undefined ? 'no reconciliation yet' : `last reconciliation ${roundAge} ms ago`);
  if (!fresh) details.push(tickAge === undefined ? 'no tickers yet' : `last tickers ${tickAge} ms ago`);
  return { reconciled, fresh, ...(details.length > 0 ? { detail: details.join('; ') } : {}) };
}
