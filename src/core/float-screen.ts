// Exact decisions screened by doubles. Comparing exact values costs decimal parses and fixed-point
// arithmetic; comparing their doubles costs next to nothing. When two doubles are further apart than
// their rounding can explain, they decide; a close call goes to the exact values. The answer is
// always the exact one: the screen only says "certainly" or "ask the exact values"
// (test/core/float-screen.property.test.ts). Used where an exact comparison ran on every ticker and
// almost never came out close: a resting stop's trigger in the simulator, the drawdown breaker.
//
// Why the margin is safe. A double computed from exact values with k roundings (the nearest double
// of a decimal, Number(text) or Dec.toNumber, is one rounding; each + − × another) is within
// k·2^-53·S of the exact result, where S bounds the magnitudes of every operand and partial result
// involved (its "scale"). If a < b − MARGIN·S, with S covering both sides, then
//   a* ≤ a + k·2^-53·S < b − (MARGIN − k·2^-53)·S ≤ b* + (2k·2^-53 − MARGIN)·S ≤ b*
// as long as 2k·2^-53 ≤ MARGIN = 2^-40, i.e. k ≤ 4096 roundings: far more than any caller makes.
// Magnitudes stay far from the double range's ends (prices, sizes and balances: 1e-18 to 1e15), so
// no underflow or overflow weakens the bound.

/** The relative gap (of the scale) two doubles must leave for the screen to decide: 2^-40 ≈ 9e-13. */
export const SCREEN_MARGIN = 2 ** -40;

/**
 * True only when a* < b* is certain, for doubles `a` and `b` each within a few thousand roundings of
 * exact values a* and b* whose operands' magnitudes `scale` bounds. False means "not certain" (a
 * close call, NaN, infinities): decide with the exact values.
 */
export function surelyBelow(a: number, b: number, scale: number): boolean {
  return a < b - SCREEN_MARGIN * scale;
}

/** `surelyBelow` for two single roundings (the nearest doubles of a* and b*): the scale is |a| + |b|. */
export function surelyBelowNearest(a: number, b: number): boolean {
  return surelyBelow(a, b, Math.abs(a) + Math.abs(b));
}
