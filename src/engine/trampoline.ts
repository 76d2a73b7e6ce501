// A serial work queue. Engine steps run one after the other, never nested: when a step causes
// another (an order update reaching a strategy that answers with a new intent), the new one runs
// after the current step finishes. Deterministic order, no re-entrancy into strategy code, and a
// single place ("the outermost step ended") to flush the executor's coalescing window.
import type { Footprint } from '../core/footprint.ts';
import { objectList } from '../core/object-lists.ts';

export class Trampoline {
  /** One hidden class, empty or full (core/object-lists.ts). */
  readonly #queue: (() => void)[] = objectList();
  #running = false;
  readonly #afterDrain: () => void;

  /** `afterDrain` runs each time the queue empties after the outermost step. */
  constructor(afterDrain: () => void) {
    this.#afterDrain = afterDrain;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Steps queued behind the one running (emptied whenever the outermost step ends): footprint.ts. */
  footprint(): Footprint {
    return { queue: this.#queue.length };
  }

  /** Runs `step` now, or after the step in progress when called from inside one. */
  run(step: () => void): void {
    if (this.#running) {
      this.#queue.push(step);
      return;
    }
    this.#running = true;
    const queue = this.#queue;
    try {
      step();
      // Steps queued meanwhile, in order (the loop sees those they queue in turn); most ticks queue none.
      for (let i = 0; i < queue.length; i++) (queue[i] as () => void)();
    } finally {
      this.#running = false;
      if (queue.length !== 0) queue.length = 0;
    }
    this.#afterDrain();
  }
}
