// The placements the executor holds before they leave: staged (waiting for the end of the tick or
// the coalescing window) and eligible (waiting for a slot and budget). The next request is planned
// from the whole eligible pool at the moment it may leave, so batches fill up while the budget is
// short. Order within the pool is queue order; entries that come back unsent go to the front.
import type { Footprint } from '../core/footprint.ts';
import type { ClientOid } from '../core/ids.ts';
import { planPlacements, type PlannedCall, type PlannerOptions, type QueuedPlacement } from './planner.ts';
import { objectList } from '../core/object-lists.ts';

export interface PooledPlacement extends QueuedPlacement {
  /** OrderSubmitted was committed already (the entry came back after a 429 or a transport error). */
  submitted: boolean;
  /** Attempts that failed without reaching the exchange. */
  attempts: number;
}

export interface NextCall {
  readonly call?: PlannedCall<PooledPlacement>;
  /** Removed from the pool: replaced by newer placements (supersede). */
  readonly superseded: readonly PooledPlacement[];
}

export class PlacementPool {
  // Lists of one hidden class, empty or full (core/object-lists.ts): many paths ask their length.
  #staged = objectList<PooledPlacement>();
  #eligible = objectList<PooledPlacement>();

  get staged(): number {
    return this.#staged.length;
  }

  get eligible(): number {
    return this.#eligible.length;
  }

  /** Placements not sent yet (footprint.ts): each leaves when it is sent, withdrawn or superseded. */
  footprint(): Footprint {
    return { staged: this.#staged.length, eligible: this.#eligible.length };
  }

  stage(p: PooledPlacement): void {
    this.#staged.push(p);
  }

  /** Staged placements become eligible. True when any did. */
  release(): boolean {
    if (this.#staged.length === 0) return false;
    this.#eligible.push(...this.#staged);
    this.#staged = objectList();
    return true;
  }

  /** Removes a placement that has not left; false when it is not here. */
  withdraw(clientOid: ClientOid): boolean {
    for (const list of [this.#staged, this.#eligible]) {
      const i = list.findIndex((p) => p.clientOid === clientOid);
      if (i >= 0) {
        list.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  /** The most urgent call the planner makes of the eligible placements (nothing is taken yet). */
  next(options: Partial<PlannerOptions>): NextCall {
    const plan = planPlacements(this.#eligible, options);
    if (plan.superseded.length > 0) {
      const gone = new Set(plan.superseded.map((p) => p.clientOid));
      this.#eligible = this.#eligible.filter((p) => !gone.has(p.clientOid));
    }
    const call = plan.calls[0];
    // Not a leading conditional spread (core/copies.ts): this runs at every placement.
    return call !== undefined ? { call, superseded: plan.superseded } : { superseded: plan.superseded };
  }

  /** Takes the entries of a call out of the pool. */
  take(call: PlannedCall<PooledPlacement>): readonly PooledPlacement[] {
    const entries = call.kind === 'batch' ? call.entries : [call.entry];
    const taken = new Set(entries.map((e) => e.clientOid));
    this.#eligible = this.#eligible.filter((p) => !taken.has(p.clientOid));
    return entries;
  }

  /** Entries that came back unsent: eligible again, in front. */
  putBack(entries: readonly PooledPlacement[]): void {
    this.#eligible.unshift(...entries);
  }

  /** Empties the pool, returning everything that was in it. */
  clear(): PooledPlacement[] {
    const all = [...this.#staged, ...this.#eligible];
    this.#staged = objectList();
    this.#eligible = objectList();
    return all;
  }
}
