// A set that remembers at most `capacity` values: adding one more forgets the oldest (a Set iterates
// in insertion order, so the oldest is its first). For "report each once" sets fed by what the
// outside world shows (foreign orders at the exchange): their memory stays flat however much the
// outside shows, at the price of reporting again a value forgotten long ago.
export class RecentSet<T> {
  readonly capacity: number;
  readonly #items = new Set<T>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
  }

  get size(): number {
    return this.#items.size;
  }

  has(value: T): boolean {
    return this.#items.has(value);
  }

  /** Adds `value` (forgetting the oldest beyond the capacity). False when it was already there. */
  add(value: T): boolean {
    if (this.#items.has(value)) return false;
    if (this.#items.size >= this.capacity) {
      const oldest = this.#items.values().next();
      if (oldest.done !== true) this.#items.delete(oldest.value);
    }
    this.#items.add(value);
    return true;
  }
}
