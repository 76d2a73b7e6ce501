// Reads weighed but never sent: a backtest's reconciliation rounds against the in-process simulator
// that could not find anything, and its quiet tickers polls (RoundShortcut,
// src/reconcile/round-shortcut.ts). Each takes the budget's weight and counts exactly as the sent read
// would have, and only where sending it would not have waited for, nor delayed, anything. Live, nothing
// charges reads this way.
import type { Clock } from '../core/clock.ts';
import type { BulkCharges, EndpointId, UnsentReads } from '../core/endpoints.ts';
import type { RequestLedger } from './request-ledger.ts';

export interface UnsentChargesDeps {
  readonly clock: Clock;
  readonly ledger: RequestLedger;
  /** The executor stopped: nothing is charged any more. */
  readonly stopped: () => boolean;
  /** The executor has no work at all (nothing staged, pooled, queued, retrying or in flight). */
  readonly isEmpty: () => boolean;
}

export class UnsentCharges {
  readonly #d: UnsentChargesDeps;

  constructor(deps: UnsentChargesDeps) {
    this.#d = deps;
  }

  /**
   * Takes the weight of reads that are not sent as if they were sent now, and counts them; only when
   * sending them would not have waited or delayed anything: the executor has no work at all and the
   * budget grants every one at once, and `venue` (the simulator's own weighing) agreed. False, with
   * nothing taken here, otherwise.
   */
  charge(
    endpoints: readonly EndpointId[],
    venue: () => boolean = () => true,
    /** A round that fell due at this earlier time, while the executor had no work (RoundShortcut.quiet). */
    at?: number,
  ): boolean {
    const d = this.#d;
    if (d.stopped() || (at === undefined && !d.isEmpty())) return false;
    return d.ledger.chargeUnsent(endpoints, venue, at ?? d.clock.now());
  }

  /**
   * The rounds a sleeping reconciliation loop slept through (RoundShortcut.quiet), in time order, each
   * charged at its own time exactly as `charge(endpoints, venue, at)` per round would, in one pass
   * (budget.ts `consumeGroups`). `venue` charges the simulator for the rounds the budget granted and
   * says how many it took. Returns the number of rounds charged: the first ones.
   */
  chargeRounds(rounds: readonly UnsentReads[], venue: (granted: readonly UnsentReads[]) => number): number {
    if (this.#d.stopped() || rounds.length === 0) return 0;
    return this.#d.ledger.chargeUnsentRounds(rounds, venue);
  }

  /**
   * Charges a pass of reads that no window can refuse (RoundShortcut.bulk), as `chargeRounds` would
   * charge them one by one: the tail (the requests of the last window) through the budget at their
   * times, so its windows end the same; the others only into the totals and counts (they would have
   * expired from every window by then). False when stopped. Throws when a tail read is refused: the
   * caller's proof that none could be was wrong.
   */
  chargeBulk(b: Pick<BulkCharges, 'counts' | 'tail'>): boolean {
    if (this.#d.stopped()) return false;
    this.#d.ledger.chargeBulk(b);
    return true;
  }
}
