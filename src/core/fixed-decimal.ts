// Exact decimal money as a scaled integer: value = m × 10^-k. This is the fixed-point type of the
// hot path (issue #17): prices, sizes, fills, fees, positions and PnL. It replaces big.js, whose every
// operation builds digit arrays. The method names and results are big.js's (plus, minus, times, div,
// round, cmp, toFixed…), so strategy code written against big.js keeps working.
//
// Invariants (every constructor goes through `make`):
// - `m` is an integer. It is a JS number when it is a safe integer (|m| ≤ 2^53 − 1), else a bigint.
//   Arithmetic runs on numbers while the exact result stays safe (checked after each operation: a
//   float sum or product of safe integers that is not exact lands outside the safe range) and on
//   bigints otherwise, so nothing is ever rounded by a float.
// - `k` ≥ 0 is the count of decimal places, and `m` has no trailing zero digit when k > 0 (canonical:
//   one value, one representation). Zero is m = 0, k = 0 (no negative zero).
// - The precision is the value's own: a price parsed from the wire carries the contract's tick
//   precision, a product carries the sum of its factors' places. Nothing is truncated implicitly; the
//   only rounding is `div`/`sqrt`/negative `pow` (to DIV_PLACES places, half away from zero, as
//   big.js with DP = 18) and the explicit `round`/`toFixed` calls.

/** Decimal places kept by `div`, `sqrt` and negative `pow` (big.js's DP in capibot since the start). */
export const DIV_PLACES = 18;

/** Rounding modes, numbered as big.js's: toward zero, half away from zero, half to even, away from zero. */
export const ROUND_DOWN = 0;
export const ROUND_HALF_UP = 1;
export const ROUND_HALF_EVEN = 2;
export const ROUND_UP = 3;
export type RoundingMode = 0 | 1 | 2 | 3;

type Coefficient = number | bigint;
export type DecArg = FixedDecimal | string | number;

const MAX_BIG = BigInt(Number.MAX_SAFE_INTEGER);
// Powers of ten that a double holds exactly (10^22 is the largest).
const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

// Powers of ten as bigints, made once: the bigint path scales by them on every operation.
// Stryker disable next-line ObjectLiteral,ArrowFunction: a cache; without it the same powers are computed.
const POW10_BIG: readonly bigint[] = Array.from({ length: 64 }, (_, i) => 10n ** BigInt(i));

function pow10Big(n: number): bigint {
  // Stryker disable next-line LogicalOperator: the cache's entry is the computed power.
  return POW10_BIG[n] ?? 10n ** BigInt(n);
}

// How many operations left the number fast path for bigints. Values up to 15 significant digits
// (every price, size and fee a venue sends) should never get there; the tests hold us to it.
let bigintSteps = 0;

/** Operations so far that needed bigints (a diagnostic: see the comment above). */
export function bigintStepCount(): number {
  return bigintSteps;
}

function big(m: Coefficient): bigint {
  bigintSteps++;
  return BigInt(m);
}

// A plain decimal literal with an optional exponent. The exponent is limited to 3 digits: `1e99999999`
// is a valid literal, but expanding it would build a 10^8-digit number (seconds of CPU, or out of
// memory); no exchange or recording sends one.
const LITERAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?$/;

// Recognises a FixedDecimal from another copy of this module (a plugin loaded through tsx).
const BRAND = Symbol.for('capibot.fixed-decimal');

export class FixedDecimal {
  /** The coefficient: value = m × 10^-k (see the file comment for the invariants). */
  readonly m: Coefficient;
  /** Decimal places. */
  readonly k: number;

  static readonly ZERO: FixedDecimal = new FixedDecimal(0, 0);
  static readonly ONE: FixedDecimal = new FixedDecimal(1, 0);

  /** Use `make` (canonical form) or `parseDecimal`; this stores its arguments as they are. */
  private constructor(m: Coefficient, k: number) {
    this.m = m;
    this.k = k;
  }

