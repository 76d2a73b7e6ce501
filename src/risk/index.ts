// The pre-trade risk gate (pure): limits, trading state, the orders-per-minute window and the decision.
export { APPROVED, RISK_REFUSAL_REASONS, refuse, riskRefused } from './decision.ts';
export type { RiskDecision, RiskRefusal, RiskRefusalReason, RiskRefused } from './decision.ts';
export {
  NO_OPENING_WORK,
  addOpeningWork,
  grossExposure,
  liveOrderCount,
  openOrderExposure,
  orderExposure,
  remainingSize,
  signOf,
} from './exposure.ts';
export type {
  HedgePosition,
  OpenOrderExposure,
  OpenOrdersView,
  OpeningWork,
  OrderExposure,
} from './exposure.ts';
export { evaluate, isReducing } from './gate.ts';
export type { RiskContext } from './gate.ts';
export { DEFAULT_RISK_LIMITS, ORDER_RATE_WINDOW_MS, riskLimits } from './limits.ts';
export type { RiskLimits, RiskLimitsInput } from './limits.ts';
export { createOrderRate, nextPlacementAt, placementsInWindow, recordPlacement } from './order-rate.ts';
export type { OrderRateWindow } from './order-rate.ts';
export {
  TRADING_STATES,
  drawdownPct,
  engageKillSwitch,
  resetTradingState,
  stricter,
  updateTradingState,
} from './trading-state.ts';
export type { TradingState } from './trading-state.ts';
