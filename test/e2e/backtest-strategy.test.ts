// End to end: from `capibot new-strategy` to a report with `capibot backtest --strategy FILE` and no
// config file: default settings, the bundled sample recording (config/example.yaml's backtest.data),
// from any working directory. A missing file, or --strategy with --config, is bad usage (exit 2).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BACKTEST_DATA } from '../../src/backtest/default-data.ts';
import { CLI, cleanEnv, REPO, tempDir, type Done } from '../ops/helpers.ts';

async function capibot(args: readonly string[], cwd: string): Promise<Done> {
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

describe('capibot backtest --strategy', () => {
  const tmp = tempDir('capibot-bt-strategy-');
  let scaffold: Done;
  let run: Done;
  let missing: Done;
  let both: Done;

  beforeAll(async () => {
    scaffold = await capibot(['new-strategy', 'first-try', '--dir', tmp], tmp);
    [run, missing, both] = await Promise.all([
      capibot(['backtest', '--strategy', 'first-try.ts', '--out', 'out', '--json'], tmp),
      capibot(['backtest', '--strategy', 'no-such-strategy.ts'], tmp),
      capibot(['backtest', '--strategy', 'first-try.ts', '--config', join(REPO, 'config/example.yaml')], tmp),
    ]);
  });

  it('the scaffold names the command, which writes a report on the bundled sample', () => {
    expect(scaffold.code).toBe(0);
    expect(scaffold.stderr).toContain('npx capibot backtest --strategy first-try.ts');
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(0);
    for (const f of ['report.json', 'report.html', 'fills.csv'])
      expect(existsSync(join(tmp, 'out', f)), f).toBe(true);
    const report = JSON.parse(run.stdout) as { run: { tickers: number }; strategies?: unknown };
    expect(report.run.tickers).toBeGreaterThan(0);
    expect(run.stderr).toContain(join(REPO, DEFAULT_BACKTEST_DATA));
  });

  it("defaults to config/example.yaml's backtest.data (what `npm start` replays)", () => {
    const example = parse(readFileSync(join(REPO, 'config/example.yaml'), 'utf8')) as {
      backtest: { data: string };
    };
    expect(DEFAULT_BACKTEST_DATA).toBe(example.backtest.data);
  });

  it('a missing strategy file is bad usage: exit 2 and one line naming it', () => {
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      'capibot: error [CONFIG] no-such-strategy.ts: strategy file not found',
    );
  });

  it('--strategy with --config is refused (exit 2)', () => {
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(
      "option '-s, --strategy <file>' cannot be used with option '-c, --config <file>'",
    );
  });
});
