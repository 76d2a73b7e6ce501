// The enabled strategies of a config, loaded from their plugin files (.ts, no build step), with their
// params and symbols checked before anything starts: `run`, `backtest`, `sweep` and `validate` all
// refuse a bad strategy the same way, naming every problem at once, each at its place in the file
// (`config.yaml:12:14 strategies[1].params.fast: …`).
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { didYouMean } from '../config/did-you-mean.ts';
import { ConfigProblemsError, type LoadedConfig } from '../config/load.ts';
import type { ConfigProblem } from '../config/problems.ts';
import type { Config } from '../config/schema.ts';
import { displayPath, type ConfigPath } from '../config/source-map.ts';
import { ConfigError } from '../core/errors.ts';
import type { EngineStrategyConfig } from '../engine/engine.ts';
import { strategySymbols, type StrategyDefinition } from '../strategy/define.ts';
import { loadStrategy } from '../strategy/loader.ts';

export interface LoadStrategiesOptions {
  /** Relative strategy files resolve against this directory. Default: the working directory. */
  readonly baseDir?: string;
  /** Skip strategies whose file does not exist (`validate` without --check-files). Default false. */
  readonly skipMissing?: boolean;
  /** Accept a config whose strategies are all disabled (`validate`: `status` and `kill` use it). */
  readonly allowNone?: boolean;
}

/** The config with `where` for its paths, or a bare config (paths then have no line and column). */
export type StrategySource = Config | Pick<LoadedConfig, 'config' | 'where'>;

function sourceOf(s: StrategySource): Pick<LoadedConfig, 'config' | 'where'> {
  return 'where' in s ? s : { config: s, where: (path) => displayPath(path) };
}

/** The param names a strategy's schema takes, when it is an object schema. */
function paramNames(def: StrategyDefinition): readonly string[] {
  const shape = (def.params as { shape?: unknown }).shape;
  return typeof shape === 'object' && shape !== null ? Object.keys(shape) : [];
}

/** One problem per zod issue of the params, each at its own path under `strategies[i].params`. */
function paramProblems(def: StrategyDefinition, issues: readonly z.core.$ZodIssue[]): [ConfigPath, string][] {
  const out: [ConfigPath, string][] = [];
  for (const issue of issues) {
    const path = issue.path.filter((s): s is string | number => typeof s !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const names = paramNames(def);
      for (const key of issue.keys) {
        const guess = didYouMean(key, names);
        const hint =
          guess !== undefined
            ? ` (did you mean "${guess}"?)`
            : names.length > 0
              ? ` (${def.name} takes: ${names.join(', ')})`
              : '';
        out.push([[...path, key], `unknown param of ${def.name}${hint}`]);
      }
      continue;
    }
    out.push([path, `${def.name}: ${issue.message}`]);
  }
  return out;
}

export async function loadConfiguredStrategies(
  source: StrategySource,
  opts: LoadStrategiesOptions = {},
): Promise<EngineStrategyConfig[]> {
  const { config, where } = sourceOf(source);
  const baseDir = opts.baseDir ?? process.cwd();
  const enabled = config.strategies.filter((s) => s.enabled);
  if (enabled.length === 0 && opts.allowNone !== true)
    throw new ConfigError('every strategy is disabled: nothing to run', where(['strategies']));
  const problems: ConfigProblem[] = [];
  const problem = (path: ConfigPath, message: string): void => {
    problems.push({ where: where(path), message, line: problems.length, col: 0 });
  };
  const out: EngineStrategyConfig[] = [];
  for (const [i, s] of config.strategies.entries()) {
    if (!s.enabled) continue;
    const at: ConfigPath = ['strategies', i];
    if (opts.skipMissing === true && !existsSync(isAbsolute(s.file) ? s.file : resolve(baseDir, s.file))) continue;
    let definition: StrategyDefinition;
    try {
      ({ definition } = await loadStrategy(s.file, baseDir));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problem([...at, 'file'], e.message);
      continue;
    }
    const parsed = definition.params.safeParse(s.params ?? {});
    if (!parsed.success) {
      for (const [path, message] of paramProblems(definition, parsed.error.issues))
        problem([...at, 'params', ...path], message);
      continue;
    }
    try {
      strategySymbols(definition, s.id, parsed.data);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problem([...at, 'params'], e.message);
      continue;
    }
    out.push({ id: s.id, definition, params: s.params });
  }
  if (problems.length > 0) throw new ConfigProblemsError(problems);
  return out;
}
