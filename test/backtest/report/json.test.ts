import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { InvariantViolation } from '../../../src/core/errors.ts';
import { buildReport, writeReport } from '../../../src/backtest/report/index.ts';
import { canonicalJson, sortKeysDeep } from '../../../src/backtest/report/canonical-json.ts';
import type { RunRecord } from '../../../src/backtest/report/types.ts';
import { roundTrip } from './fixtures.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'capibot-report-'));
  dirs.push(d);
  return d;
}

describe('report.json', () => {
  it('has the documented shape: run, summary, equity curve and every fill', () => {
    const report = JSON.parse(buildReport(roundTrip()).json);
    expect(Object.keys(report)).toEqual(['run', 'summary', 'equityCurve', 'fills', 'trades']);
    expect(report.run).toEqual({
      strategies: [{ id: 's1', file: 'strategies/sma.ts', params: { fast: 5, size: '2', slow: 20 } }],
      data: 'data/sample.ndjson',
      firstTickTime: roundTrip().run.firstTickTime,
      lastTickTime: roundTrip().run.lastTickTime,
      tickers: 5,
    });
    expect(report.summary.netPnl).toBe('19.664');
    expect(report.equityCurve).toHaveLength(5);
    expect(report.equityCurve[3]).toEqual({
      t: roundTrip().equity[3]!.t,
      equity: '1019.664',
      realized: '20',
      unrealized: '0',
    });
    expect(
      report.fills.map((f: { tradeId: string; side: string; price: string }) => [f.tradeId, f.side, f.price]),
    ).toEqual([
      ['5001', 'open_long', '100'],
      ['5002', 'close_long', '110'],
    ]);
  });

  it('is byte-identical for the same inputs, whatever the wall clock says', async () => {
    const a = await freshDir();
    const b = await freshDir();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2020-01-01T00:00:00Z'));
      const first = await writeReport(a, roundTrip());
      vi.setSystemTime(new Date('2031-06-30T12:34:56Z'));
      await writeReport(b, roundTrip());
      expect(Object.values(first.files).map((p) => p.slice(a.length + 1))).toEqual([
        'report.json',
        'fills.csv',
        'trades.csv',
        'report.html',
      ]);
    } finally {
      vi.useRealTimers();
    }
    for (const name of ['report.json', 'fills.csv', 'trades.csv', 'report.html']) {
      const [x, y] = await Promise.all([readFile(join(a, name)), readFile(join(b, name))]);
      expect(x.equals(y), name).toBe(true);
    }
    // Atomic writes leave no temporary files behind.
    expect((await readdir(a)).sort()).toEqual(['fills.csv', 'report.html', 'report.json', 'trades.csv']);
  });

  it('does not depend on the key order of strategy params or count maps', () => {
    const base = roundTrip();
    const reordered: RunRecord = {
      ...base,
      run: {
        ...base.run,
        strategies: [{ ...base.run.strategies[0]!, params: { size: '2', slow: 20, fast: 5 } }],
      },
      requestsByEndpoint: { fills: 3, tickers: 5, cancelOrder: 1, placeOrder: 4 },
    };
    expect(buildReport(reordered).json).toBe(buildReport(base).json);
  });
});

describe('canonicalJson', () => {
  it('writes Dec and bigint as decimal strings and scalar-only objects on one line', () => {
    expect(canonicalJson({ a: dec('1.50'), b: 10n, c: [1, { d: null }], e: undefined })).toBe(
      '{\n  "a": "1.5",\n  "b": "10",\n  "c": [\n    1,\n    { "d": null }\n  ]\n}',
    );
  });

  it('refuses values JSON cannot hold exactly', () => {
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(InvariantViolation);
    expect(() => canonicalJson({ x: () => 1 })).toThrow(/\$\.x/);
    expect(() => canonicalJson({ x: new Map() })).toThrow(InvariantViolation);
  });

  it('sortKeysDeep sorts nested objects and leaves arrays and Dec alone', () => {
    const v = sortKeysDeep({ b: { z: 1, y: [{ d: 1, c: 2 }] }, a: dec('2') });
    expect(canonicalJson(v)).toBe(
      '{\n  "a": "2",\n  "b": {\n    "y": [\n      { "c": 2, "d": 1 }\n    ],\n    "z": 1\n  }\n}',
    );
  });
});
