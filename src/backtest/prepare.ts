// From a config file (and an optional --data) to what the driver needs: the validated config, the
// recording to replay and the loaded strategies. Shared by `capibot backtest` and the sweep workers,
// so a sweep row and the backtest command that reproduces it read their inputs the same way.
import { existsSync } from 'node:fs';
import { backtestData, loadConfigDocument, type Config } from '../config/index.ts';
import type { Env } from '../config/interpolate.ts';
import { BadInputError, ConfigError } from '../core/errors.ts';
import type { EngineStrategyConfig } from '../engine/engine.ts';
import { loadConfiguredStrategies } from '../runner/strategies.ts';

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

export async function prepareBacktest(o: PrepareOptions): Promise<PreparedBacktest> {
  const loaded = loadConfigDocument(o.configPath, o.env);
  const { config } = loaded;
  const data = backtestData(config, o.data);
  if (data === undefined) {
    throw new ConfigError('no recording to replay: pass --data FILE or set backtest.data', 'backtest.data');
  }
  // Checked here (before the strategies load) so the message names the file and nothing else.
  if (!existsSync(data)) throw new BadInputError('recording not found', data);
  const strategies = await loadConfiguredStrategies(loaded, o.cwd !== undefined ? { baseDir: o.cwd } : {});
  return { config, data, strategies };
}
