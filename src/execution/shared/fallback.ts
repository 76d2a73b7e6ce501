// What a process may spend while it cannot reach Redis (pure). Its share is the fraction of the
// budget Redis last gave it (1/N once every member has heard of the others, N the member count; the
// shares never sum past 1); counted in its own window (its grants before the fallback included), by
// the pure kernel with the safety margin multiplied by the share.
//
// Why the total never exceeds the budget:
// - Before spending its share, the process waits out a quarantine of window + guard + staleAfterMs
//   from the moment it lost Redis: by then every grant the others made before Redis saw it stale has
//   expired, and every later shared grant was made with its share held back (lua.ts staleShares).
// - It stops spending (pauses) once Redis could forget it (memberTtlMs after its last contact, minus
//   one window so that its last grants have expired by then).
// - Back on Redis, it replays what it granted in fallback as one entry at the rejoin time (later than
//   the real grants, so they count at least as long), before its share stops being held back.
import { usage, type BudgetConfig, type BudgetState, type RequestCost } from '../budget.ts';

/** The budget config of a share (0 < share ≤ 1): the same product Redis holds back (lua.ts heldBack). */
export function shareConfig(config: BudgetConfig, share: number): BudgetConfig {
  return Object.freeze({ ...config, safetyMargin: config.safetyMargin * share });
}

/** How long after losing Redis a process waits before spending its share. */
export function quarantineMs(config: BudgetConfig, staleAfterMs: number): number {
  return config.windowMs + config.guardMs + staleAfterMs;
}

/**
 * The fallback budget entered at `at`: the process's own window, the share's limits, the quarantine.
 * Undefined for a share of 0 (a newcomer whose share the others have not yet made room for).
 */
export function enterShare(
  own: BudgetState,
  share: number,
  at: number,
  staleAfterMs: number,
): BudgetState | undefined {
  if (!(share > 0)) return undefined;
  return {
    ...own,
    config: shareConfig(own.config, share),
    backoffUntil: Math.max(own.backoffUntil, at + quarantineMs(own.config, staleAfterMs)),
  };
}

/** A grant made while Redis could not see it. */
export interface UnseenGrant {
  readonly t: number;
  readonly cost: RequestCost;
}

/** The weight of `grants` still inside their windows at `now`: what a rejoin replays. */
export function unexpired(
  grants: readonly UnseenGrant[],
  config: BudgetConfig,
  now: number,
): { ipWeight: number; uidWeight: number; orders: number } {
  let ipWeight = 0;
  let uidWeight = 0;
  let orders = 0;
  for (const g of grants) {
    if (now - g.t < config.windowMs + config.guardMs) {
      ipWeight += g.cost.ipWeight;
      uidWeight += g.cost.uidWeight;
    }
    if (g.cost.orderRateCapped && now - g.t < config.orderRateWindowMs + config.guardMs) orders++;
  }
  return { ipWeight, uidWeight, orders };
}

/** A process's whole own window at `now` (replayed when Redis lost its state). */
export function ownWindow(
  own: BudgetState,
  now: number,
): { ipWeight: number; uidWeight: number; orders: number } {
  const u = usage(own, now);
  return { ipWeight: u.ip.used, uidWeight: u.uid.used, orders: u.orderRate.used };
}
