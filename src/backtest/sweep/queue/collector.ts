// The results of a distributed sweep, keyed by grid point: the first reply for a point counts, any
// later one (a job retried after its worker stalled, then finished twice) is ignored, as is a reply
// for a point this sweep does not have. Pure: no Redis, no timers.
import type { SweepReply } from '../protocol.ts';

export class ResultCollector {
  readonly #expected: ReadonlySet<number>;
  readonly #replies = new Map<number, SweepReply>();

  constructor(indexes: Iterable<number>) {
    this.#expected = new Set(indexes);
  }

  /** Records a reply; true when it is the first for an expected point. */
  accept(reply: SweepReply): boolean {
    if (!this.#expected.has(reply.index) || this.#replies.has(reply.index)) return false;
    this.#replies.set(reply.index, reply);
    return true;
  }

  has(index: number): boolean {
    return this.#replies.has(index);
  }

  get done(): number {
    return this.#replies.size;
  }

  get complete(): boolean {
    return this.#replies.size === this.#expected.size;
  }

  /** The points still without a reply, in grid order. */
  missing(): number[] {
    return [...this.#expected].filter((i) => !this.#replies.has(i)).sort((a, b) => a - b);
  }

  /** Every reply, by grid index. */
  replies(): SweepReply[] {
    return [...this.#replies.values()].sort((a, b) => a.index - b.index);
  }
}
