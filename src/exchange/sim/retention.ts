// What the simulator may forget (issue #24): a long backtest must not keep every order and fill of
// the run in memory when no query can reach them any more. The real venue serves order history for
// 90 days; the simulator keeps a shorter, documented retention R in its own (virtual) time, chosen
// so that no answer the engine can get changes:
//
//  Orders. Order history answers the newest `pageSize` (≤ HISTORY_PAGE_MAX = 100) orders of a symbol
//  created since `createDate`, newest first, and has no page 2 (weex-facts.md §8). An order with 100
//  orders of its symbol created after it can never again be on any page, whatever the createDate and
//  with or without a symbol. So a terminal order leaves memory once
//    - it has been terminal for longer than R, and
//    - the 100th order of its symbol created after it was created more than R ago
//  (the second clause also keeps the stale-history fault's views, which look up to R back, as they
//  were). Cancels of a forgotten order answer 50005 "order does not exist", as they do for any
//  finished order. Active orders are never forgotten. A client_oid is refused as a duplicate only
//  while its order is remembered (capibot never reuses one).
//
//  Fills. The fills endpoint filters by time: the simulator serves the fills created at most R
//  before its latest fill, and forgets the older ones (a query's window that reaches further back
//  answers without them: `list` and `totals` leave them out, and a window wholly before is an empty
//  page, `{list: [], nextFlag: false, totals: 0}` — the venue no longer serves them). R counts back
//  from the latest fill, not from now: the reconciler's fills poll restarts at the newest fill it saw
//  minus its overlap, however long ago that fill was, so with R above the overlap plus the time a fill
//  waits to be seen, every window the reconciler asks for is served whole.
//
// Nothing here changes the state version (src/exchange/sim/matching.ts `version`): forgetting changes
// no answer. Each order and fill enters and leaves these queues once: amortised O(1).

import { sumSizes, type Footprint } from '../../core/footprint.ts';
import { NO_OBJECTS, objectList } from '../../core/object-lists.ts';
import { SIM_COMPACT_MIN_DEAD } from './compaction.ts';

/** The most rows one order-history page holds (the sim's `pageSize` bound). */
export const HISTORY_PAGE_MAX = 100;

/** Default retention of the in-process simulator (SimPort): one hour of its own time. */
export const DEFAULT_SIM_RETENTION_MS = 3_600_000;

interface Ended {
  readonly orderId: string;
  readonly at: number;
}

/** Which terminal orders may be forgotten, and when (the order rules above). */
export class OrderRetention {
  readonly retentionMs: number;
  readonly #pageMax: number;
  /** Per symbol: the ids of its last `pageMax` orders, oldest first. */
  readonly #recent = new Map<string, string[]>();
  /** Per order: when the `pageMax`-th later order of its symbol was created. */
  readonly #coveredAt = new Map<string, number>();
  /** Per symbol: terminal orders in the order they ended (times never decrease). */
  readonly #ended = new Map<string, Ended[]>();
  /** Per symbol: index of the first entry of `#ended` still waiting. */
  readonly #head = new Map<string, number>();
  /**
   * No call of `due` before this time can return anything (each queue's head waits until both it and
   * its burial are older than the retention), unless an order ended or was buried since (`#changed`).
   * Keeps `due`, called on every advance of the simulator's clock, O(1) between changes.
   */
  #quietUntil = Number.NEGATIVE_INFINITY;
  #changed = false;

  constructor(retentionMs: number, pageMax = HISTORY_PAGE_MAX) {
    this.retentionMs = retentionMs;
    this.#pageMax = pageMax;
  }

  /** An order was created (in creation order). */
  created(orderId: string, symbol: string, at: number): void {
    let recent = this.#recent.get(symbol);
    if (recent === undefined) {
      recent = [];
      this.#recent.set(symbol, recent);
    }
    if (recent.length >= this.#pageMax) {
      const buried = recent.shift();
      if (buried !== undefined) {
        this.#coveredAt.set(buried, at);
        this.#changed = true;
      }
    }
    recent.push(orderId);
  }

  /** An order became terminal at `at` (times never decrease). */
  ended(orderId: string, symbol: string, at: number): void {
    let q = this.#ended.get(symbol);
    if (q === undefined) {
      q = [];
      this.#ended.set(symbol, q);
      this.#head.set(symbol, 0);
    }
    q.push({ orderId, at });
    this.#changed = true;
  }

  /**
   * The orders that may be forgotten at `now`, per symbol in the order they ended. A symbol's queue
   * waits at its first order not yet buried by 100 later ones (it will be, after at most 100 more
   * orders of the symbol): the orders behind it stay a little longer, never more than that.
   */
  due(now: number): readonly string[] {
    if (!this.#changed && now <= this.#quietUntil) return NO_OBJECTS;
    this.#changed = false;
    let quietUntil = Number.POSITIVE_INFINITY;
    const horizon = now - this.retentionMs;
    const out = objectList<string>();
    for (const [symbol, q] of this.#ended) {
      let i = this.#head.get(symbol) ?? 0;
      while (i < q.length) {
        const e = q[i] as Ended;
        const covered = this.#coveredAt.get(e.orderId);
        if (e.at >= horizon || covered === undefined || covered >= horizon) {
          // Due once both are older than the retention (never, until buried: `#changed` then).
          if (covered !== undefined)
            quietUntil = Math.min(quietUntil, Math.max(e.at, covered) + this.retentionMs);
          break;
        }
        this.#coveredAt.delete(e.orderId);
        out.push(e.orderId);
        i++;
      }
      if (i >= SIM_COMPACT_MIN_DEAD && i * 2 >= q.length) {
        q.splice(0, i);
        i = 0;
      }
      this.#head.set(symbol, i);
    }
    this.#quietUntil = quietUntil;
    return out;
  }

  /**
   * Per symbol its last `pageMax` orders; the orders buried and not forgotten yet; the ended orders
   * waiting, and the queues' backing arrays (./compaction.ts): core/footprint.ts.
   */
  footprint(): Footprint {
    return {
      recent: sumSizes(this.#recent),
      coveredAt: this.#coveredAt.size,
      ended: this.waiting,
      endedBacking: sumSizes(this.#ended),
      head: this.#head.size,
    };
  }

  /** Orders waiting to be forgotten (for tests and figures). */
  get waiting(): number {
    let n = 0;
    for (const [symbol, q] of this.#ended) n += q.length - (this.#head.get(symbol) ?? 0);
    return n;
  }
}
