// End to end: `capibot backtest` as a child process (bin/capibot.js). Writes report.json, report.html
// and fills.csv; prints the summary (or the report with --json); is deterministic (two runs give a
// byte-identical report.json); defaults --out to reports/<timestamp>/ with reports/latest; and refuses
// a bad config or a missing recording with exit 2 and one line on stderr.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, REPO, tempDir, type Done } from '../ops/helpers.ts';

const CONFIG = 'test/fixtures/configs/backtest/sma.yaml';

/** `capibot ARGS` in `cwd`. */
async function capibot(args: readonly string[], cwd = REPO): Promise<Done> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return { code, signal, stdout, stderr };
}

describe('capibot backtest', () => {
  const tmp = tempDir('capibot-backtest-');
  const out1 = join(tmp, 'one');
  const out2 = join(tmp, 'two');
  const elsewhere = join(tmp, 'cwd');
  let first: Done;
  let second: Done;
  let badConfig: Done;
  let missingData: Done;
  let defaultOut: Done;

  beforeAll(async () => {
    // A config with absolute paths, run from another working directory (for the default --out).
    mkdirSync(elsewhere);
    const moved = readFileSync(join(REPO, CONFIG), 'utf8')
      .replace('test/fixtures/strategies/', `${REPO}/test/fixtures/strategies/`)
      .replace('test/fixtures/recordings/', `${REPO}/test/fixtures/recordings/`);
    writeFileSync(join(elsewhere, 'sma.yaml'), moved);
    [first, second, badConfig, missingData, defaultOut] = await Promise.all([
      capibot(['backtest', '--config', CONFIG, '--out', out1]),
      capibot(['backtest', '--config', CONFIG, '--out', out2, '--json']),
      capibot([
        'backtest',
        '--config',
        'test/fixtures/configs/backtest/broken.yaml',
        '--out',
        join(tmp, 'x'),
      ]),
      capibot([
        'backtest',
        '--config',
        'test/fixtures/configs/backtest/missing-data.yaml',
        '--out',
        join(tmp, 'y'),
      ]),
      capibot(['backtest', '--config', 'sma.yaml'], elsewhere),
    ]);
  }, 120_000);

  it('writes report.json, report.html and fills.csv and prints the summary table', () => {
    expect(first.code, first.stderr).toBe(0);
    for (const f of ['report.json', 'report.html', 'fills.csv', 'trades.csv'])
      expect(existsSync(join(out1, f))).toBe(true);
    expect(first.stdout).toMatch(/^Orders placed\s+\d+$/m);
    expect(first.stdout).toMatch(/^Net PnL\s+-?\d/m);
    // The elapsed time goes to stderr, never into the report.
    expect(first.stderr).toMatch(/^backtest: 240 polls of .* in [\d.]+ s/m);
    const report = JSON.parse(readFileSync(join(out1, 'report.json'), 'utf8'));
    expect(report.run).toMatchObject({
      data: 'test/fixtures/recordings/wave-2sym-240s.ndjson',
      tickers: 240,
      firstTickTime: 1717200000000,
      lastTickTime: 1717200239000,
      strategies: [
        {
          id: 'sma',
          file: 'test/fixtures/strategies/sma-cross.ts',
          params: { fast: 5, slow: 20, size: '0.01' },
        },
      ],
    });
    expect(report.summary.fills).toBeGreaterThan(0);
    expect(report.summary.requestsByEndpoint.tickers).toBe(240);
    expect(report.fills.length).toBe(report.summary.fills);
    const csvLines = readFileSync(join(out1, 'fills.csv'), 'utf8').trimEnd().split('\r\n');
    expect(csvLines.length).toBe(report.summary.fills + 1);
    const tradeLines = readFileSync(join(out1, 'trades.csv'), 'utf8').trimEnd().split('\r\n');
    expect(tradeLines.length).toBe(report.trades.length + 1);
    expect(report.trades.length).toBe(report.summary.trades + report.summary.openTrades);
  });

  it('is deterministic: a second run gives a byte-identical report.json, printed with --json', () => {
    expect(second.code, second.stderr).toBe(0);
    const a = readFileSync(join(out1, 'report.json'), 'utf8');
    const b = readFileSync(join(out2, 'report.json'), 'utf8');
    expect(b).toBe(a);
    expect(second.stdout).toBe(a);
  });

  it('defaults --out to reports/<UTC timestamp>/ and points reports/latest at it', () => {
    expect(defaultOut.code, defaultOut.stderr).toBe(0);
    const reports = join(elsewhere, 'reports');
    const runs = readdirSync(reports).filter((d) => d !== 'latest');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/);
    expect(lstatSync(join(reports, 'latest')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(reports, 'latest', 'report.json'), 'utf8')).toBe(
      readFileSync(join(reports, runs[0]!, 'report.json'), 'utf8'),
    );
  });

  it('refuses a bad config with exit 2 and one line naming the field', () => {
    expect(badConfig.code).toBe(2);
    const lines = badConfig.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/broken\.yaml.*maxOpenOrders/);
    expect(badConfig.stdout).toBe('');
  });

  it('refuses a missing recording with exit 2, naming the file', () => {
    expect(missingData.code).toBe(2);
    const lines = missingData.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('test/fixtures/recordings/no-such-recording.ndjson');
  });
});
