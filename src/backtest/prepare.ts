// From a config file (and an optional --data) to what the driver needs: the validated config, the
// recording to replay and the loaded strategies. Shared by `capibot backtest` and the sweep workers,
// so a sweep row and the backtest command that reproduces it read their inputs the same way.
// `capibot backtest --strategy FILE` needs no config file: prepareStrategyBacktest makes one with
// that strategy alone and every other setting at its default.
import { existsSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  backtestData,
  loadConfigDocument,
  parseConfigDocument,
  STRATEGY_ID_PATTERN,
  type Config,
  type LoadedConfig,
} from '../config/index.ts';
import { displayPath } from '../config/source-map.ts';
import type { Env } from '../config/interpolate.ts';
import { BadInputError, ConfigError } from '../core/errors.ts';
import type { EngineStrategyConfig } from '../engine/engine.ts';
import { loadConfiguredStrategies } from '../runner/strategies.ts';
import { DEFAULT_BACKTEST_DATA } from './default-data.ts';

export interface PreparedBacktest {
  readonly config: Config;
  /** The recording, as given by the flag or the config. */
  readonly data: string;
  readonly strategies: readonly EngineStrategyConfig[];
}

export interface PrepareOptions {
  readonly configPath: string;
  /** --data: overrides backtest.data (and paper.data). */
  readonly data?: string;
  readonly env: Env;
  /** Relative strategy files resolve against this directory. Default: the working directory. */
  readonly cwd?: string;
}

export interface PrepareStrategyOptions {
  /** The strategy file (relative to `cwd`). */
  readonly strategyFile: string;
  /** --data: default DEFAULT_BACKTEST_DATA. */
  readonly data?: string;
  readonly env: Env;
  /** Relative paths resolve against this directory. Default: the working directory. */
  readonly cwd?: string;
}

/** A strategy id from a file name: `funding-skew.ts` → `funding_skew` (16 characters at most). */
export function strategyIdFromFile(file: string): string {
  const id = basename(file)
    .replace(/\.[cm]?[jt]s$/, '')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .slice(0, 16);
  return STRATEGY_ID_PATTERN.test(id) ? id : 'strategy';
}

/**
 * `backtest --strategy FILE [--data REC]`: FILE as the only strategy (default params), every other
 * setting (risk, paper exchange, polling, budget) at its documented default.
 */
export async function prepareStrategyBacktest(o: PrepareStrategyOptions): Promise<PreparedBacktest> {
  const cwd = o.cwd ?? process.cwd();
  const file = isAbsolute(o.strategyFile) ? o.strategyFile : resolve(cwd, o.strategyFile);
  if (!existsSync(file)) throw new ConfigError('strategy file not found', o.strategyFile);
  const bundled = fileURLToPath(new URL(`../../${DEFAULT_BACKTEST_DATA}`, import.meta.url));
  const data = o.data ?? (relative(cwd, bundled).startsWith('..') ? bundled : relative(cwd, bundled));
  // JSON strings are YAML strings: the paths go in as they are.
  const text = [
    'mode: paper',
    'strategies:',
    `  - id: ${strategyIdFromFile(file)}`,
    `    file: ${JSON.stringify(file)}`,
    'backtest:',
    `  data: ${JSON.stringify(data)}`,
    '',
  ].join('\n');
  const made = parseConfigDocument(text, `--strategy ${o.strategyFile}`, {});
  // Problems name the flag (and the param), not a line of a file nobody wrote.
  const where = (path: readonly (string | number)[]): string =>
    path[2] === 'params' && path.length > 3
      ? `--strategy ${o.strategyFile} ${displayPath(path.slice(2))}`
      : '--strategy';
  return prepareLoaded({ ...made, where }, data, cwd);
}

export async function prepareBacktest(o: PrepareOptions): Promise<PreparedBacktest> {
  const loaded = loadConfigDocument(o.configPath, o.env);
  return prepareLoaded(loaded, backtestData(loaded.config, o.data), o.cwd);
}

async function prepareLoaded(
  loaded: LoadedConfig,
  data: string | undefined,
  cwd: string | undefined,
): Promise<PreparedBacktest> {
  const { config } = loaded;
  if (data === undefined) {
    throw new ConfigError('no recording to replay: pass --data FILE or set backtest.data', 'backtest.data');
  }
  // Checked here (before the strategies load) so the message names the file and nothing else.
  if (!existsSync(data)) throw new BadInputError('recording not found', data);
  const strategies = await loadConfiguredStrategies(loaded, cwd !== undefined ? { baseDir: cwd } : {});
  return { config, data, strategies };
}
