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

/** True when `value` is an exact multiple of `step`. */
export function isMultipleOf(value: Dec, step: Dec): boolean {
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