  /** @internal Builds the canonical value of m × 10^-k (k ≥ 0, m an integer). */
  static make(m: Coefficient, k: number): FixedDecimal {
    if (typeof m === 'bigint') {
      if (m === 0n) return FixedDecimal.ZERO;
      if (k > 0 && m % 10n === 0n) {
        // Its trailing zeros counted in its text, then dropped with one division (a bigint `% 10n`
        // per zero costs as much as the whole division: a quotient carries up to DIV_PLACES of them).
        const text = m.toString();
        let zeros = 1;
        while (zeros < k && text.charCodeAt(text.length - 1 - zeros) === 48) zeros++;
        m /= pow10Big(zeros);
        k -= zeros;
      }
      // No trailing zero is left while k > 0: canonical as it is.
      if (m <= MAX_BIG && m >= -MAX_BIG) return new FixedDecimal(Number(m), k);
      return new FixedDecimal(m, k);
    }
    // Also turns a negative zero into the zero.
    if (m === 0) return FixedDecimal.ZERO;
    while (k > 0 && m % 10 === 0) {
      m /= 10;
      k--;
    }
    return new FixedDecimal(m, k);
  }

  get [BRAND](): boolean {
    return true;
  }

  /** -1, 0 or 1. */
  sign(): -1 | 0 | 1 {
    const m = this.m;
    return m > 0 ? 1 : m < 0 ? -1 : 0;
  }

  plus(y: DecArg): FixedDecimal {
    const b = decimalArg(y);
    const k = Math.max(this.k, b.k);
    // A float sum of safe integers is exact exactly when it is safe (NaN when one is not a number).
    const s = scaledNumber(this, k) + scaledNumber(b, k);
    if (Number.isSafeInteger(s)) return FixedDecimal.make(s, k);
    return FixedDecimal.make(scaledBig(this, k) + scaledBig(b, k), k);
  }

  minus(y: DecArg): FixedDecimal {
    return this.plus(decimalArg(y).neg());
  }

  times(y: DecArg): FixedDecimal {
    const b = decimalArg(y);
    const am = this.m;
    const bm = b.m;
    const k = this.k + b.k;
    if (typeof am === 'number' && typeof bm === 'number') {
      // A float product of safe integers is exact exactly when it is safe.
      const p = am * bm;
      if (Number.isSafeInteger(p)) return FixedDecimal.make(p, k);
    }
    return FixedDecimal.make(big(am) * big(bm), k);
  }

  /** The quotient rounded to DIV_PLACES decimal places, half away from zero. */
  div(y: DecArg): FixedDecimal {
    const b = decimalArg(y);
    if (b.m === 0) throw new RangeError('division by zero');
    const exact = exactQuotient(this, b);
    if (exact !== undefined) return exact;
    // (ma / 10^ka) / (mb / 10^kb) × 10^P = ma × 10^(kb + P) / (mb × 10^ka)
    const num = big(this.m) * pow10Big(b.k + DIV_PLACES);
    const den = big(b.m) * pow10Big(this.k);
    return FixedDecimal.make(divideRounded(num, den, ROUND_HALF_UP), DIV_PLACES);
  }

  /** The remainder of truncated division; its sign is this value's (as big.js and `%`). */
  mod(y: DecArg): FixedDecimal {
    const b = decimalArg(y);
    if (b.m === 0) throw new RangeError('division by zero');
    const k = Math.max(this.k, b.k);
    const r = scaledNumber(this, k) % scaledNumber(b, k);
    if (Number.isSafeInteger(r)) return FixedDecimal.make(r, k);
    return FixedDecimal.make(scaledBig(this, k) % scaledBig(b, k), k);
  }

  /** This value to the integer power `n` (|n| ≤ 1e6); exact for n ≥ 0, `div`-rounded for n < 0. */
  pow(n: number): FixedDecimal {
    if (!Number.isInteger(n) || n < -1e6 || n > 1e6) throw new RangeError(`invalid exponent: ${n}`);
    let base = FixedDecimal.ONE.times(this);
    let result = FixedDecimal.ONE;
    for (let e = Math.abs(n); ;) {
      if (e % 2 === 1) result = result.times(base);
      e = Math.floor(e / 2);
      if (e === 0) break;
      base = base.times(base);
    }
    // Stryker disable next-line EqualityOperator: x^0 is 1 and 1 / 1 is 1 as well.
    return n < 0 ? FixedDecimal.ONE.div(result) : result;
  }

