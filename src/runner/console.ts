// The web console of `capibot run` (src/console/): started once the operator channel exists, so that
// its kill button goes through the same kill request as `capibot kill`, and its pause / resume through
// the run's pause book. A console that cannot start stops the start-up (ConfigError: a port in use);
// once running, nothing it does can stop trading: its failures are answered 500 and logged.
import type { Logger } from 'pino';
import type { Config } from '../config/schema.ts';
import type { ConsoleTokens } from '../console/auth.ts';
import { createLiveSource, type LiveSource } from '../console/live-source.ts';
import { startConsoleServer, type ConsoleServer } from '../console/server.ts';
import type { Dec } from '../core/decimal.ts';
import type { Engine } from '../engine/engine.ts';
import type { RoundResult } from '../reconcile/round.ts';
import type { OrderStore } from '../store/port.ts';
import type { RunnerControl } from './control.ts';
import type { PauseBook } from './pause.ts';

export interface RunnerConsoleDeps {
  readonly config: Config;
  readonly tokens: ConsoleTokens;
  readonly engine: Engine;
  readonly store: OrderStore;
  readonly control: RunnerControl;
  readonly pauses: PauseBook;
  readonly log: Logger;
  readonly startingEquity?: Dec;
  readonly say: (line: string) => void;
  /** After a pause, a resume or a kill from the console (notifications). */
  readonly onAction?: (what: 'pause' | 'resume' | 'kill', detail: string) => void;
}

export interface RunnerConsole {
  readonly url: string;
  round(r: RoundResult): void;
  close(): Promise<void>;
}

export async function startRunnerConsole(d: RunnerConsoleDeps): Promise<RunnerConsole> {
  const log = d.log.child({ component: 'console' });
  // The control closures below refer to the source they belong to (set before any request arrives).
  let source: LiveSource | undefined = undefined;
  const created = createLiveSource({
    mode: d.config.mode,
    title: `capibot ${d.config.mode}: ${d.engine.strategies.map((s) => s.id).join(', ')}`,
    engine: d.engine,
    store: d.store,
    pauses: d.pauses,
    now: Date.now,
    log,
    ...(d.startingEquity !== undefined ? { startingEquity: d.startingEquity } : {}),
    control: {
      pause: (s) => {
        const ok = d.pauses.pause(s);
        if (ok) {
          source?.note('warn', 'Paused', `${s} paused from the console`);
          d.onAction?.('pause', s);
        }
        return ok;
      },
      resume: (s) => {
        const ok = d.pauses.resume(s);
        if (ok) {
          source?.note('warn', 'Resumed', `${s} resumed from the console`);
          d.onAction?.('resume', s);
        }
        return ok;
      },
      kill: (reason) => {
        const engaged = d.control.requestKill(`console: ${reason}`);
        source?.note('error', 'Kill', `kill switch from the console: ${reason}`);
        return engaged;
      },
    },
  });
  source = created;
  let server: ConsoleServer;
  try {
    server = await startConsoleServer({
      host: d.config.console.host,
      port: d.config.console.port,
      tokens: d.tokens,
      allowedOrigins: d.config.console.allowedOrigins,
      source: created,
      logger: log,
    });
  } catch (e) {
    created.stop();
    throw e;
  }
  d.say(
    `console on ${server.url}/ (${d.tokens.read !== undefined ? 'control and read-only tokens' : 'control token'} from the environment)`,
  );
  if (d.tokens.generated)
    // Said once on the terminal (never logged): the operator's way in when no token variable is set.
    d.say(
      `console: ${d.config.console.tokenEnv} is not set; this run's control token is ${d.tokens.control} ` +
        '(password of the browser prompt, any user name; set the variable to choose your own)',
    );
  const live = created;
  return {
    url: server.url,
    round: (r) => live.round(r),
    close: async () => {
      live.stop();
      await server.close();
    },
  };
}
