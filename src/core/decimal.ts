// Exact decimals for money. Prices and sizes are decimal strings on the wire and `Dec` inside: a
// scaled integer (src/core/fixed-decimal.ts) with big.js's method names. Nothing here goes through a
// float. `Dec` values are immutable.
import {
  decimalArg,
  divideRounded,
  FixedDecimal,
  isDecimalLiteral,
  roundsAway,
  ROUND_DOWN,
  ROUND_HALF_UP,
  ROUND_UP,
  scaledBig,
  scaledNumber,
} from './fixed-decimal.ts';

export type Dec = FixedDecimal;

export const ZERO: Dec = FixedDecimal.ZERO;
export const ONE: Dec = FixedDecimal.ONE;

/** True when `s` is a finite decimal literal that `dec` accepts. */
export function isDecimalString(s: string): boolean {
  return isDecimalLiteral(s);
}

/** True when `v` is a Dec (of this copy of capibot or another: a plugin loaded through tsx). */
export { isFixedDecimal as isDec } from './fixed-decimal.ts';

/** Parses a decimal string exactly; throws a RangeError naming the text when it is not one. */
export function dec(value: string | number | Dec): Dec {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    // Only integers are accepted from numbers: a float literal is already rounded.
    throw new RangeError(`not an exact integer: ${value}`);
  }
  return decimalArg(value);
}

/** Plain decimal text (never exponent notation), as sent on the wire. */
export function decToString(d: Dec): string {
  return d.toFixed();
}

export type RoundMode = 'down' | 'up' | 'nearest';

/**
 * Rounds `value` to a multiple of `step` (a tick or a size step) exactly: `down` is toward zero, `up`
 * away from zero, `nearest` half away from zero.
 */
export function roundToStep(value: Dec, step: Dec, mode: RoundMode = 'nearest'): Dec {
  if (step.sign() <= 0) throw new RangeError(`step must be positive, got ${step.toFixed()}`);
  const rm = mode === 'down' ? ROUND_DOWN : mode === 'up' ? ROUND_UP : ROUND_HALF_UP;
  const k = Math.max(value.k, step.k);
  // On numbers while both coefficients are safe at the common scale (NaN otherwise, see scaledNumber).
  const v = scaledNumber(value, k);
  const s = scaledNumber(step, k);
  const r = v % s;
  const t = (v - r) / s;
  const m = (r !== 0 && roundsAway(Math.abs(r) * 2, s, rm, t) ? t + Math.sign(v) : t) * s;
  if (Number.isSafeInteger(m)) return FixedDecimal.make(m, k);
  const sb = scaledBig(step, k);
  return FixedDecimal.make(divideRounded(scaledBig(value, k), sb, rm) * sb, k);
}

/** True when `value` is an exact multiple of `step`. */
export function isMultipleOf(value: Dec, step: Dec): boolean {
  const k = Math.max(value.k, step.k);
  const r = scaledNumber(value, k) % scaledNumber(step, k);
  if (Number.isSafeInteger(r)) return r === 0;
  return value.mod(step).sign() === 0;
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
  return d.toNumber();
}
