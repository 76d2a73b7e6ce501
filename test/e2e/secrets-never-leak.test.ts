// ARCHITECTURE.md invariant 8: the configured key, secret and passphrase never appear in logs, errors,
// reports or the store. A paper session (signed requests to `capibot sim`, which is given the same
// credentials), `capibot kill`, `capibot status` and a backtest run with distinctive credential values
// in the environment and logs at trace level; then every byte they wrote is searched.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerStatus } from '../../src/cli/commands/status.ts';
import {
  cleanEnv,
  REPO,
  runCli,
  runInProcess,
  simOrders,
  startCli,
  startSim,
  tempDir,
  writeConfig,
  type Done,
} from '../ops/helpers.ts';

const SECRETS = {
  CAPIBOT_API_KEY: 'LeakCanaryKey-5b1e7d2c9a',
  CAPIBOT_API_SECRET: 'LeakCanarySecret-83f0c4e6d1b7a925',
  CAPIBOT_API_PASSPHRASE: 'LeakCanaryPass-6d2a',
};
const VALUES = Object.values(SECRETS);
const env = cleanEnv(SECRETS);

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Which of the secret values occur in `bytes` (as UTF-8 text, or as UTF-16 as SQLite could store it). */
function leaks(bytes: Buffer): string[] {
  return VALUES.filter(
    (v) => bytes.includes(Buffer.from(v, 'utf8')) || bytes.includes(Buffer.from(v, 'utf16le')),
  );
}

function expectClean(where: string, bytes: Buffer | string): void {
  expect(leaks(typeof bytes === 'string' ? Buffer.from(bytes) : bytes), where).toEqual([]);
}

function expectCleanOutput(what: string, d: Done): void {
  expectClean(`${what} stdout`, d.stdout);
  expectClean(`${what} stderr`, d.stderr);
}

describe.concurrent('secrets never leak', () => {
  it('paper session, kill and status: logs, outputs and every store file', async () => {
    // The simulator checks signatures against the same credentials (its own output is not ours).
    const sim = await startSim(
      ['--clock', 'realtime'],
      'test/fixtures/recordings/wave-2sym-240s.ndjson',
      env,
    );
    const dir = tempDir('capibot-leak-');
    try {
      const cfg = writeConfig(
        dir,
        `mode: paper
exchange:
  baseUrl: ${sim.url}
paper:
  venue: http
strategies:
  - id: grid
    file: ${join(REPO, 'strategies/grid.ts')}
    params: { symbol: cmt_btcusdt, levels: 2 }
store:
  path: ${join(dir, 'store', 'capibot.sqlite')}
polling:
  tickersMs: 500
  fillsMs: 500
metrics:
  port: 0
log:
  level: trace
`,
      );
      const run = startCli(['run', '--config', cfg, '--duration-s', '3'], env);
      const done = await run.exited;
      expect(done.code, done.stderr).toBe(0);
      expect(done.stderr).toMatch(/"level":20,.*"endpoint":"batchOrders"/); // debug lines of signed requests
      // The session did sign requests: orders reached the simulator.
      expect((await simOrders(sim.url)).some((o) => o.client_oid?.startsWith('cb-grid-'))).toBe(true);
      expectCleanOutput('run', done);

      const kill = await runCli(['kill', '--config', cfg, '--yes'], env);
      expect(kill.code, kill.stderr).toBe(0);
      expectCleanOutput('kill', kill);
      const status = await runInProcess(registerStatus, ['status', '--config', cfg, '--json']);
      expect(status.code, status.stderr).toBe(0);
      expectClean('status', status.stdout + status.stderr);

      // The store and its WAL/SHM companions, byte for byte.
      const files = filesUnder(join(dir, 'store'));
      expect(files.some((f) => f.endsWith('.sqlite'))).toBe(true);
      for (const f of files) expectClean(f, readFileSync(f));
    } finally {
      await sim.proc.stop();
    }
  });

  it('backtest: stdout, stderr and every report file', async () => {
    const out = tempDir('capibot-leak-bt-');
    const cfg = writeConfig(
      tempDir(),
      `mode: paper
strategies:
  - id: sma
    file: ${join(REPO, 'test/fixtures/strategies/sma-cross.ts')}
    params: { fast: 5, slow: 20, size: '0.01' }
backtest:
  data: ${join(REPO, 'test/fixtures/recordings/wave-2sym-240s.ndjson')}
`,
    );
    const bt = await runCli(['backtest', '--config', cfg, '--out', out, '--log-level', 'trace'], env);
    expect(bt.code, bt.stderr).toBe(0);
    expectCleanOutput('backtest', bt);
    const files = filesUnder(out);
    expect(files.map((f) => f.slice(out.length + 1)).sort()).toEqual(
      expect.arrayContaining(['fills.csv', 'report.html', 'report.json']),
    );
    for (const f of files) expectClean(f, readFileSync(f));
  });

  it('the checker itself finds a planted value', () => {
    expect(leaks(Buffer.from(`x ${SECRETS.CAPIBOT_API_SECRET} y`))).toEqual([SECRETS.CAPIBOT_API_SECRET]);
    expect(leaks(Buffer.from(SECRETS.CAPIBOT_API_KEY, 'utf16le'))).toEqual([SECRETS.CAPIBOT_API_KEY]);
  });
});
