// Brute-force brake: a client that presented too many wrong tokens is refused (429, whatever it
// presents, a right token included) until its window has passed. Only WRONG tokens count: a request
// without any token is the browser's first step of Basic auth, not a guess. Keyed by the peer address
// (behind a reverse proxy every client shares the proxy's address, which makes the brake global:
// slower for the operator after an attack, never faster for the attacker).
export interface FailureLimitOptions {
  /** Wrong tokens allowed per window. Default 10. */
  readonly maxFailures?: number;
  /** Default 60 000 ms. */
  readonly windowMs?: number;
  /** Clients remembered at most (the oldest are forgotten). Default 10 000. */
  readonly maxClients?: number;
  readonly now?: () => number;
}

export class FailureLimit {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  /** Per client: the times of its recent failures (oldest first). */
  readonly #failures = new Map<string, number[]>();

  constructor(o: FailureLimitOptions = {}) {
    this.#max = o.maxFailures ?? 10;
    this.#windowMs = o.windowMs ?? 60_000;
    this.#maxClients = o.maxClients ?? 10_000;
    this.#now = o.now ?? Date.now;
  }

  #recent(key: string): number[] {
    const since = this.#now() - this.#windowMs;
    const list = (this.#failures.get(key) ?? []).filter((t) => t > since);
    if (list.length === 0) this.#failures.delete(key);
    else this.#failures.set(key, list);
    return list;
  }

  /** Milliseconds until `key` may try again; 0 = not blocked. */
  blockedForMs(key: string): number {
    const list = this.#recent(key);
    if (list.length < this.#max) return 0;
    const oldest = list[list.length - this.#max] ?? this.#now();
    return Math.max(1, oldest + this.#windowMs - this.#now());
  }

  fail(key: string): void {
    const list = this.#recent(key);
    list.push(this.#now());
    this.#failures.delete(key);
    this.#failures.set(key, list);
    if (this.#failures.size > this.#maxClients) {
      const first = this.#failures.keys().next();
      if (first.done !== true) this.#failures.delete(first.value);
    }
  }
}
