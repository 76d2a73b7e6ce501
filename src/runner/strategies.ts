// The enabled strategies of a config, loaded from their plugin files (.ts, no build step).
import type { Config } from '../config/schema.ts';
import { ConfigError } from '../core/errors.ts';
import type { EngineStrategyConfig } from '../engine/engine.ts';
import { loadStrategy } from '../strategy/loader.ts';

export async function loadConfiguredStrategies(
  config: Config,
  baseDir: string = process.cwd(),
): Promise<EngineStrategyConfig[]> {
  const enabled = config.strategies.filter((s) => s.enabled);
  if (enabled.length === 0) throw new ConfigError('every strategy is disabled: nothing to run', 'strategies');
  const out: EngineStrategyConfig[] = [];
  for (const s of enabled) {
    const { definition } = await loadStrategy(s.file, baseDir);
    out.push({ id: s.id, definition, params: s.params });
  }
  return out;
}
