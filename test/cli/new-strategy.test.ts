// `capibot new-strategy`: scaffolds a strategy and its test from the template; the generated strategy
// loads from its file (no build step) and runs the template test's scenario through the harness.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/command.ts';
import { registerNewStrategy, scaffoldStrategy } from '../../src/cli/commands/new-strategy.ts';
import { BadInputError } from '../../src/core/errors.ts';
import { dec } from '../../src/strategy/index.ts';
import { describeOrder, hold, runStrategy, series } from '../../src/strategy/testing/index.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'capibot.js');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'capibot-new-strategy-'));
  dirs.push(d);
  return d;
}

function cli(): { program: Command; lines: string[] } {
  const lines: string[] = [];
  const ctx: CliContext = {
    out: {
      data: (t) => lines.push(t),
      json: (v) => lines.push(JSON.stringify(v)),
      info: (t) => lines.push(t),
      error: (t) => lines.push(t),
    },
    setExitCode: () => undefined,
  };
  const program = new Command('capibot').exitOverride();
  registerNewStrategy(program, ctx);
  return { program, lines };
}

describe('capibot new-strategy', () => {
  it('writes NAME.ts and NAME.test.ts; the strategy loads from its file and trades the template scenario', async () => {
    const dir = tempDir();
    const { program, lines } = cli();
    await program.parseAsync(['new-strategy', 'dip-buyer', '--dir', dir], { from: 'user' });
    const file = join(dir, 'dip-buyer.ts');
    const test = join(dir, 'dip-buyer.test.ts');
    expect(lines.slice(0, 2).map((l) => l.replace(/^created .*\//, 'created '))).toEqual([
      'created dip-buyer.ts',
      'created dip-buyer.test.ts',
    ]);
    const source = readFileSync(file, 'utf8');
    expect(source).toContain("name: 'dip-buyer'");
    expect(source).not.toContain('starter');
    expect(source).toMatch(/from '\.\.?\/.*src\/strategy\/index\.ts'/);
    const testSource = readFileSync(test, 'utf8');
    expect(testSource).toContain("import strategy from './dip-buyer.ts'");
    expect(testSource).toContain("describe('dip-buyer'");

    // The generated test's scenario, run on the file as `capibot backtest` would load it.
    const ticks = series([...hold('64000', 3), ...hold('63970', 5), ...hold('64010', 6)], {
      symbol: 'cmt_btcusdt',
    });
    const run = await runStrategy({
      strategy: file,
      params: { symbol: 'cmt_btcusdt', notional: '100' },
      ticks,
    });
    expect(run.strategy.name).toBe('dip-buyer');
    expect(run.orders.slice(0, 2).map(describeOrder)).toEqual([
      'open_long 0.0015 @ 63980.8 postOnly #entry → filled 0.0015',
      'close_long 0.0015 @ 64000 #tp → filled 0.0015',
    ]);
    expect(run.summary.positions['cmt_btcusdt']).toEqual({ long: dec(0), short: dec(0) });
  });

  it('refuses to overwrite an existing file and leaves it untouched', () => {
    const dir = tempDir();
    scaffoldStrategy('twice', dir);
    const before = readFileSync(join(dir, 'twice.ts'), 'utf8');
    expect(() => scaffoldStrategy('twice', dir)).toThrow(BadInputError);
    expect(() => scaffoldStrategy('twice', dir)).toThrow(/already exists/);
    expect(readFileSync(join(dir, 'twice.ts'), 'utf8')).toBe(before);
  });

  it.each(['Grid', 'my_strategy', '1st', 'a--b', 'trailing-', 'index', 'x'.repeat(41), ''])(
    'refuses the name %j',
    (name) => {
      const dir = tempDir();
      expect(() => scaffoldStrategy(name, dir)).toThrow(BadInputError);
      expect(existsSync(join(dir, `${name}.ts`))).toBe(false);
    },
  );

  it('exits 2 with a one-line error on a bad name, 0 with the files written otherwise (real binary)', async () => {
    const dir = tempDir();
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        execFile(process.execPath, [BIN, ...args], { cwd: ROOT }, (err, stdout, stderr) => {
          done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
        });
      });
    const [bad, good] = await Promise.all([
      run(['new-strategy', 'Bad Name', '--dir', dir]),
      run(['new-strategy', 'breakout', '--dir', dir]),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^capibot: error \[BAD_INPUT\] NAME: expected a kebab-case name/);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('breakout.ts');
    expect(existsSync(join(dir, 'breakout.test.ts'))).toBe(true);
  });
});
