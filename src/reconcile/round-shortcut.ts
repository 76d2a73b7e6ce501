// The backtest's round shortcut (the contract a venue offers the reconciliation pollers) and the
// rounds sleeping loops slept through, merged in time order to be charged in one call (pure).
import type { BulkCharges, EndpointId, UnsentReads } from '../core/endpoints.ts';
import { objectList } from '../core/object-lists.ts';
import { sortInPlace } from '../core/small-sort.ts';
import type { PlanCursor } from './plan-history-window.ts';

/**
 * Backtests against the in-process simulator: a poll whose answer cannot differ from the last one is
 * not sent, but still weighed and counted, at the moment it would have been sent.
 *
 * A loop's round is skipped only when (1) the venue's state version is the one its last real round
 * started at — no order or fill changed there since, so every read would return the same rows; (2)
 * every live local order has its exchange id — nothing is waiting for an outcome that a round could
 * settle or declare lost as time passes; and (3) `chargeUnsent` takes the weight of the reads that
 * last real round made, which it does only when sending them would not have waited for anything (the
 * executor has no work and the budget grants them at once). Such a round would have found nothing to
 * change; skipping it leaves orders, fills, weights, request counts and timing exactly as they would
 * have been, which the backtest/live parity test checks. Plan polls are skipped alike (a plan's
 * every revision changes the venue version; their cursor still moves on, as a real poll moves it).
 */
export interface RoundShortcut {
  /**
   * Changes whenever something `loop` reads changes at the venue: an order or a fill for the fills
   * and history loops, a plan order (or a triggered plan's child) for the plan loop.
   */
  readonly venueVersion: (loop: Loop) => number;
  /**
   * Charges reads that are not sent, at `at` (default now: then only while sending them would not
   * have waited for anything); false (the round then runs for real) when that cannot be done.
   */
  readonly chargeUnsent: (endpoints: readonly EndpointId[], at?: number) => boolean;
  /**
   * `chargeUnsent(endpoints, at)` for each round in turn (rounds in time order), stopping at the first
   * that cannot be charged; returns how many were. One call for everything a sleeping loop slept
   * through, so a long quiet spell costs little per round.
   */
  readonly chargeUnsentRounds: (rounds: readonly UnsentReads[]) => number;
  /**
   * True while the venue changes only through requests (nothing of its own falls due with time).
   * Then a loop whose round was skipped sleeps without a timer until `wake` (work reaches the
   * executor, or the driver asks): the rounds that fell due meanwhile are charged then, each at its
   * own time, exactly as the skipped rounds they would have been. Absent: loops always keep timers.
   */
  readonly quiet?: () => boolean;
  /**
   * Reads the driver deferred (a backtest's quiet tickers polls, src/strategy/testing/session.ts), in
   * time order, handed over to be charged together with the slept rounds: `wake` merges them in time
   * order (at one instant, the rounds first, as a poll's read charged them after waking the loops)
   * and charges everything in one `chargeUnsentRounds` call. The driver defers a read only when no
   * weight window can refuse it (DeferredReads), so every one of them is charged.
   */
  readonly takeDeferred?: () => readonly UnsentReads[];
  /**
   * True when no weight window up to now can refuse a round slept through (what the windows hold,
   * the rounds' most per window and the deferred reads fit every pool; DeferredReads.roomForRounds).
   * A loop may then sleep through a timed round that would be skipped, its charge left to the next
   * `wake` (SleepingLoops.sleepThroughRound). Absent: never.
   */
  readonly sleepRoom?: () => boolean;
  /**
   * Charges in closed form (discrete events): `wake` hands over every round slept through and every
   * deferred read as counts per endpoint plus the requests of the last `spanMs` (the only ones that
   * can still weigh on a later request), with bounds of what any one window holds. `charge` takes
   * them only when it can prove that no window would have refused any of them (else false, and wake
   * charges round by round). Absent: always round by round.
   */
  readonly bulk?: {
    readonly spanMs: number;
    readonly charge: (b: BulkCharges) => boolean;
  };
}

export type Loop = 'fills' | 'history' | 'plans';

/** A slept round or a deferred read, in the time order `wake` charges them. */
export type Charge = { readonly round: SleptRound } | { readonly deferred: UnsentReads };

/**
 * Merges slept rounds and deferred reads (each in time order) into one time-ordered list; at one
 * instant the rounds come first.
 */
export function mergeCharges(rounds: readonly SleptRound[], deferred: readonly UnsentReads[]): Charge[] {
  const out = objectList<Charge>();
  let j = 0;
  for (const round of rounds) {
    for (let d = deferred[j]; d !== undefined && d.at < round.at; d = deferred[++j])
      out.push({ deferred: d });
    out.push({ round });
  }
  for (let d = deferred[j]; d !== undefined; d = deferred[++j]) out.push({ deferred: d });
  return out;
}

/**
 * Rank of each loop among rounds due at one instant: a fixed order, so charges are deterministic.
 * (Live timers due at one instant fire in the order they were set; that order matters only when a
 * window is full to the last request, and then only for which of two reads waits.)
 */
export const LOOP_ORDER: Readonly<Record<Loop, number>> = { fills: 0, history: 1, plans: 2 };

/** The reads of one skipped round; plan polls also move the plan cursor. */
export interface SkippedReads {
  readonly endpoints: readonly EndpointId[];
  readonly planCursor?: PlanCursor;
}

/** A round a sleeping loop slept through (Reconciler.wake). */
export interface SleptRound extends UnsentReads {
  readonly loop: Loop;
  /** When the loop's next round falls due after this one. */
  readonly next: number;
  /** Plan polls: the cursor after this round. */
  readonly planCursor?: PlanCursor;
}

/**
 * The rounds each sleeping loop slept through up to `now` (its first at `due`, then every
 * `intervalAt(loop, at)`), merged in time order (ties: fills, history, plans). `readsAt` gives a round's reads (plan polls: from the cursor the previous round left);
 * undefined means they are not known, and the loop is `blocked`: it must run that round for real.
 */
export function sleptRounds(
  loops: readonly { readonly loop: Loop; readonly due: number }[],
  now: number,
  readsAt: (loop: Loop, at: number, cursor: PlanCursor | undefined) => SkippedReads | undefined,
  intervalAt: (loop: Loop, at: number) => number,
): { rounds: SleptRound[]; blocked: Set<Loop> } {
  const rounds: SleptRound[] = [];
  const blocked = new Set<Loop>();
  for (const { loop, due } of loops) {
    let cursor: PlanCursor | undefined;
    for (let at = due; at <= now;) {
      const reads = readsAt(loop, at, cursor);
      if (reads === undefined) {
        blocked.add(loop);
        break;
      }
      cursor = reads.planCursor;
      const next = at + Math.max(1, intervalAt(loop, at));
      rounds.push({ loop, at, endpoints: reads.endpoints, next, ...(cursor ? { planCursor: cursor } : {}) });
      at = next;
    }
  }
  sortInPlace(rounds, (a, b) => a.at - b.at || LOOP_ORDER[a.loop] - LOOP_ORDER[b.loop]);
  return { rounds, blocked };
}
