// A set of id strings in a few bytes per id, for the ids of retired rows (issue #24: a backtest's
// memory must not grow with its orders). The ids capibot meets end in a counter: client_oids
// `<prefix>-<strategy>-<base-36 sequence>`, exchange order and trade ids as increasing 18-digit
// decimals. Each id is split into a head and its last ≤ 6 characters of [0-9a-z] read in base 36
// (< 36^6 < 2^32); the ids of one head are kept as a sorted Uint32Array, 4 bytes each (plus growth
// slack), where a Set<string> costs 60–100 bytes per id. Ids without such a tail go to a plain Set.
//
// Invariant: the split is a bijection. The tail never starts with '0' unless it is exactly "0"
// (leading zeros move into the head), so head + value.toString(36) gives the id back.

const MAX_TAIL = 6;

function isTailChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122); // 0-9, a-z
}

/** The head and the tail's value, or undefined when the id does not end in [0-9a-z]. */
export function splitId(id: string): { readonly head: string; readonly value: number } | undefined {
  let start = id.length;
  while (start > 0 && id.length - start < MAX_TAIL && isTailChar(id.charCodeAt(start - 1))) start--;
  if (start === id.length) return undefined;
  // Leading zeros belong to the head, keeping one digit when the tail is all zeros.
  while (start < id.length - 1 && id.charCodeAt(start) === 48) start++;
  return { head: id.slice(0, start), value: parseInt(id.slice(start), 36) };
}

/** Sorted, distinct uint32 values in a growable typed array. */
class SortedValues {
  #values = new Uint32Array(16);
  #size = 0;

  /** Capacity in values (what the set holds in memory). */
  get capacity(): number {
    return this.#values.length;
  }

  /** The first index whose value is ≥ v. */
  #lowerBound(v: number): number {
    // Ids mostly arrive in increasing order: the append case is checked first.
    if (this.#size === 0 || (this.#values[this.#size - 1] as number) < v) return this.#size;
    let lo = 0;
    let hi = this.#size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#values[mid] as number) < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  has(v: number): boolean {
    const i = this.#lowerBound(v);
    return i < this.#size && this.#values[i] === v;
  }

  /** False when it was there already. */
  add(v: number): boolean {
    const i = this.#lowerBound(v);
    if (i < this.#size && this.#values[i] === v) return false;
    if (this.#size === this.#values.length) {
      const grown = new Uint32Array(Math.ceil(this.#values.length * 1.5));
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values.copyWithin(i + 1, i, this.#size);
    this.#values[i] = v;
    this.#size++;
    return true;
  }

  /** False when it was not there. */
  delete(v: number): boolean {
    const i = this.#lowerBound(v);
    if (i >= this.#size || this.#values[i] !== v) return false;
    this.#values.copyWithin(i, i + 1, this.#size);
    this.#size--;
    return true;
  }
}

export class CompactIdSet {
  readonly #byHead = new Map<string, SortedValues>();
  /** Ids without a [0-9a-z] tail (none of capibot's own). */
  readonly #other = new Set<string>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  has(id: string): boolean {
    const s = splitId(id);
    if (s === undefined) return this.#other.has(id);
    return this.#byHead.get(s.head)?.has(s.value) ?? false;
  }

  add(id: string): this {
    const s = splitId(id);
    let added: boolean;
    if (s === undefined) {
      added = !this.#other.has(id);
      this.#other.add(id);
    } else {
      let values = this.#byHead.get(s.head);
      if (values === undefined) {
        values = new SortedValues();
        this.#byHead.set(s.head, values);
      }
      added = values.add(s.value);
    }
    if (added) this.#size++;
    return this;
  }

  delete(id: string): boolean {
    const s = splitId(id);
    const deleted =
      s === undefined ? this.#other.delete(id) : (this.#byHead.get(s.head)?.delete(s.value) ?? false);
    if (deleted) this.#size--;
    return deleted;
  }

  clear(): void {
    this.#byHead.clear();
    this.#other.clear();
    this.#size = 0;
  }

  /** What it holds in memory: heads, value slots allocated, and ids kept as strings. */
  footprint(): { readonly heads: number; readonly slots: number; readonly strings: number } {
    let slots = 0;
    for (const v of this.#byHead.values()) slots += v.capacity;
    return { heads: this.#byHead.size, slots, strings: this.#other.size };
  }
}
