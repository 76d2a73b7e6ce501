// `capibot backtest` writes its report from a spooled run (issue #24: the report streams, the run's
// fills and orders stay in a temporary database): the four files must come out byte for byte as
// from the in-memory record, with the store's retired rows (its spill file) read back too.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareBacktest } from '../../src/backtest/prepare.ts';
import { buildReport, REPORT_FILES, summarizeRun, writeReport } from '../../src/backtest/report/index.ts';
import { runBacktest, runSpooledBacktest } from '../../src/backtest/run-backtest.ts';
import { roundTrip } from './report/fixtures.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the spooled backtest report', () => {
  it.each([
    ['resting grid orders', 'config/grid.yaml'],
    ['a market maker canceling stale quotes', 'config/market-maker.yaml'],
    ['the example strategy', 'config/example.yaml'],
  ])('%s: the same four files as from the in-memory record', async (_label, configPath) => {
    const prepared = await prepareBacktest({ configPath, env: {} });
    const record = await runBacktest({ ...prepared, retireAfterMs: Infinity });
    // Rows retired a minute after their last update: most of the run is read back from the spill file.
    let retiredFills = 0;
    const run = await runSpooledBacktest({
      ...prepared,
      retireAfterMs: 60_000,
      observe: (session) => {
        retiredFills = Number(session.store.footprint()['cold.retiredFills'] ?? 0);
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'capibot-spooled-'));
    dirs.push(dir);
    try {
      expect(run.orderCounts).toEqual(record.orderCounts);
      expect(summarizeRun(run)).toEqual(summarizeRun(record));
      const written = await writeReport(dir, run);
      const expected = buildReport(record);
      expect(written.summary).toEqual(expected.summary);
      expect(readFileSync(join(dir, REPORT_FILES.json), 'utf8')).toBe(expected.json);
      expect(readFileSync(join(dir, REPORT_FILES.csv), 'utf8')).toBe(expected.csv);
      expect(readFileSync(join(dir, REPORT_FILES.tradesCsv), 'utf8')).toBe(expected.tradesCsv);
      expect(readFileSync(join(dir, REPORT_FILES.html), 'utf8')).toBe(expected.html);
      expect(expected.summary.fills).toBeGreaterThan(0);
      expect(retiredFills).toBeGreaterThan(0);
    } finally {
      run.rows.close();
    }
  });

  it('leaves nothing behind when the report fails: no half file, no folder it made', async () => {
    const record = roundTrip();
    // A fill matching no order, whose side its own fields do not tell: the report refuses it.
    const bad = {
      ...record,
      orders: [],
      fills: [{ ...record.fills[0]!, direction: 'TAKER', positionSide: '?' }],
    };
    const parent = mkdtempSync(join(tmpdir(), 'capibot-spooled-'));
    dirs.push(parent);
    const dir = join(parent, 'new', 'report');
    await expect(writeReport(dir, bad)).rejects.toThrow(/side cannot be read/);
    expect(existsSync(join(parent, 'new'))).toBe(false);
    // An existing folder stays, without any file of the report.
    const existing = join(parent, 'existing');
    mkdirSync(existing);
    await expect(writeReport(existing, bad)).rejects.toThrow(/side cannot be read/);
    expect(readdirSync(existing)).toEqual([]);
  });
});
