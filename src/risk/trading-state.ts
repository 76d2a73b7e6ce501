// Trading state: ACTIVE (everything the limits allow), REDUCING (only position-reducing placements
// and cancels), HALTED (only cancels). The drawdown breaker and the kill switch only ever tighten it:
// the state latches, and only an explicit operator reset (`resetTradingState`) relaxes it.
import { ZERO, type Dec } from '../core/decimal.ts';
import type { CancelAllIntent } from '../core/intents.ts';
import type { RiskLimits } from './limits.ts';

export const TRADING_STATES = ['ACTIVE', 'REDUCING', 'HALTED'] as const;
export type TradingState = (typeof TRADING_STATES)[number];

const SEVERITY: Readonly<Record<TradingState, number>> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };

/** The stricter of two states. */
export function stricter(a: TradingState, b: TradingState): TradingState {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}

/** Drawdown from the peak, in percent (0 when at or above the peak, or when the peak is not positive). */
export function drawdownPct(equityPeak: Dec, equityNow: Dec): Dec {
  const peak = equityPeak.gt(equityNow) ? equityPeak : equityNow;
  if (peak.lte(0)) return ZERO;
  return peak.minus(equityNow).times(100).div(peak);
}

/**
 * The drawdown breaker: REDUCING once the drawdown reaches `drawdownReducePct`, HALTED once it
 * reaches `drawdownHaltPct` or equity is gone (≤ 0). Never relaxes `state`.
 *
 * Compared without dividing (it runs on every tick): drawdown ≥ p% ⟺ (peak − equity) × 100 ≥ p × peak
 * for a positive peak, which is also exact where the quotient would be rounded.
 */
export function updateTradingState(
  state: TradingState,
  equityPeak: Dec,
  equityNow: Dec,
  limits: Pick<RiskLimits, 'drawdownReducePct' | 'drawdownHaltPct'>,
): TradingState {
  if (equityNow.lte(0)) return 'HALTED';
  // At or above the peak (a peak ≤ 0 included, equity being positive here): no drawdown.
  if (state === 'HALTED' || equityPeak.lte(equityNow)) return state;
  const lossTimes100 = equityPeak.minus(equityNow).times(100);
  const byDrawdown: TradingState = lossTimes100.gte(equityPeak.times(limits.drawdownHaltPct))
    ? 'HALTED'
    : lossTimes100.gte(equityPeak.times(limits.drawdownReducePct))
      ? 'REDUCING'
      : 'ACTIVE';
  return stricter(state, byDrawdown);
}

/** The kill switch: HALTED, plus the intent that cancels every order on every symbol. */
export function engageKillSwitch(): {
  readonly state: 'HALTED';
  readonly intents: readonly [CancelAllIntent];
} {
  return { state: 'HALTED', intents: [{ kind: 'cancelAll' }] };
}

/** An operator decision (never automatic): back to ACTIVE. */
export function resetTradingState(): TradingState {
  return 'ACTIVE';
}
