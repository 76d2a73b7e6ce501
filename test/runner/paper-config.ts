// The paper config of the in-process `capibot run` tests: the churn strategy on the embedded
// simulator over a small recording, quick polls, metrics on a free port.
import { resolve } from 'node:path';
import { parseConfigText } from '../../src/config/load.ts';

export const RECORDING = resolve('test/fixtures/recordings/sim-small.ndjson');
export const CHURN = resolve('test/fixtures/strategies/churn.ts');

/** The config with its store at `store`; `extra` YAML lines are appended (whole sections). */
export function paperConfig(
  store: string,
  extra: readonly string[] = [],
): ReturnType<typeof parseConfigText> {
  const yaml = [
    'mode: paper',
    'store:',
    `  path: ${store}`,
    'strategies:',
    '  - id: churn',
    `    file: ${CHURN}`,
    'paper:',
    '  venue: embedded',
    '  source: recording',
    `  data: ${RECORDING}`,
    '  clock: realtime',
    '  speed: 2',
    'polling:',
    '  tickersMs: 150',
    '  fillsMs: 200',
    '  historyMs: 300',
    '  staleAfterMs: 2000',
    'metrics:',
    '  port: 0',
    'shutdown:',
    '  drainDeadlineMs: 1000',
    ...extra,
    '',
  ].join('\n');
  return parseConfigText(yaml, 'test.yaml', {});
}
