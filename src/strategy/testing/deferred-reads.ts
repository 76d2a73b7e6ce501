// The quiet tickers reads of a virtual-time session, charged later in one pass (discrete events).
//
// A backtest's quiet poll (nothing in flight, no timer due) reads the tickers, and that read costs
// weight as it would live. Charging it at once, through the executor's budget and the simulator's
// windows, costs more than the rest of the poll. It does not have to happen at once: a charge only
// matters when something reads the budget (a request, a skipped round) or when it is refused. So the
// read is deferred, its time recorded, and charged at the next wake of the reconciliation loops, in
// time order with the rounds they slept through (RoundShortcut.takeDeferred), exactly where it would
// have been charged. What cannot happen is a refusal: a read is deferred only when the window it
// falls in provably has room for it, whatever else is charged there:
//
//   used at the last charge + slept rounds' bound + deferred reads in the window + this read ≤ limit
//
// for the IP and the UID pools, with the tighter of the budget's and the simulator's limits, over the
// longer of their windows. `used` only shrinks as time passes (entries expire), the rounds' bound is
// their most per window (Reconciler.skippedWeightBound), and the deferred reads are counted exactly:
// so the check can only be pessimistic. When it fails, the poll charges its read at once as before
// (after the deferred ones: time order holds).
import { ENDPOINTS, type UnsentReads } from '../../core/endpoints.ts';

/** Weight of each pool: IP and UID. */
export interface PoolWeights {
  readonly ip: number;
  readonly uid: number;
}

/** What the check needs at the last charge (recomputed after every charge). */
export interface DeferralRoom {
  /** Weight in the windows right after the last charge (an upper bound of what is left of it later). */
  readonly used: PoolWeights;
  /** The tighter of the budget's effective limits and the simulator's. */
  readonly limit: PoolWeights;
  /** Most weight the skipped rounds can take in one window (undefined: not known, never defer). */
  readonly rounds: PoolWeights | undefined;
  /** False while the budget is shrunk or backing off after a 429: never defer then. */
  readonly steady: boolean;
}

const TICKERS = ENDPOINTS.tickers;
const TICKERS_READ: readonly 'tickers'[] = ['tickers'];

export class DeferredReads {
  /** Times of the deferred reads, in order; `head` is the first still inside the window. */
  #times: number[] = [];
  #head = 0;
  #room: DeferralRoom | undefined;
  readonly #spanMs: number;
  readonly #measure: () => DeferralRoom;

  /**
   * `spanMs`: the longest window a pool is counted over. `measure` reads the room after a charge; it
   * is called lazily, at the first deferral after one.
   */
  constructor(spanMs: number, measure: () => DeferralRoom) {
    this.#spanMs = spanMs;
    this.#measure = measure;
  }

  get size(): number {
    return this.#times.length;
  }

  /** Defers a tickers read at `t` (≥ every earlier one) when no window can refuse it; false otherwise. */
  tryDefer(t: number): boolean {
    const room = (this.#room ??= this.#measure());
    if (!room.steady || room.rounds === undefined) {
      this.#room = undefined; // a backing-off budget recovers with time: look again next poll
      return false;
    }
    const times = this.#times;
    let head = this.#head;
    while (head < times.length && (times[head] as number) <= t - this.#spanMs) head++;
    this.#head = head;
    const reads = times.length - head + 1;
    if (
      room.used.ip + room.rounds.ip + reads * TICKERS.ipWeight > room.limit.ip ||
      room.used.uid + room.rounds.uid + reads * TICKERS.uidWeight > room.limit.uid
    ) {
      return false;
    }
    times.push(t);
    return true;
  }

  /** Hands over every deferred read (to be charged now); the room is measured again after that. */
  take(): readonly UnsentReads[] {
    this.#room = undefined;
    if (this.#times.length === 0) return [];
    const out = this.#times.map((at): UnsentReads => ({ at, endpoints: TICKERS_READ }));
    this.#times = [];
    this.#head = 0;
    return out;
  }

  /** Forgets the measured room (something else took weight). */
  invalidate(): void {
    this.#room = undefined;
  }
}
