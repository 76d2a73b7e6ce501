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
//   requests charged before, still in the window + slept rounds' bound + deferred reads in the
//   window + this read ≤ limit
//
// for the IP and the UID pools, with the tighter of the budget's and the simulator's limits, over the
// longer of their windows. The requests charged before are the budget's window at the last charge
// (the simulator's holds no more), each leaving it as time passes; the rounds' bound is their most
// per window (Reconciler.skippedWeightBound); the deferred reads are counted exactly: so the check
// can only be pessimistic. When it fails, the poll charges its read at once as before
// (after the deferred ones: time order holds).
import { ENDPOINTS, type UnsentReads } from '../../core/endpoints.ts';
import { mapToObjects } from '../../core/object-lists.ts';

/** Weight of each pool: IP and UID. */
export interface PoolWeights {
  readonly ip: number;
  readonly uid: number;
}

/** What the check needs at the last charge (recomputed after every charge). */
export interface DeferralRoom {
  /** The requests in the windows right after the last charge: time, IP weight, UID weight, oldest first. */
  readonly window: readonly (readonly [number, number, number])[];
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
  /** The room's window entries still live at the last check: from `#live`, summing to `#used`. */
  #live = 0;
  // Stryker disable next-line ArrayDeclaration: set when the room is measured, before any read.
  #used: [number, number] = [0, 0];
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
    if (!this.#fits(t, 1)) return false;
    this.#times.push(t);
    return true;
  }

  /**
   * True when no window up to `t` can refuse any round slept through or any deferred read: the same
   * sum as `tryDefer`'s, without a read of its own. A reconciliation loop may then sleep through its
   * round at `t` (RoundShortcut.sleepRoom). Like `tryDefer`, it moves the window's cursors on to `t`:
   * `t` never decreases from one call of either to the next (virtual time).
   */
  roomForRounds(t: number): boolean {
    return this.#fits(t, 0);
  }

  /** The check of the file comment at `t`, with `reads` more tickers reads there. */
  #fits(t: number, reads: number): boolean {
    let room = this.#room;
    if (room === undefined) {
      room = this.#room = this.#measure();
      this.#live = 0;
      this.#used = [0, 0];
      for (const [, ip, uid] of room.window) {
        this.#used[0] += ip;
        this.#used[1] += uid;
      }
    }
    if (!room.steady || room.rounds === undefined) {
      this.#room = undefined; // a backing-off budget recovers with time: look again next poll
      return false;
    }
    // The requests charged before the room was measured, less those that left the window by t.
    for (
      let e = room.window[this.#live];
      e !== undefined && e[0] <= t - this.#spanMs;
      e = room.window[++this.#live]
    ) {
      this.#used[0] -= e[1];
      this.#used[1] -= e[2];
    }
    const [usedIp, usedUid] = this.#used;
    const times = this.#times;
    let head = this.#head;
    while ((times[head] ?? Number.POSITIVE_INFINITY) <= t - this.#spanMs) head++;
    this.#head = head;
    const inWindow = times.length - head + reads;
    return (
      usedIp + room.rounds.ip + inWindow * TICKERS.ipWeight <= room.limit.ip &&
      usedUid + room.rounds.uid + inWindow * TICKERS.uidWeight <= room.limit.uid
    );
  }

  /** Hands over every deferred read (to be charged now); the room is measured again after that. */
  take(): readonly UnsentReads[] {
    this.#room = undefined;
    const out = mapToObjects(this.#times, (at): UnsentReads => ({ at, endpoints: TICKERS_READ }));
    this.#times = [];
    this.#head = 0;
    return out;
  }
}
