// The one-line summary `capibot validate` prints for a good config.
import { credentialVariables, missingCredentialVariables } from './credentials.ts';
import type { Env } from './interpolate.ts';
import type { Config } from './schema.ts';

/** Names the credential variables (never their values) when the mode needs them and `env` is given. */
export function summarizeConfig(config: Config, env?: Env): string {
  const parts: string[] = [`mode ${config.mode}`];
  if (config.mode === 'paper') {
    const p = config.paper;
    parts.push(
      p.venue === 'http'
        ? `paper venue ${config.exchange.baseUrl}`
        : p.source === 'recording'
          ? `paper on recording ${p.data ?? '?'} (${p.clock})`
          : `paper on live tickers from ${config.exchange.baseUrl}`,
    );
  } else {
    parts.push(`exchange ${config.exchange.baseUrl}`);
  }
  const enabled = config.strategies.filter((s) => s.enabled);
  const list = config.strategies
    .map((s) => `${s.id}${s.enabled ? '' : ' (disabled)'} ← ${s.file}`)
    .join(', ');
  parts.push(
    `${enabled.length} of ${config.strategies.length} strateg${config.strategies.length === 1 ? 'y' : 'ies'} enabled: ${list}`,
  );
  const backtestData = config.backtest.data ?? config.paper.data;
  if (backtestData !== undefined) parts.push(`backtest data ${backtestData}`);
  const needsCredentials = config.mode === 'live' || config.paper.venue === 'http';
  if (needsCredentials && env !== undefined) {
    const missing = missingCredentialVariables(config, env);
    parts.push(
      missing.length === 0
        ? `credentials from ${credentialVariables(config).join(', ')} (set)`
        : `credentials NOT set: ${missing.join(', ')}`,
    );
  }
  if (config.mode === 'live') parts.push('needs --live to run');
  parts.push(`store ${config.store.path}`);
  parts.push(
    config.metrics.enabled ? `metrics on ${config.metrics.host}:${config.metrics.port}` : 'metrics off',
  );
  return parts.join('; ');
}
