// The public strategy API (version STRATEGY_API_VERSION). Strategy plugins import from here only
// (plus core types re-exported below); everything else in capibot may change without notice.
export { defineStrategy, STRATEGY_API_VERSION } from './define.ts';
// The zod that capibot validates params with, so a plugin anywhere on disk needs no zod of its own.
export { z } from 'zod';
export type { StrategyDefinition, StrategySpec } from './define.ts';
export type {
  CancelTarget,
  HookStrategyInstance,
  IntentOutput,
  PlaceParams,
  PnlSnapshot,
  PositionSnapshot,
  StrategyContext,
  StrategyFill,
  StrategyInputs,
  StrategyInstance,
  StreamStrategyInstance,
} from './types.ts';

export {
  dec,
  decMax,
  decMin,
  decSum,
  decToNumber,
  decToString,
  isMultipleOf,
  ONE,
  roundToStep,
  ZERO,
} from '../core/decimal.ts';
export type { Dec, RoundMode } from '../core/decimal.ts';
export { clientOid, orderId, symbolId } from '../core/ids.ts';
export type { ClientOid, OrderId, StrategyId, SymbolId, TradeId } from '../core/ids.ts';
export type { CancelAllIntent, CancelIntent, Intent, PlaceIntent } from '../core/intents.ts';
export type { ContractSpec, Ticker } from '../core/market.ts';
export { isOpening, isTerminal, ORDER_SIDES, ORDER_TYPES } from '../core/orders.ts';
export type { Order, OrderSide, OrderStatus, OrderType } from '../core/orders.ts';
export type { FillReport } from '../core/reports.ts';
export type { TradingState } from '../risk/trading-state.ts';
