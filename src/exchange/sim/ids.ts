// Exchange-style ids: 18-digit decimal strings (beyond Number.MAX_SAFE_INTEGER, like the live ids
// `719220560554361701`), increasing, with small seeded gaps. Strings end to end; BigInt inside.
import { mulberry32, nextInt, type Rng } from './rng.ts';

const MIN_18_DIGITS = 100_000_000_000_000_000n;
const SPAN = 800_000_000_000_000_000n;

export class IdSequence {
  #next: bigint;
  readonly #rng: Rng;

  /** `salt` keeps two sequences of one seed (orders, trades) apart. */
  constructor(seed: number, salt: number) {
    this.#rng = mulberry32((seed ^ Math.imul(salt + 1, 0x9e3779b1)) >>> 0);
    // A start in [1e17, 9e17): 18 digits for a long time whatever the gaps.
    const hi = BigInt(nextInt(this.#rng, 0, 799_999));
    const lo = BigInt(nextInt(this.#rng, 0, 999_999_999));
    this.#next = MIN_18_DIGITS + ((hi * 1_000_000_000_000n + lo * 1000n) % SPAN);
  }

  /** The next id; strictly greater than every id returned before. */
  take(): string {
    const id = this.#next;
    this.#next += BigInt(nextInt(this.#rng, 1, 97));
    return id.toString();
  }
}
