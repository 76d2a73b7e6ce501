// A serial work queue. Engine steps run one after the other, never nested: when a step causes
// another (an order update reaching a strategy that answers with a new intent), the new one runs
// after the current step finishes. Deterministic order, no re-entrancy into strategy code, and a
// single place ("the outermost step ended") to flush the executor's coalescing window.
import type { Footprint } from '../core/footprint.ts';

export class Trampoline {
  readonly #queue: (() => void)[] = [];
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
    this.#queue.push(step);
    if (this.#running) return;
    this.#running = true;
    try {
      for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) next();
    } finally {
      this.#running = false;
      this.#queue.length = 0;
    }
    this.#afterDrain();
  }
}
