// defineStrategy: the one entry point of a strategy plugin. The result carries a brand and the API
// version so the loader can tell a strategy module from anything else, even when the plugin was
// loaded through another module instance (tsx imports plugins in their own namespace, so identity
// checks such as `instanceof` or a local Symbol() would fail; Symbol.for does not).
import type { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { symbolId, type SymbolId } from '../core/ids.ts';
import type { StrategyContext, StrategyInstance } from './types.ts';

/** Bumped on any breaking change of the strategy API; the loader refuses other versions. */
export const STRATEGY_API_VERSION = 1;

export const STRATEGY_BRAND: unique symbol = Symbol.for('capibot.strategy-definition');

export interface StrategySpec<S extends z.ZodType> {
  /** Short identifier of the strategy kind, e.g. `grid` or `ema-cross`. */
  readonly name: string;
  /** The plugin's own version (free text, e.g. semver). */
  readonly version: string;
  readonly description?: string;
  /** zod schema of the params; defaults in the schema are applied. */
  readonly params: S;
  /** The symbols this strategy trades, given its params. */
  symbols(params: z.output<S>): readonly (SymbolId | string)[];
  create(ctx: StrategyContext, params: z.output<S>): StrategyInstance;
}

export interface StrategyDefinition<P = unknown> {
  readonly [STRATEGY_BRAND]: true;
  readonly apiVersion: number;
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly params: z.ZodType<P>;
  symbols(params: P): readonly (SymbolId | string)[];
  create(ctx: StrategyContext, params: P): StrategyInstance;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export function defineStrategy<S extends z.ZodType>(spec: StrategySpec<S>): StrategyDefinition<z.output<S>> {
  if (!NAME.test(spec.name))
    throw new ConfigError(`strategy name must match ${NAME.source}`, `strategy "${spec.name}"`);
  const def: StrategyDefinition<z.output<S>> = {
    [STRATEGY_BRAND]: true,
    apiVersion: STRATEGY_API_VERSION,
    name: spec.name,
    version: spec.version,
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    // S is a ZodType whose output is z.output<S>; TypeScript cannot see that relation by itself.
    params: spec.params as unknown as z.ZodType<z.output<S>>,
    symbols: (p) => spec.symbols(p),
    create: (ctx, p) => spec.create(ctx, p),
  };
  return Object.freeze(def);
}

/** True for a value made by defineStrategy (any module instance, any API version). */
export function isStrategyDefinition(value: unknown): value is StrategyDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<PropertyKey, unknown>;
  return (
    v[STRATEGY_BRAND] === true &&
    typeof v['apiVersion'] === 'number' &&
    typeof v['name'] === 'string' &&
    typeof v['create'] === 'function' &&
    typeof v['symbols'] === 'function' &&
    typeof v['params'] === 'object'
  );
}

/**
 * Validates raw params (from the config) with the strategy's schema. Errors name the strategy
 * instance and every failing param path, e.g. `strategy "grid-1" (grid) params.levels: Too small`.
 */
export function parseStrategyParams<P>(def: StrategyDefinition<P>, instanceId: string, raw: unknown): P {
  const r = def.params.safeParse(raw ?? {});
  if (r.success) return r.data;
  const problems = r.error.issues.map((i) => {
    const path = i.path.length > 0 ? `params.${i.path.map(String).join('.')}` : 'params';
    return `${path}: ${i.message}`;
  });
  throw new ConfigError(problems.join('; '), `strategy "${instanceId}" (${def.name})`);
}

/** The strategy's symbols as branded ids, validated (non-empty, unique, non-blank). */
export function strategySymbols<P>(
  def: StrategyDefinition<P>,
  instanceId: string,
  params: P,
): readonly SymbolId[] {
  const raw = def.symbols(params);
  const where = `strategy "${instanceId}" (${def.name})`;
  if (!Array.isArray(raw) || raw.length === 0)
    throw new ConfigError('symbols(params) returned no symbol', where);
  const out: SymbolId[] = [];
  for (const s of raw) {
    if (typeof s !== 'string' || s.trim() === '')
      throw new ConfigError(`bad symbol ${JSON.stringify(s)}`, where);
    if (!out.includes(symbolId(s))) out.push(symbolId(s));
  }
  return out;
}
