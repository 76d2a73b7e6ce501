// The executor's account of what it sends: the weight-budget state, the requests per endpoint and the call counters behind metrics(); every request sent or charged unsent is counted here, exactly once.
import { ENDPOINTS, type BulkCharges, type EndpointId, type UnsentReads } from '../core/endpoints.ts';
import { InvariantViolation } from '../core/errors.ts';
import type { Footprint } from '../core/footprint.ts';
import { mapToObjects } from '../core/object-lists.ts';
import { entries, expire, windowFootprint } from '../core/sliding-window.ts';
import {
  moved,
  onRateLimited,
  recordGrant,
  tryConsume,
  usage,
  type BudgetState,
  type BudgetUsage,
  type ConsumeResult,
} from './budget.ts';
import { consumeGroups } from './budget-groups.ts';
import type { BudgetGate } from './budget-gate.ts';
import type { ExecutorMetrics } from './executor-types.ts';

export class RequestLedger {
  #budget: BudgetState;
  readonly #requests: Partial<Record<EndpointId, number>> = {};
  /** The sum of #requests (sent or charged unsent), kept as it changes: a cheap progress counter. */
  #requestTotal = 0;
  rateLimited = 0;
  batchCalls = 0;
  batchEntries = 0;
  singleCalls = 0;
  cancelsSent = 0;
  superseded = 0;
  outcomeUnknown = 0;

  /** The budget shared with other processes (config `budget.shared`), when there is one. */
  readonly gate: BudgetGate | undefined;

  constructor(budget: BudgetState, gate?: BudgetGate) {
    this.#budget = budget;
    this.gate = gate;
  }

  /**
   * With a shared budget: the gate decides (asynchronously), and a granted request is recorded in
   * this process's budget too (its figures and window), without a second check. `now` is read after
   * the gate answered.
   */
  async consumeShared(gate: BudgetGate, now: () => number, endpoint: EndpointId): Promise<ConsumeResult> {
    const d = await gate.reserve(endpoint);
    if (!d.granted) return { granted: false, waitMs: d.waitMs, state: this.#budget };
    this.#budget = recordGrant(this.#budget, now(), endpoint);
    this.#count(endpoint, 1);
    return { granted: true, state: this.#budget };
  }

  /** Asks the budget for one request of `endpoint` at `now`; a granted request is counted. */
  consume(now: number, endpoint: EndpointId): ConsumeResult {
    const r = tryConsume(this.#budget, now, endpoint);
    this.#budget = r.state;
    if (r.granted) this.#count(endpoint, 1);
    return r;
  }

  /** A 429: counted, and the budget backs off. */
  rateLimitedAt(now: number, retryAfterMs: number): void {
    this.rateLimited++;
    this.#budget = onRateLimited(this.#budget, now, retryAfterMs);
    this.gate?.rateLimited(retryAfterMs);
  }

  /**
   * Charges one request of each of `endpoints` at `now` when the budget grants every one at once and
   * then `venue` agrees; false, with nothing charged, otherwise (UnsentCharges.charge).
   */
  chargeUnsent(endpoints: readonly EndpointId[], venue: () => boolean, now: number): boolean {
    let budget = this.#budget;
    for (const endpoint of endpoints) {
      const r = tryConsume(budget, now, endpoint);
      if (!r.granted) return false;
      budget = r.state;
    }
    if (!venue()) return false;
    this.#budget = budget;
    for (const endpoint of endpoints) this.#count(endpoint, 1);
    return true;
  }

  /**
   * Charges the first rounds the budget grants and `venue` takes, each at its own time; returns how
   * many (UnsentCharges.chargeRounds).
   */
  chargeUnsentRounds(
    rounds: readonly UnsentReads[],
    venue: (granted: readonly UnsentReads[]) => number,
  ): number {
    const budgeted = consumeGroups(this.#budget, rounds);
    const n = budgeted.granted;
    const taken = n === 0 ? 0 : venue(n === rounds.length ? rounds : rounds.slice(0, n));
    if (taken === 0) return 0;
    this.#budget = taken === n ? budgeted.state : consumeGroups(this.#budget, rounds.slice(0, taken)).state;
    for (let i = 0; i < taken; i++) {
      for (const endpoint of rounds[i]?.endpoints ?? []) this.#count(endpoint, 1);
    }
    return taken;
  }

  /**
   * Charges a pass of reads no window can refuse: the tail through the budget at its times, the rest
   * only into the totals and counts (UnsentCharges.chargeBulk). Throws when a tail read is refused.
   */
  chargeBulk(b: Pick<BulkCharges, 'counts' | 'tail'>): void {
    const r = consumeGroups(this.#budget, b.tail);
    if (r.granted !== b.tail.length)
      throw new InvariantViolation(
        `executor: a read of a bulk charge was refused at ${b.tail[r.granted]?.at}`,
      );
    let ip = 0;
    let uid = 0;
    let requests = 0;
    for (const [id, n] of Object.entries(b.counts) as [EndpointId, number][]) {
      ip += ENDPOINTS[id].ipWeight * n;
      uid += ENDPOINTS[id].uidWeight * n;
      requests += n;
      this.#count(id, n);
    }
    for (const g of b.tail) {
      for (const id of g.endpoints) {
        ip -= ENDPOINTS[id].ipWeight;
        uid -= ENDPOINTS[id].uidWeight;
        requests--;
      }
    }
    const s = r.state;
    this.#budget = moved(s, s.weights, s.orders, s.clock, {
      ipWeight: s.totals.ipWeight + ip,
      uidWeight: s.totals.uidWeight + uid,
      requests: s.totals.requests + requests,
    });
  }

  #count(endpoint: EndpointId, n: number): void {
    this.#requests[endpoint] = (this.#requests[endpoint] ?? 0) + n;
    this.#requestTotal += n;
  }

  /**
   * The budget's windows (the requests of the last window and their backing stores) and the
   * per-endpoint counts (footprint.ts).
   */
  footprint(): Footprint {
    return {
      ...windowFootprint('weights', this.#budget.weights),
      ...windowFootprint('orders', this.#budget.orders),
      endpoints: Object.keys(this.#requests).length,
    };
  }

  /** Requests sent or charged unsent so far, every endpoint (the sum of `requestsByEndpoint`). */
  get requestTotal(): number {
    return this.#requestTotal;
  }

  usage(now: number): BudgetUsage {
    return usage(this.#budget, now);
  }

  /** The weight pools' live requests at `now`, oldest first: time, IP weight, UID weight. */
  window(now: number): readonly (readonly [number, number, number])[] {
    const log = expire(this.#budget.weights, Math.max(now, this.#budget.clock));
    return mapToObjects(entries(log), (e) => [e.t, e.weights[0] ?? 0, e.weights[1] ?? 0] as const);
  }

  metrics(): ExecutorMetrics {
    const totals = this.#budget.totals;
    return {
      requestsByEndpoint: { ...this.#requests },
      weightUsed: { ip: totals.ipWeight, uid: totals.uidWeight },
      rateLimited: this.rateLimited,
      batchCalls: this.batchCalls,
      batchEntries: this.batchEntries,
      singleCalls: this.singleCalls,
      cancelsSent: this.cancelsSent,
      superseded: this.superseded,
      outcomeUnknown: this.outcomeUnknown,
    };
  }
}
