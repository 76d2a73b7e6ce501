// A weight budget that lives outside this process (the shared budget of several processes on one
// account, shared/shared-budget.ts). When the executor has one, every request it sends is reserved
// there first (asynchronously); without one, the in-process kernel (budget.ts) decides alone, exactly
// as before, with no await on the path.
import type { EndpointId } from '../core/endpoints.ts';

export type GateDecision =
  | { readonly granted: true }
  /** Try again after `waitMs` (finite: a gate never says "never"). */
  | { readonly granted: false; readonly waitMs: number };

export interface BudgetGate {
  /** Reserves one request of `endpoint` in every window it counts in, or says how long to wait. */
  reserve(endpoint: EndpointId): Promise<GateDecision>;
  /** The exchange answered 429: every process sharing the budget shrinks and backs off. */
  rateLimited(retryAfterMs: number): void;
}
