// Loads a strategy plugin from a `.ts` file at run time, with no build step: tsx's `tsImport`
// compiles it on the fly, both under bin/capibot.js and inside vitest. The module's default export
// must be a defineStrategy result of a supported API version.
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
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

/**
 * Imports `path` (relative paths resolve against `baseDir`, default the working directory).
 * Compile and import errors become ConfigError naming the file.
 */
export async function loadStrategy(path: string, baseDir: string = process.cwd()): Promise<LoadedStrategy> {
  const file = isAbsolute(path) ? path : resolve(baseDir, path);
  if (!existsSync(file)) throw new ConfigError('strategy file not found', file);
  let mod: unknown;
  try {
    mod = await tsImport(pathToFileURL(file).href, import.meta.url);
  } catch (e) {
    throw new ConfigError(`cannot load the strategy module: ${loadFailure(e)}`, file);
  }
  return { definition: definitionFromModule(mod, file), file };
}
