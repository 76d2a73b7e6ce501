// Exact decimals for money. Prices and sizes are decimal strings on the wire and `Dec` (big.js)
// inside; nothing here ever goes through a float. `Dec` values are immutable.
import Big from 'big.js';

export type Dec = Big;

// Division precision for derived figures (averages, ratios); never used for wire prices, which are
// always rounded to the instrument's tick explicitly.
Big.DP = 18;
Big.RM = Big.roundHalfUp;
Big.strict = false;

// The exponent is limited to 3 digits: `1e99999999` is a valid literal, but expanding it would build a
// 10^8-digit number (seconds of CPU, or out of memory); no exchange or recording sends one.
const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?$/;

export const ZERO: Dec = new Big(0);
export const ONE: Dec = new Big(1);

/** True when `s` is a finite decimal literal that `dec` accepts. */
export function isDecimalString(s: string): boolean {
  return DECIMAL.test(s);
}

/** Parses a decimal string exactly; throws a RangeError naming the text when it is not one. */
export function dec(value: string | number | Dec): Dec {
  if (value instanceof Big) return value;
  if (typeof value === 'number') {
    // Only integers are accepted from numbers: a float literal is already rounded.
    if (!Number.isSafeInteger(value)) throw new RangeError(`not an exact integer: ${value}`);
    return new Big(value);
  }
  if (!DECIMAL.test(value)) throw new RangeError(`not a decimal: ${JSON.stringify(value)}`);
  return new Big(value);
}

/** Plain decimal text (never exponent notation), as sent on the wire. */
export function decToString(d: Dec): string {
  return d.toFixed();
}

export type RoundMode = 'down' | 'up' | 'nearest';

/** Rounds `value` to a multiple of `step` (a tick or a size step). `down` is toward zero. */
export function roundToStep(value: Dec, step: Dec, mode: RoundMode = 'nearest'): Dec {
  if (step.lte(0)) throw new RangeError(`step must be positive, got ${step.toFixed()}`);
  const rm = mode === 'down' ? Big.roundDown : mode === 'up' ? Big.roundUp : Big.roundHalfUp;
  return value.div(step).round(0, rm).times(step);
}

/** The integer written by big.js coefficient digits, when it is at most 15 digits long. */
function smallCoefficient(c: readonly number[]): number | undefined {
  if (c.length > 15) return undefined;
  let n = 0;
  for (const d of c) n = n * 10 + d;
  return n;
}

/** True when `value` is an exact multiple of `step`. */
export function isMultipleOf(value: Dec, step: Dec): boolean {
  // value = cv × 10^kv and step = cs × 10^ks with integer coefficients: when they are small, decide
  // with exact integer arithmetic on numbers instead of big.js's division (many allocations).
  const cv = smallCoefficient(value.c);
  const cs = smallCoefficient(step.c);
  if (cv !== undefined && cs !== undefined && cs !== 0) {
    if (cv === 0) return true;
    const shift = value.e - value.c.length + 1 - (step.e - step.c.length + 1);
    if (shift >= 0 && shift <= 15) {
      const scaled = cv * 10 ** shift;
      if (Number.isSafeInteger(scaled)) return scaled % cs === 0;
    } else if (shift < 0 && shift >= -15) {
      const scaledStep = cs * 10 ** -shift;
      if (Number.isSafeInteger(scaledStep)) return cv % scaledStep === 0;
    }
  }
  return value.mod(step).eq(0);
}

export function decMin(a: Dec, b: Dec): Dec {
  return a.lt(b) ? a : b;
}

export function decMax(a: Dec, b: Dec): Dec {
  return a.gt(b) ? a : b;
}

export function decSum(values: Iterable<Dec>): Dec {
  let s = ZERO;
  for (const v of values) s = s.plus(v);
  return s;
}

/** A float view for charts and statistics only (Sharpe, progress); never for prices sent anywhere. */
export function decToNumber(d: Dec): number {
  return Number(d.toFixed());
}
