// A strategy context over BTC (test/helpers/market.ts) with no tickers, no orders, zero PnL and the
// given legs: for tests of the context's intent builders.
import pino from 'pino';
import { dec, type Dec } from '../../src/core/decimal.ts';
import { strategyId } from '../../src/core/ids.ts';
import { createStrategyContext } from '../../src/strategy/context.ts';
import type { StrategyContext, StrategyStateSource } from '../../src/strategy/types.ts';
import { BTC, SPECS } from './market.ts';

export const TEST_STRATEGY = strategyId('s1');

export function testStrategyContext(long: Dec = dec(0), short: Dec = dec(0)): StrategyContext {
  const state: StrategyStateSource = {
    latestTicker: () => undefined,
    openOrders: () => [],
    position: (_s, symbol) => ({ symbol, long, short }),
    pnl: () => ({ realized: dec(0), unrealized: dec(0), fees: dec(0), net: dec(0) }),
  };
  return createStrategyContext({
    id: TEST_STRATEGY,
    symbols: [BTC],
    specs: SPECS,
    clock: { now: () => 0 },
    log: pino({ level: 'silent' }),
    state,
  });
}
