// Charging many requests at their own times in one pass: the reads of the reconciliation rounds a
// backtest's sleeping loops slept through (src/reconcile/pollers.ts `wake`). Decides exactly as
// `tryConsume` per request would (property-tested: test/execution/budget-groups.property.test.ts).
import type { EndpointId } from '../core/endpoints.ts';
import { append, expire, readEntries } from '../core/sliding-window.ts';
import {
  costOf,
  effectiveLimits,
  factorAt,
  moved,
  tryConsume,
  type BudgetState,
  type RequestCost,
} from './budget.ts';

/** Requests charged together at one time (the reads of one reconciliation round), for `consumeGroups`. */
export interface ChargeGroup {
  readonly at: number;
  readonly endpoints: readonly (EndpointId | RequestCost)[];
}

/**
 * Grants `groups` (in time order) one group at a time, exactly as calling `tryConsume` for each
 * request of each group in turn would, and stops at the first group with a refused request (nothing
 * of that group is granted). Returns how many groups were granted and the state after them.
 *
 * One pass instead of a state per request: the requests are weighed in a small mutable window, and
 * only those still inside the window at the last granted time are written to the state's log. A long
 * quiet spell of a backtest (thousands of reconciliation rounds slept through) then costs a few
 * arithmetic operations per request. Property-tested against `tryConsume` (budget-groups test).
 */
export function consumeGroups(
  state: BudgetState,
  groups: readonly ChargeGroup[],
): { readonly granted: number; readonly state: BudgetState } {
  if (groups.some((g) => g.endpoints.some((e) => costOf(e).orderRateCapped))) {
    return consumeGroupsOneByOne(state, groups);
  }
  const windowMs = state.weights.windowMs;
  const first = Math.max(groups[0]?.at ?? state.clock, state.clock);
  // The window's live entries at the first group's time, then every granted request after them.
  const times: number[] = [];
  const ips: number[] = [];
  const uids: number[] = [];
  readEntries(expire(state.weights, first), times, [ips, uids]);
  let head = 0;
  let ipSum = 0;
  let uidSum = 0;
  for (let i = 0; i < times.length; i++) {
    ipSum += ips[i] ?? 0;
    uidSum += uids[i] ?? 0;
  }
  const fresh = times.length;
  let clock = state.clock;
  let granted = 0;
  let ipTotal = 0;
  let uidTotal = 0;
  let requests = 0;
  let limits = effectiveLimits(state.config, factorAt(state, first));
  const fullFactor = state.factorAtShrink >= 1;
  for (const g of groups) {
    // A group without requests is granted as tryConsume would grant nothing: no check, no clock.
    if (g.endpoints.length === 0) {
      granted++;
      continue;
    }
    const t = Math.max(g.at, clock);
    if (state.backoffUntil > t) break;
    const headBefore = head;
    const [ipBefore, uidBefore] = [ipSum, uidSum];
    while (head < times.length && (times[head] ?? 0) <= t - windowMs) {
      ipSum -= ips[head] ?? 0;
      uidSum -= uids[head] ?? 0;
      head++;
    }
    if (!fullFactor) limits = effectiveLimits(state.config, factorAt(state, t));
    const mark = times.length;
    let refused = false;
    let ipGroup = 0;
    let uidGroup = 0;
    for (const e of g.endpoints) {
      const cost = costOf(e);
      if (
        (cost.ipWeight > 0 && ipSum + cost.ipWeight > limits.ip) ||
        (cost.uidWeight > 0 && uidSum + cost.uidWeight > limits.uid)
      ) {
        refused = true;
        break;
      }
      if (cost.ipWeight > 0 || cost.uidWeight > 0) {
        times.push(t);
        ips.push(cost.ipWeight);
        uids.push(cost.uidWeight);
        ipSum += cost.ipWeight;
        uidSum += cost.uidWeight;
      }
      ipGroup += cost.ipWeight;
      uidGroup += cost.uidWeight;
    }
    if (refused) {
      // Undo the group, expiry included: the state ends at the last granted time, where the
      // entries this group's later time expired are still live.
      times.length = ips.length = uids.length = mark;
      head = headBefore;
      ipSum = ipBefore;
      uidSum = uidBefore;
      break;
    }
    ipTotal += ipGroup;
    uidTotal += uidGroup;
    requests += g.endpoints.length;
    clock = t;
    granted++;
  }
  if (requests === 0) return { granted, state };
  // Requests expired by the last granted time can never weigh on a later request: only the others
  // enter the log (which keeps its older entries; they expire there as usual).
  let weights = state.weights;
  for (let i = fresh; i < times.length; i++) {
    const t = times[i] ?? clock;
    if (t > clock - windowMs) weights = append(weights, t, [ips[i] ?? 0, uids[i] ?? 0]);
  }
  const totals = {
    ipWeight: state.totals.ipWeight + ipTotal,
    uidWeight: state.totals.uidWeight + uidTotal,
    requests: state.totals.requests + requests,
  };
  return { granted, state: moved(state, weights, state.orders, clock, totals) };
}

/** `consumeGroups` by `tryConsume` per request (order-rate-capped requests take this path). */
function consumeGroupsOneByOne(
  state: BudgetState,
  groups: readonly ChargeGroup[],
): { readonly granted: number; readonly state: BudgetState } {
  let granted = 0;
  for (const g of groups) {
    let next = state;
    for (const e of g.endpoints) {
      const r = tryConsume(next, g.at, e);
      if (!r.granted) return { granted, state };
      next = r.state;
    }
    state = next;
    granted++;
  }
  return { granted, state };
}
