// The engine's side of the strategy host: each configured strategy is instantiated once (ids unique) over read-only views of the engine's state, and timer pulses run only while some strategy declares a timer.
import { interval, type SchedulerLike, type Subscription } from 'rxjs';
import { InvariantViolation } from '../core/errors.ts';
import type { SymbolId } from '../core/ids.ts';
import type { Ticker } from '../core/market.ts';
import type { TradingState } from '../risk/trading-state.ts';
import { instantiateStrategy, type InstantiatedStrategy } from '../strategy/instantiate.ts';
import type { StrategyStateSource } from '../strategy/types.ts';
import type { EngineDeps } from './engine-types.ts';
import type { OpenOrders } from './open-orders.ts';
import type { Marks, Portfolio } from './portfolio.ts';

/** What strategies may read of the engine's state (through StrategyStateSource, never directly). */
export interface EngineViews {
  readonly latest: ReadonlyMap<SymbolId, Ticker>;
  readonly open: OpenOrders;
  readonly portfolio: Portfolio;
  readonly mark: Marks;
  readonly tradingState: () => TradingState;
}

/** The configured strategies, instantiated over `views`; a repeated id is an error. */
export function instantiateStrategies(
  deps: Pick<EngineDeps, 'strategies' | 'specs' | 'clock' | 'log'>,
  views: EngineViews,
): InstantiatedStrategy[] {
  const { latest, open, portfolio, mark } = views;
  const state: StrategyStateSource = {
    latestTicker: (s) => latest.get(s),
    openOrders: (strategy) => open.ofStrategy(strategy),
    position: (strategy, symbol) => portfolio.position(strategy, symbol),
    pnl: (strategy) => portfolio.pnl(strategy, mark),
    tradingState: views.tradingState,
  };
  const ids = new Set<string>();
  return deps.strategies.map((s) => {
    if (ids.has(s.id)) throw new InvariantViolation(`duplicate strategy id ${s.id}`);
    ids.add(s.id);
    return instantiateStrategy({
      id: s.id,
      definition: s.definition,
      params: s.params,
      specs: deps.specs,
      clock: deps.clock,
      log: deps.log,
      state,
    });
  });
}

/**
 * Calls `pulse` every `pulseMs` of `scheduler` time. Pulses only feed strategy timers: with no
 * strategy declaring one, nothing would listen (and in virtual time every pulse is an instant to
 * settle), so there are none (undefined).
 */
export function timerPulses(
  strategies: readonly InstantiatedStrategy[],
  pulseMs: number | undefined,
  scheduler: SchedulerLike,
  pulse: () => void,
): Subscription | undefined {
  const timed = strategies.some((s) => s.instance.timerIntervalMs !== undefined);
  if (pulseMs === undefined || !timed) return undefined;
  return interval(pulseMs, scheduler).subscribe(pulse);
}
