// An ExchangePort that passes every call through to `port`, but sends placements (placeOrder,
// placeBatch and placePlan) through `around`: the crash tests use it to kill the runner just before or just after
// a placement request leaves.
import type { ExchangePort } from '../../src/exchange/port.ts';

export type AroundPlacement = <T>(send: () => Promise<T>) => Promise<T>;

export function wrapPlacements(port: ExchangePort, around: AroundPlacement): ExchangePort {
  return {
    serverTime: () => port.serverTime(),
    contracts: () => port.contracts(),
    tickers: () => port.tickers(),
    placeOrder: (symbol, entry) => around(() => port.placeOrder(symbol, entry)),
    placeBatch: (symbol, entries) => around(() => port.placeBatch(symbol, entries)),
    cancelOrder: (r) => port.cancelOrder(r),
    fills: (q) => port.fills(q),
    history: (q) => port.history(q),
    planHistory: (q) => port.planHistory(q),
    placePlan: (symbol, entry) => around(() => port.placePlan(symbol, entry)),
    cancelPlan: (r) => port.cancelPlan(r),
    currentPlans: (q) => port.currentPlans(q),
  };
}
