// The engine's public surface for the composition root (`capibot run`), the backtest driver and
// reconciliation (Engine II).
export { createEngine } from './engine.ts';
export type {
  Engine,
  EngineDeps,
  EngineOptions,
  EngineStartOptions,
  EngineStrategyConfig,
} from './engine-types.ts';
export type { EngineEvent, EngineEventKind } from './events.ts';
export type { EngineMetrics } from './metrics.ts';
export { microtasks, VirtualTime } from './virtual-time.ts';
