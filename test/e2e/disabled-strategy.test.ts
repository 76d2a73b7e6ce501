// End to end: a strategy the engine disables mid-run (it throws) is named by `capibot backtest`, in
// its summary, report.json and a warning, and `capibot sweep` does not rank such a run as a
// candidate: the run whose strategy crashed at its 5th ticker is kept with its figures, unranked.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO, runCli, tempDir, writeConfig, type Done } from '../ops/helpers.ts';

const CONFIG = [
  'mode: paper',
  'strategies:',
  '  - id: bad',
  `    file: ${JSON.stringify(join(REPO, 'test/fixtures/strategies/fails-after.ts'))}`,
  '    params: { after: 5 }',
  'backtest:',
  `  data: ${JSON.stringify(join(REPO, 'test/fixtures/recordings/wave-2sym-240s.ndjson'))}`,
  'log:',
  '  level: silent',
  '',
].join('\n');

interface Row {
  rank: number | null;
  params: Record<string, number>;
  metrics: Record<string, unknown> | null;
  error?: string;
}

describe('a strategy disabled during a backtest', () => {
  const tmp = tempDir('capibot-disabled-');
  const config = writeConfig(tmp, CONFIG);
  let backtest: Done;
  let sweep: Done;

  beforeAll(async () => {
    writeFileSync(join(tmp, 'grid.yaml'), 'strategy: bad\nparams:\n  after: [5, 0]\n');
    [backtest, sweep] = await Promise.all([
      runCli(['backtest', '--config', config, '--out', join(tmp, 'bt')]),
      runCli([
        'sweep',
        '--config',
        config,
        '--grid',
        join(tmp, 'grid.yaml'),
        '--workers',
        '1',
        '--out',
        join(tmp, 'sw'),
      ]),
    ]);
  }, 120_000);

  it('backtest: exits 0 with the report, and names the strategy, when and why', () => {
    expect(backtest.code, backtest.stderr).toBe(0);
    const reason = /bad at 2024-06-01T00:00:04\.000Z: onTicker threw fixture failure at tick 5 \(test\/fixtures\/strategies\/fails-after\.ts:\d+:\d+\)/;
    expect(backtest.stdout).toMatch(new RegExp(`Strategies disabled\\s+${reason.source}`));
    expect(backtest.stderr).toMatch(/warning: 1 strategy instance was disabled during the run/);
    const report = JSON.parse(readFileSync(join(tmp, 'bt', 'report.json'), 'utf8')) as {
      summary: { strategiesDisabled: { strategy: string; at: number; reason: string }[] };
    };
    expect(report.summary.strategiesDisabled).toEqual([
      {
        strategy: 'bad',
        at: 1717200004000,
        reason: expect.stringMatching(/fixture failure at tick 5/) as unknown,
      },
    ]);
  });

  it('sweep: ranks the healthy run, and keeps the crashed one unranked with its figures and why', () => {
    expect(sweep.code, sweep.stderr).toBe(0);
    expect(sweep.stderr).toMatch(/1 not ranked \(a strategy was disabled\)/);
    const rows = (JSON.parse(readFileSync(join(tmp, 'sw', 'sweep.json'), 'utf8')) as { rows: Row[] }).rows;
    expect(rows.map((r) => [r.params['after'], r.rank])).toEqual([
      [0, 1],
      [5, null],
    ]);
    expect(rows[1]?.metrics).not.toBeNull();
    expect(rows[1]?.error).toMatch(/^strategy disabled: bad at .*fixture failure at tick 5/);
    expect(rows[0]?.error).toBeUndefined();
    const csv = readFileSync(join(tmp, 'sw', 'sweep.csv'), 'utf8');
    expect(csv).toMatch(/strategy disabled: bad at/);
  });
});
