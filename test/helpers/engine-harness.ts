// An engine on virtual time, with the in-memory store and the fake exchange.
import type { Logger } from 'pino';
import type { SchedulerLike } from 'rxjs';
import { z } from 'zod';
import type { Clock } from '../../src/core/clock.ts';
import type { Dec } from '../../src/core/decimal.ts';
import type { SymbolId } from '../../src/core/ids.ts';
import {
  createEngine,
  type Engine,
  type EngineOptions,
  type EngineStrategyConfig,
} from '../../src/engine/engine.ts';
import type { EngineEvent } from '../../src/engine/events.ts';
import { VirtualTime } from '../../src/engine/virtual-time.ts';
import { defineStrategy, type StrategyDefinition } from '../../src/strategy/define.ts';
import type { StrategyContext, StrategyInstance } from '../../src/strategy/types.ts';
import { silentLog } from './executor-harness.ts';
import { FakeExchange, type FakeExchangeOptions } from './fake-exchange.ts';
import { BTC, makeTicker, SPECS } from './market.ts';
import { MemoryStore } from './memory-store.ts';

export interface EngineHarness {
  readonly vt: VirtualTime;
  readonly store: MemoryStore;
  readonly port: FakeExchange;
  readonly engine: Engine;
  readonly events: EngineEvent[];
  /** One poll at `t` (virtual time moves there first), then waits until the engine is idle. */
  tick(prices: Readonly<Partial<Record<SymbolId, string>>>, dtMs?: number): Promise<void>;
  /** Runs timers until the executor has no work left. */
  settle(): Promise<void>;
}

/** A strategy from an inline `create`, for tests. */
export function inlineStrategy(
  name: string,
  create: (ctx: StrategyContext) => StrategyInstance,
  symbols: readonly SymbolId[] = [BTC],
): StrategyDefinition {
  return defineStrategy({
    name,
    version: '0',
    params: z.object({}),
    symbols: () => symbols,
    create: (ctx) => create(ctx),
  });
}

export function engineHarness(opts: {
  strategies: readonly EngineStrategyConfig[];
  options?: EngineOptions;
  port?: Omit<FakeExchangeOptions, 'clock'>;
  store?: MemoryStore;
  start?: number;
  clock?: Clock;
  scheduler?: SchedulerLike;
  startingEquity?: Dec;
  /** Default: silent. */
  log?: Logger;
}): EngineHarness {
  const vt = new VirtualTime(opts.start ?? 1_700_000_000_000);
  const store = opts.store ?? new MemoryStore();
  const port = new FakeExchange({ ...opts.port, clock: vt.clock });
  const engine = createEngine({
    port,
    store,
    clock: opts.clock ?? vt.clock,
    scheduler: opts.scheduler ?? vt.scheduler,
    log: opts.log ?? silentLog,
    specs: SPECS,
    strategies: opts.strategies,
    ...(opts.options !== undefined ? { options: opts.options } : {}),
  });
  const events: EngineEvent[] = [];
  engine.events$.subscribe((e) => events.push(e));
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 10_000; i++) {
      await engine.idle();
      if (engine.executor.isEmpty()) return;
      const due = vt.nextDue();
      if (due === undefined) return;
      await vt.advanceTo(due, () => engine.idle());
    }
  };
  return {
    vt,
    store,
    port,
    engine,
    events,
    settle,
    async tick(prices, dtMs = 1_000) {
      await vt.advanceTo(vt.now() + dtMs, () => engine.idle());
      const t = vt.now();
      engine.onTick(Object.entries(prices).map(([s, p]) => makeTicker(s as SymbolId, p as string, t)));
      await engine.idle();
    },
  };
}

export function kinds(events: readonly EngineEvent[], filter?: (e: EngineEvent) => boolean): string[] {
  return events.filter((e) => filter?.(e) ?? true).map((e) => e.kind);
}
