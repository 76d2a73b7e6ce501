// Turns a loaded definition plus config values into a hosted strategy instance: params are
// validated, symbols resolved, the context built, and `create` called once.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import { CapibotError, ConfigError, StrategyError } from '../core/errors.ts';
import { strategyId, type StrategyId, type SymbolId } from '../core/ids.ts';
import type { ContractSpec } from '../core/market.ts';
import { createStrategyContext } from './context.ts';
import { parseStrategyParams, strategySymbols, type StrategyDefinition } from './define.ts';
import type { HostedStrategy } from './host.ts';
import { isStreamInstance, type StrategyInstance, type StrategyStateSource } from './types.ts';

/** Strategy ids become part of every client_oid: keep them short and wire-safe. */
// The same pattern as the strategy part of a client_oid (execution/client-oid.ts), so ids go as they are.
export const STRATEGY_ID_PATTERN = /^[A-Za-z0-9_]{1,16}$/;

export interface InstantiateInput {
  readonly id: string;
  readonly definition: StrategyDefinition;
  readonly params: unknown;
  /** Contract specs of (at least) the strategy's symbols. */
  readonly specs: ReadonlyMap<SymbolId, ContractSpec>;
  readonly clock: Clock;
  /** The parent logger; the strategy gets a child bound to its id. */
  readonly log: Logger;
  readonly state: StrategyStateSource;
}

export interface InstantiatedStrategy extends HostedStrategy {
  readonly name: string;
  readonly version: string;
  readonly params: unknown;
}

function checkInstance(value: unknown, id: StrategyId): StrategyInstance {
  if (typeof value !== 'object' || value === null)
    throw new StrategyError('create() must return an object', id);
  const instance = value as StrategyInstance;
  const timer = instance.timerIntervalMs;
  if (timer !== undefined && !(typeof timer === 'number' && Number.isFinite(timer) && timer > 0)) {
    throw new StrategyError(`timerIntervalMs must be a positive number, got ${String(timer)}`, id);
  }
  if (
    !isStreamInstance(instance) &&
    'onTimer' in instance &&
    instance.onTimer !== undefined &&
    timer === undefined
  ) {
    throw new StrategyError('onTimer needs timerIntervalMs', id);
  }
  return instance;
}

export function instantiateStrategy(input: InstantiateInput): InstantiatedStrategy {
  const { definition: def } = input;
  if (!STRATEGY_ID_PATTERN.test(input.id)) {
    throw new ConfigError(
      `strategy id must match ${STRATEGY_ID_PATTERN.source} (it is part of every client_oid)`,
      `strategy "${input.id}"`,
    );
  }
  const id = strategyId(input.id);
  const params = parseStrategyParams(def, input.id, input.params);
  const symbols = strategySymbols(def, input.id, params);
  const missing = symbols.filter((s) => !input.specs.has(s));
  if (missing.length > 0)
    throw new ConfigError(`unknown symbol(s): ${missing.join(', ')}`, `strategy "${input.id}" (${def.name})`);
  const specs = new Map(symbols.map((s) => [s, input.specs.get(s) as ContractSpec]));
  const ctx = createStrategyContext({
    id,
    symbols,
    specs,
    clock: input.clock,
    log: input.log.child({ strategy: input.id }),
    state: input.state,
  });
  let instance: StrategyInstance;
  try {
    instance = checkInstance(def.create(ctx, params), id);
  } catch (e) {
    if (e instanceof CapibotError) throw e;
    throw new StrategyError(`create() threw: ${e instanceof Error ? e.message : String(e)}`, id);
  }
  return { id, name: def.name, version: def.version, params, symbols, specs, instance };
}