  /** The square root rounded to DIV_PLACES decimal places, half away from zero. */
  sqrt(): FixedDecimal {
    if (this.m < 0) throw new RangeError('no square root of a negative number');
    // sqrt(m × 10^-k) × 10^P = sqrt(m × 10^(2P − k)): with an even, non-negative shift of m, the
    // floor of an integer square root decides the rounding (the root is never exactly half-way).
    const shift = 2 * DIV_PLACES - this.k;
    const m = big(this.m);
    if (shift >= 0) {
      const x = m * pow10Big(shift);
      const r = integerSqrt(x);
      // Half away from zero: up when x ≥ (r + ½)², i.e. x > r² + r for integers.
      return FixedDecimal.make(x > r * r + r ? r + 1n : r, DIV_PLACES);
    }
    // More than 2P places: sqrt(m × 10^-t) = sqrt(m × 10^(e − t)) / 10^(e/2) with e = t rounded up to
    // even. Rounding floor(root) at ≥ 1 dropped digit decides as the exact root would (the half-way
    // point is an integer there).
    const t = -shift;
    const e = t + (t % 2);
    const r = integerSqrt(m * pow10Big(e - t));
    return FixedDecimal.make(r, DIV_PLACES + e / 2).round(DIV_PLACES, ROUND_HALF_UP);
  }

  abs(): FixedDecimal {
    return this.m < 0 ? this.neg() : this;
  }

  neg(): FixedDecimal {
    const m = this.m;
    return m === 0 ? this : new FixedDecimal(-m, this.k);
  }

  /**
   * This value rounded to `dp` decimal places (negative: to a multiple of 10^-dp) with `rm`
   * (default half away from zero), as big.js's `round`.
   */
  round(dp = 0, rm: RoundingMode = ROUND_HALF_UP): FixedDecimal {
    if (!Number.isInteger(dp) || dp < -1e6 || dp > 1e6) throw new RangeError(`invalid decimal places: ${dp}`);
    checkMode(rm);
    const drop = this.k - dp;
    // Stryker disable next-line EqualityOperator: dropping no digit divides by 1 and changes nothing.
    if (drop <= 0) return this;
    const m = this.m;
    const p = POW10[drop];
    let q: Coefficient;
    if (typeof m === 'number' && p !== undefined) {
      const r = m % p;
      const t = (m - r) / p;
      // r = 0 happens for a negative dp (an integer's trailing zeros): nothing to round then.
      q = r !== 0 && roundsAway(Math.abs(r) * 2, p, rm, t) ? t + Math.sign(m) : t;
    } else {
      q = divideRounded(big(m), pow10Big(drop), rm);
    }
    if (dp < 0) return FixedDecimal.make(big(q) * pow10Big(-dp), 0);
    return FixedDecimal.make(q, dp);
  }

  /** 1, -1 or 0 as this value is greater than, less than or equal to `y`. */
  cmp(y: DecArg): -1 | 0 | 1 {
    const b = decimalArg(y);
    const k = Math.max(this.k, b.k);
    let x: Coefficient = scaledNumber(this, k);
    let z: Coefficient = scaledNumber(b, k);
    if (!Number.isSafeInteger(x) || !Number.isSafeInteger(z)) {
      x = scaledBig(this, k);
      z = scaledBig(b, k);
    }
    return x > z ? 1 : x < z ? -1 : 0;
  }

  eq(y: DecArg): boolean {
    return this.cmp(y) === 0;
  }
  gt(y: DecArg): boolean {
    return this.cmp(y) > 0;
  }
  gte(y: DecArg): boolean {
    return this.cmp(y) >= 0;
  }
  lt(y: DecArg): boolean {
    return this.cmp(y) < 0;
  }
  lte(y: DecArg): boolean {
    return this.cmp(y) <= 0;
  }

  /**
   * Plain notation (never an exponent). With `dp`, rounded (`rm`, default half away from zero) and
   * padded to exactly `dp` places. As big.js, a negative value that rounds to zero keeps its sign
   * ("-0.00").
   */
  toFixed(dp?: number, rm: RoundingMode = ROUND_HALF_UP): string {
    if (dp === undefined) return plain(this, this.m < 0);
    if (!Number.isInteger(dp) || dp < 0 || dp > 1e6) throw new RangeError(`invalid decimal places: ${dp}`);
    const r = this.round(dp, rm);
    let s = plain(r, this.m < 0);
    if (dp > r.k) s += (r.k === 0 ? '.' : '') + '0'.repeat(dp - r.k);
    return s;
  }

