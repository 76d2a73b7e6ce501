// A `capibot run` (in process) with the console on, against a `capibot sim --clock realtime` child
// process (test/helpers/capibot-processes.ts): the console's URL from what the runner says, the token
// it was given, and a stop that ends the run gracefully.
import { join } from 'node:path';
import { resolve } from 'node:path';
import { parseConfigText } from '../../src/config/load.ts';
import { runTrading, type RunResult } from '../../src/runner/runner.ts';

export const CHURN = resolve('test/fixtures/strategies/churn.ts');
export const TOKEN = 'control-token-for-the-console-tests-0123';
export const READ_TOKEN = 'read-only-token-for-the-console-tests-4567';

export interface ConsoleRun {
  readonly url: string;
  readonly store: string;
  readonly said: readonly string[];
  readonly done: Promise<RunResult>;
  stop(): Promise<RunResult>;
}

export function runYaml(simUrl: string, store: string, extra: readonly string[] = []): string {
  return [
    'mode: paper',
    'exchange:',
    `  baseUrl: ${simUrl}`,
    '  timeoutMs: 2000',
    'store:',
    `  path: ${store}`,
    'strategies:',
    '  - id: churn',
    `    file: ${CHURN}`,
    '  - id: second',
    `    file: ${CHURN}`,
    '    params: { maxOpen: 2 }',
    'paper:',
    '  venue: http',
    'orders:',
    '  cancelOnExit: true',
    'budget:',
    '  ipWeightPerWindow: 5000',
    '  uidWeightPerWindow: 5000',
    'polling:',
    '  tickersMs: 300',
    '  fillsMs: 150',
    '  historyMs: 400',
    '  staleAfterMs: 5000',
    'metrics:',
    '  port: 0',
    'shutdown:',
    '  drainDeadlineMs: 2000',
    'console:',
    '  enabled: true',
    '  port: 0',
    ...extra,
    '',
  ].join('\n');
}

export async function startConsoleRun(
  simUrl: string,
  dir: string,
  extra: readonly string[] = [],
): Promise<ConsoleRun> {
  const store = join(dir, `store-${Date.now()}.sqlite`);
  const config = parseConfigText(runYaml(simUrl, store, extra), 'console-test.yaml', {});
  const said: string[] = [];
  const stop = new AbortController();
  let found: (url: string) => void = () => undefined;
  const url = new Promise<string>((ok) => (found = ok));
  const done = runTrading({
    config,
    env: { CAPIBOT_CONSOLE_TOKEN: TOKEN, CAPIBOT_CONSOLE_READ_TOKEN: READ_TOKEN },
    live: false,
    signals: false,
    stop: stop.signal,
    durationMs: 120_000,
    logger: { level: 'silent' },
    say: (line) => {
      said.push(line);
      const m = /^console on (http:\/\/[^/]+)\//.exec(line);
      if (m?.[1] !== undefined) found(m[1]);
    },
  });
  const failed = done.then((r) => {
    throw new Error(`the run ended before its console started: ${r.reason} ${said.join(' | ')}`);
  });
  return {
    url: await Promise.race([url, failed]),
    store,
    said,
    done,
    stop: () => {
      stop.abort();
      return done;
    },
  };
}

export const bearer = (t: string): Record<string, string> => ({ Authorization: `Bearer ${t}` });
