// At most `max` sends per sliding minute. `waitMs()` says how long until the next send may go.
export class SendRate {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #sent: number[] = [];
  readonly #now: () => number;

  constructor(max: number, now: () => number = Date.now, windowMs = 60_000) {
    this.#max = max;
    this.#now = now;
    this.#windowMs = windowMs;
  }

  waitMs(): number {
    const now = this.#now();
    while (this.#sent.length > 0 && (this.#sent[0] ?? 0) <= now - this.#windowMs) this.#sent.shift();
    if (this.#sent.length < this.#max) return 0;
    return Math.max(1, (this.#sent[0] ?? now) + this.#windowMs - now);
  }

  took(): void {
    this.#sent.push(this.#now());
  }
}
