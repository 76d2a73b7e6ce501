// Loads a strategy plugin from a `.ts` file at run time, with no build step by hand: it is compiled on
// the fly, by a compiler imported on the first `.ts` strategy and never before (a `.js`/`.mjs` plugin
// needs none). Two ways, after where this module runs from:
//  - compiled (dist/, bin/capibot.js): compile-strategy.ts bundles the strategy with esbuild, its
//    imports of src/ files pointing at dist/, so it shares the running framework's modules;
//  - from source (vitest, CAPIBOT_FROM_SOURCE=1): tsx's `tsImport`.
// The module's default export must be a defineStrategy result of a supported API version.
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../core/errors.ts';
import { isStrategyDefinition, STRATEGY_API_VERSION, type StrategyDefinition } from './define.ts';

export interface LoadedStrategy {
  readonly definition: StrategyDefinition;
  /** Absolute path of the plugin file. */
  readonly file: string;
}

function defaultExport(mod: unknown): unknown {
  return typeof mod === 'object' && mod !== null ? (mod as { default?: unknown }).default : undefined;
}

/** Checks a module namespace and returns its strategy definition, or throws ConfigError. */
export function definitionFromModule(mod: unknown, file: string): StrategyDefinition {
  let def = defaultExport(mod);
  // A module compiled as CommonJS (no `"type": "module"` above it) arrives with its exports object
  // as the default export: look one level deeper.
  if (!isStrategyDefinition(def) && isStrategyDefinition(defaultExport(def))) def = defaultExport(def);
  if (def === undefined) {
    throw new ConfigError(
      'the module has no default export; write `export default defineStrategy({...})`',
      file,
    );
  }
  if (!isStrategyDefinition(def)) {
    throw new ConfigError('the default export is not a defineStrategy(...) result', file);
  }
  if (def.apiVersion !== STRATEGY_API_VERSION) {
    throw new ConfigError(
      `strategy "${def.name}" was written for strategy API version ${def.apiVersion}; this capibot supports version ${STRATEGY_API_VERSION}`,
      file,
    );
  }
  return def;
}

/**
 * One line for a module that failed to load. A compile error's first line ("Transform failed with 1
 * error:") says nothing by itself: the line naming the place (`file.ts:1:16: ERROR: Unexpected ";"`)
 * is kept with it.
 */
function loadFailure(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const lines = e.message.split('\n').map((l) => l.trim());
  const first = lines[0] ?? '';
  const where = lines.find((l) => /:\d+:\d+: ERROR: /.test(l));
  return where !== undefined ? `${first} ${where}` : first;
}

/** True when this module is the compiled one (dist/strategy/loader.js). */
const COMPILED = import.meta.url.endsWith('.js');

async function importModule(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  if (!/\.[cm]?ts$/.test(file)) return import(url);
  if (COMPILED) {
    const { importCompiledStrategy } = await import('./compile-strategy.ts');
    return importCompiledStrategy(file);
  }
  const { tsImport } = await import('tsx/esm/api');
  return tsImport(url, import.meta.url);
}

/**
 * Imports `path` (relative paths resolve against `baseDir`, default the working directory).
 * Compile and import errors become ConfigError naming the file.
 */
export async function loadStrategy(path: string, baseDir: string = process.cwd()): Promise<LoadedStrategy> {
  const file = isAbsolute(path) ? path : resolve(baseDir, path);
  if (!existsSync(file)) throw new ConfigError('strategy file not found', file);
  let mod: unknown;
  try {
    mod = await importModule(file);
  } catch (e) {
    throw new ConfigError(`cannot load the strategy module: ${loadFailure(e)}`, file);
  }
  return { definition: definitionFromModule(mod, file), file };
}
