// What the risk gate answers, and the event a refusal becomes. Every refusal carries a machine
// reason (for metrics and reports) and a human detail with the exact figures.
import type { StrategyId } from '../core/ids.ts';
import type { Intent } from '../core/intents.ts';

export const RISK_REFUSAL_REASONS = [
  /** Non-positive size or price. */
  'invalid_intent',
  /** Trading is HALTED: only cancels pass. */
  'halted',
  /** Trading is REDUCING: only close_* placements and cancels pass. */
  'reducing_only',
  /** No last price for the symbol: notional and band cannot be checked. */
  'no_price',
  'price_band',
  'order_notional',
  'position_notional',
  'open_orders',
  'order_rate',
  /**
   * The symbol holds an order with an unknown outcome and one order-history page would no longer
   * reach it (src/reconcile/history-headroom.ts): placements wait until it is settled.
   */
  'reconcile_backlog',
  /**
   * A close larger than the position the venue will see (less the closes resting or in flight on
   * that leg), and what is left is below the minimum size: dropped (src/engine/close-cap.ts).
   */
  'closable_size',
] as const;
export type RiskRefusalReason = (typeof RISK_REFUSAL_REASONS)[number];

export type RiskDecision =
  | { readonly approved: true }
  | { readonly approved: false; readonly reason: RiskRefusalReason; readonly detail: string };

export type RiskRefusal = Extract<RiskDecision, { approved: false }>;

export const APPROVED: RiskDecision = Object.freeze({ approved: true });

export function refuse(reason: RiskRefusalReason, detail: string): RiskRefusal {
  return { approved: false, reason, detail };
}

/** The event a refusal becomes (published to metrics, logs, the strategy and the store). */
export interface RiskRefused {
  readonly kind: 'RiskRefused';
  /** Clock time of the decision, epoch ms. */
  readonly at: number;
  readonly strategy: StrategyId;
  readonly intent: Intent;
  readonly reason: RiskRefusalReason;
  readonly detail: string;
}

export function riskRefused(
  strategy: StrategyId,
  intent: Intent,
  refusal: RiskRefusal,
  at: number,
): RiskRefused {
  return { kind: 'RiskRefused', at, strategy, intent, reason: refusal.reason, detail: refusal.detail };
}
