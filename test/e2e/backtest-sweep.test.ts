// End to end: `capibot sweep` with a 2×2 grid on two worker threads. One row per combination, ranked
// by the metric; the rows do not depend on which worker finished first; and each row's command
// reproduces its figures on its own.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, REPO, tempDir, type Done } from '../ops/helpers.ts';

async function capibot(args: readonly string[]): Promise<Done> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: REPO,
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

interface SweepJson {
  metric: string;
  order: string;
  combinations: number;
  rows: {
    rank: number;
    index: number;
    params: Record<string, number>;
    metrics: Record<string, string | number | null>;
    config: string;
    command: string;
  }[];
}

describe('capibot sweep', () => {
  const tmp = tempDir('capibot-sweep-');
  const out = join(tmp, 'sweep');
  const grid = join(tmp, 'grid.yaml');
  let sweep: Done;
  let result: SweepJson;
  let reproduced: Done;

  beforeAll(async () => {
    writeFileSync(grid, 'strategy: sma\nparams:\n  fast: [3, 5]\n  slow: [15, 20]\n');
    sweep = await capibot([
      'sweep',
      '--config',
      'test/fixtures/configs/backtest/sma.yaml',
      '--grid',
      grid,
      '--workers',
      '2',
      '--out',
      out,
    ]);
    result = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as SweepJson;
    // The best row's command, run on its own (its --out added).
    const best = result.rows[0]!;
    const args = best.command.split(' ').slice(1);
    reproduced = await capibot([...args, '--out', join(tmp, 'best'), '--json']);
  }, 120_000);

  it('runs every combination of the grid, ranked by the metric', () => {
    expect(sweep.code, sweep.stderr).toBe(0);
    expect(result).toMatchObject({ metric: 'netPnl', order: 'desc', combinations: 4 });
    expect(result.rows.map((r) => r.rank)).toEqual([1, 2, 3, 4]);
    expect(result.rows.map((r) => r.index).sort()).toEqual([1, 2, 3, 4]);
    // Grid order: the first param varies slowest.
    const byIndex = [...result.rows].sort((a, b) => a.index - b.index).map((r) => r.params);
    expect(byIndex).toEqual([
      { fast: 3, slow: 15 },
      { fast: 3, slow: 20 },
      { fast: 5, slow: 15 },
      { fast: 5, slow: 20 },
    ]);
    const pnl = result.rows.map((r) => Number(r.metrics['netPnl']));
    expect([...pnl].sort((a, b) => b - a)).toEqual(pnl);
    expect(sweep.stdout).toMatch(/^rank\s+netPnl\s+fills\s+params$/m);
  });

  it('writes sweep.csv with one row per combination', () => {
    const lines = readFileSync(join(out, 'sweep.csv'), 'utf8').trimEnd().split('\r\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^rank,index,fast,slow,netPnl,/);
    expect(lines[0]).toMatch(/,config,command$/);
    expect(lines[1]!.startsWith(`1,${result.rows[0]!.index},`)).toBe(true);
  });

  it('writes sweep.html with the ranked table and a heatmap over the two params', () => {
    const html = readFileSync(join(out, 'sweep.html'), 'utf8');
    const table = html.slice(html.indexOf('<table id="sweep-table"'));
    expect(table.match(/<tr title=/g)).toHaveLength(4);
    expect(html).toContain('<table class="heatmap">');
    expect(html).toMatch(/netPnl by fast \(rows\) and slow \(columns\)/);
  });

  it('gives each row a command that reproduces it alone', () => {
    expect(reproduced.code, reproduced.stderr).toBe(0);
    const report = JSON.parse(reproduced.stdout);
    const best = result.rows[0]!;
    expect(report.run.strategies[0].params).toMatchObject(best.params);
    for (const m of ['netPnl', 'fills', 'feesPaid', 'maxDrawdown', 'winRate'])
      expect(report.summary[m], m).toEqual(best.metrics[m]);
  });
});