  /** big.js's toString: exponent notation from 10^21 up and below 10^-6, plain text otherwise. */
  toString(): string {
    const text = this.m.toString();
    const sign = text.charCodeAt(0) === 45 ? '-' : '';
    const all = sign === '' ? text : text.slice(1);
    const e = all.length - 1 - this.k;
    if (e <= -7 || e >= 21) {
      // An integer keeps trailing zeros in its coefficient; the mantissa does not.
      const digits = all.replace(/0+$/, '');
      const mantissa = digits.length > 1 ? `${digits.charAt(0)}.${digits.slice(1)}` : digits;
      return `${sign}${mantissa}e${e < 0 ? '' : '+'}${e}`;
    }
    return plain(this, sign !== '');
  }

  toJSON(): string {
    return this.toString();
  }

  valueOf(): string {
    return this.toString();
  }

  /** The nearest double (for charts, statistics and signals; never for the wire or the books). */
  toNumber(): number {
    const m = this.m;
    const p = POW10[this.k];
    // Both operands exact doubles: IEEE division rounds the exact quotient once, as parsing would.
    // Stryker disable next-line ConditionalExpression,StringLiteral: the text path gives the same double, slower.
    if (typeof m === 'number' && p !== undefined) return m / p;
    return Number(this.toString());
  }

  // big.js's aliases.
  add(y: DecArg): FixedDecimal {
    return this.plus(y);
  }
  sub(y: DecArg): FixedDecimal {
    return this.minus(y);
  }
  mul(y: DecArg): FixedDecimal {
    return this.times(y);
  }
}

/** True when `text` is a decimal literal that `parseDecimal` accepts. */
export function isDecimalLiteral(text: string): boolean {
  return LITERAL.test(text);
}

/** True when `v` is a FixedDecimal of this or another copy of this module. */
export function isFixedDecimal(v: unknown): v is FixedDecimal {
  return typeof v === 'object' && v !== null && (v as { [BRAND]?: unknown })[BRAND] === true;
}

/** Parses a decimal literal (see LITERAL) exactly; throws a RangeError naming the text otherwise. */
export function parseDecimal(text: string): FixedDecimal {
  if (!LITERAL.test(text)) throw new RangeError(`not a decimal: ${JSON.stringify(text)}`);
  let end = text.length;
  let exponent = 0;
  const ePos = text.search(/[eE]/);
  if (ePos !== -1) {
    exponent = Number(text.slice(ePos + 1));
    end = ePos;
  }
  // The sign stays in `digits`: Number and BigInt read it.
  const dot = text.indexOf('.');
  let digits: string;
  let k: number;
  if (dot === -1) {
    digits = text.slice(0, end);
    k = -exponent;
  } else {
    digits = text.slice(0, dot) + text.slice(dot + 1, end);
    k = end - dot - 1 - exponent;
  }
  digits += '0'.repeat(Math.max(0, -k));
  k = Math.max(0, k);
  // An integer literal's double is exact when it is safe, and unsafe when the integer is not.
  const n = Number(digits);
  if (Number.isSafeInteger(n)) return FixedDecimal.make(n, k);
  bigintSteps++;
  return FixedDecimal.make(BigInt(digits), k);
}

/** A value from a method argument: a FixedDecimal, a decimal string or a finite number (by its text). */
export function decimalArg(v: DecArg): FixedDecimal {
  if (v instanceof FixedDecimal) return v;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: parsing the integer's text gives the same value, slower.
  if (typeof v === 'number' && Number.isSafeInteger(v)) return FixedDecimal.make(v, 0);
  if (isFixedDecimal(v)) return parseDecimal(v.toFixed());
  return parseDecimal(String(v));
}

function checkMode(rm: number): void {
  if (rm !== 0 && rm !== 1 && rm !== 2 && rm !== 3) throw new RangeError(`invalid rounding mode: ${rm}`);
}

/**
 * Whether a truncated quotient `q` moves one away from zero, given twice the remainder's magnitude
 * and the divisor's magnitude (remainder ≠ 0).
 */
