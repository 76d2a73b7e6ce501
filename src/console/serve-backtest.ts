// `capibot backtest … --serve`: the finished run in the web console (the same page as `capibot run`
// shows, read-only), until SIGINT or SIGTERM. The same token rules apply: the control token (here it
// can only look) or the read-only token from the environment, a random one on loopback when unset.
import type { RunRecord } from '../backtest/report/types.ts';
import type { Env } from '../config/interpolate.ts';
import type { ConsoleConfig } from '../config/schema.ts';
import { resolveConsoleTokens, type ConsoleTokens } from './auth.ts';
import { createBacktestSource } from './backtest-source.ts';
import { startConsoleServer, type ConsoleServer } from './server.ts';

export interface ServeBacktestOptions {
  readonly record: RunRecord;
  readonly console: Pick<ConsoleConfig, 'host' | 'port' | 'tokenEnv' | 'readTokenEnv' | 'allowedOrigins'>;
  readonly env: Env;
  /** Resolved before the run (so a refusal comes before the work); else resolved here. */
  readonly tokens?: ConsoleTokens;
  readonly say: (line: string) => void;
}

export async function serveBacktest(o: ServeBacktestOptions): Promise<ConsoleServer> {
  const tokens = o.tokens ?? resolveConsoleTokens(o.console, o.env);
  const server = await startConsoleServer({
    host: o.console.host,
    port: o.console.port,
    tokens,
    allowedOrigins: o.console.allowedOrigins,
    source: createBacktestSource(o.record),
  });
  o.say(`backtest: console on ${server.url}/ (read-only; Ctrl-C to stop)`);
  if (tokens.generated)
    o.say(
      `backtest: ${o.console.tokenEnv} is not set; the console's token is ${tokens.control} ` +
        '(password of the browser prompt, any user name)',
    );
  return server;
}