export function roundsAway(twiceRemainder: number, divisor: number, rm: RoundingMode, q: number): boolean {
  switch (rm) {
    case ROUND_DOWN:
      return false;
    case ROUND_HALF_UP:
      return twiceRemainder >= divisor;
    case ROUND_HALF_EVEN:
      return twiceRemainder > divisor || (twiceRemainder === divisor && q % 2 !== 0);
    case ROUND_UP:
      return true;
  }
}

/** num ÷ den rounded to an integer with `rm` (den ≠ 0). */
export function divideRounded(num: bigint, den: bigint, rm: RoundingMode): bigint {
  const q = num / den;
  const r = num % den;
  if (r === 0n) return q;
  const twice = (r < 0n ? -r : r) * 2n;
  const d = den < 0n ? -den : den;
  // The same rule as for numbers, given the comparison of 2|r| with |den| as -1, 0 or 1 against 0.
  if (!roundsAway(Number(twice > d) - Number(twice < d), 0, rm, Number(q % 2n))) return q;
  return num < 0n !== den < 0n ? q - 1n : q + 1n;
}

/**
 * The coefficient of `x` at `k` ≥ x.k places as a safe integer, or NaN when it is not one (so that
 * any arithmetic on it gives NaN, which the callers' `Number.isSafeInteger` check sends to bigints).
 */
export function scaledNumber(x: FixedDecimal, k: number): number {
  const m = x.m;
  if (typeof m !== 'number') return Number.NaN;
  // A float product of a safe integer and an exact power of ten is exact exactly when it is safe.
  const s = m * (POW10[k - x.k] ?? Number.NaN);
  return Number.isSafeInteger(s) ? s : Number.NaN;
}

/**
 * a ÷ b when the quotient ends within DIV_PLACES places and number arithmetic finds it: the first
 * am × 10^j (j = 0, 1, …, while a safe integer) that bm divides gives the quotient's coefficient,
 * exactly (the remainder of safe integers and the quotient of a whole division are exact in floats).
 * That is the value `div` rounds to, unrounded: prices over sizes, a percentage over 100. Undefined
 * when there is no such j (the bigint path then rounds the quotient).
 */
function exactQuotient(a: FixedDecimal, b: FixedDecimal): FixedDecimal | undefined {
  const am = a.m;
  const bm = b.m;
  if (typeof am !== 'number' || typeof bm !== 'number') return undefined;
  // Ends once am × 10^j is no longer safe (j ≤ 15 for any am ≠ 0; am = 0 ends at j = 0).
  for (let j = 0; ; j++) {
    const n = am * (POW10[j] ?? Number.NaN);
    if (!Number.isSafeInteger(n)) return undefined;
    if (n % bm !== 0) continue;
    const q = n / bm;
    const k = a.k + j - b.k;
    if (k > DIV_PLACES) return undefined;
    // Stryker disable next-line EqualityOperator: at k = 0 the branch below gives make(q × 10^0, 0) too.
    if (k >= 0) return FixedDecimal.make(q, k);
    const whole = q * (POW10[-k] ?? Number.NaN);
    return Number.isSafeInteger(whole) ? FixedDecimal.make(whole, 0) : undefined;
  }
}

/** The coefficient of `x` at `k` ≥ x.k places as a bigint. */
export function scaledBig(x: FixedDecimal, k: number): bigint {
  return big(x.m) * pow10Big(k - x.k);
}

function integerSqrt(n: bigint): bigint {
  if (n < 2n) return n;
  // Newton's iteration from a power of two above the root.
  // Stryker disable next-line ArithmeticOperator: any start above the root converges to the same floor.
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** Plain notation of `x`, with a minus sign when `negative`. */
function plain(x: FixedDecimal, negative: boolean): string {
  const text = x.m.toString();
  let digits = text.charCodeAt(0) === 45 ? text.slice(1) : text;
  const k = x.k;
  if (k > 0) {
    if (digits.length <= k) digits = '0'.repeat(k - digits.length + 1) + digits;
    digits = `${digits.slice(0, digits.length - k)}.${digits.slice(digits.length - k)}`;
  }
  return negative ? `-${digits}` : digits;
}
