// The backtest driver in process: the RunRecord it builds from a config and a recording.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { prepareBacktest } from '../../src/backtest/prepare.ts';
import { buildReport, summarize, summaryRows } from '../../src/backtest/report/index.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { dec } from '../../src/core/decimal.ts';
import { BadInputError, ConfigError } from '../../src/core/errors.ts';

const CONFIG = 'test/fixtures/configs/backtest/sma.yaml';
const FIRST = 1717200000000;
const LAST = FIRST + 239_000;

const WAVE = resolve('test/fixtures/recordings/wave-2sym-240s.ndjson');

/** A config in a temporary folder: the strategies (id, fixture file, params as YAML flow text) and the recording. */
function tempConfig(
  name: string,
  strategies: readonly { id: string; fixture: string; params: string }[],
  data = WAVE,
): string {
  const path = join(mkdtempSync(join(tmpdir(), 'capibot-bt-')), name);
  const lines = ['strategies:'];
  for (const s of strategies) {
    lines.push(
      `  - id: ${s.id}`,
      `    file: ${JSON.stringify(resolve('test/fixtures/strategies', s.fixture))}`,
    );
    lines.push(`    params: ${s.params}`);
  }
  lines.push('backtest:', `  data: ${JSON.stringify(data)}`, 'log:', '  level: silent', '');
  writeFileSync(path, lines.join('\n'));
  return path;
}

describe('runBacktest', () => {
  it('replays every poll through the engine and records the run', async () => {
    const record = await runBacktest(await prepareBacktest({ configPath: CONFIG, env: {} }));
    expect(record.run).toEqual({
      strategies: [
        {
          id: 'sma',
          file: 'test/fixtures/strategies/sma-cross.ts',
          params: { fast: 5, slow: 20, size: '0.01' },
        },
      ],
      data: 'test/fixtures/recordings/wave-2sym-240s.ndjson',
      // The traded symbols only: the recording holds two.
      symbols: ['cmt_btcusdt'],
      firstTickTime: FIRST,
      lastTickTime: LAST,
      tickers: 240,
    });
    // What the report's metrics need: the starting balance, each symbol's tick, first and last price.
    expect(record.startingBalance?.toFixed()).toBe('10000');
    expect(record.tickSizes?.['cmt_btcusdt']?.toFixed()).toBe('0.1');
    expect(Object.keys(record.priceRanges ?? {}).sort()).toEqual(['cmt_btcusdt', 'cmt_ethusdt']);
    expect(record.orders.length).toBeGreaterThan(4);
    expect(record.fills.length).toBeGreaterThan(4);
    expect(record.orders.every((o) => o.clientOid.startsWith('cb-sma-'))).toBe(true);
    // Tickers are read through the budget, one request per poll; reconciliation polls too.
    expect(record.requestsByEndpoint).toMatchObject({ tickers: 240 });
    expect(record.requestsByEndpoint['fills']).toBeGreaterThan(0);
    expect(record.requestsByEndpoint['history']).toBeGreaterThan(0);
    expect(record.weightUsed.ip).toBeGreaterThan(240 * 40 - 1);
    expect(record.responses429).toBe(0);
    // Equity every 5 s of data (backtest.equitySampleMs), and once more after the run settled.
    const ts = record.equity.map((e) => e.t);
    expect(ts.slice(0, 3)).toEqual([FIRST, FIRST + 5_000, FIRST + 10_000]);
    expect(ts.length).toBe(48 + 1); // t = 0, 5, ..., 235 s, then the end
    expect(ts[ts.length - 1]).toBeGreaterThan(LAST);
    expect(Object.keys(record.prices).sort()).toEqual(['cmt_btcusdt', 'cmt_ethusdt']);
    expect(record.prices['cmt_btcusdt']!.length).toBe(ts.length);
    const last = record.equity[record.equity.length - 1]!;
    // Equity = starting balance (paper.startingBalance) + realized + unrealized − fees.
    const fees = record.fills.reduce((sum, f) => sum.plus(f.fee), dec(0));
    expect(last.equity.toFixed()).toBe(
      dec(10_000).plus(last.realized).plus(last.unrealized).minus(fees).toFixed(),
    );
  });

  it('is deterministic: the same inputs give the same report text', async () => {
    const a = buildReport(await runBacktest(await prepareBacktest({ configPath: CONFIG, env: {} })));
    const b = buildReport(await runBacktest(await prepareBacktest({ configPath: CONFIG, env: {} })));
    expect(b.json).toBe(a.json);
    expect(b.csv).toBe(a.csv);
  });

  it('keeps the equity curve bounded on long runs', async () => {
    const prepared = await prepareBacktest({ configPath: CONFIG, env: {} });
    const record = await runBacktest({ ...prepared, maxSamples: 8 });
    expect(record.equity.length).toBeLessThanOrEqual(9);
    expect(record.equity[0]!.t).toBe(FIRST);
  });

  it('records a strategy disabled mid-run, when and why, in the record and the summary', async () => {
    const config = tempConfig('failing.yaml', [
      { id: 'sma', fixture: 'sma-cross.ts', params: "{ fast: 5, slow: 20, size: '0.01' }" },
      { id: 'bad', fixture: 'fails-after.ts', params: '{ after: 30 }' },
    ]);
    const record = await runBacktest(await prepareBacktest({ configPath: config, env: {} }));
    // One poll a second: its 30th ticker is the 30th poll's.
    const at = FIRST + 29_000;
    expect(record.strategiesDisabled).toEqual([
      { strategy: 'bad', at, reason: expect.stringMatching(/fixture failure at tick 30/) as unknown },
    ]);
    const summary = summarize(record);
    expect(summary.strategiesDisabled).toEqual(record.strategiesDisabled);
    const row = summaryRows(summary).find(([label]) => label === 'Strategies disabled');
    expect(row?.[1]).toMatch(/^bad at 2024-06-01T00:00:29\.000Z: .*fixture failure at tick 30/);
    // The other strategy goes on trading after that.
    expect(record.orders.some((o) => o.strategy === 'sma' && o.createdAt > at)).toBe(true);
    // A run where nothing was disabled says so.
    const healthy = summarize(await runBacktest(await prepareBacktest({ configPath: CONFIG, env: {} })));
    expect(healthy.strategiesDisabled).toEqual([]);
    expect(summaryRows(healthy).find(([label]) => label === 'Strategies disabled')?.[1]).toBe('none');
  });

  it('refuses a strategy trading a symbol the recording does not hold, naming both', async () => {
    const config = tempConfig('sol.yaml', [
      { id: 'sol', fixture: 'sma-cross.ts', params: '{ symbol: cmt_solusdt }' },
    ]);
    const run = runBacktest(await prepareBacktest({ configPath: config, env: {} }));
    await expect(run).rejects.toThrow(ConfigError);
    await expect(runBacktest(await prepareBacktest({ configPath: config, env: {} }))).rejects.toThrow(
      /strategy "sol": trades cmt_solusdt, which the recording .*wave-2sym-240s\.ndjson does not hold \(it holds: cmt_btcusdt, cmt_ethusdt\)/,
    );
  });

  it('only warns when a recording that lists no symbols lacks one in its first poll', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capibot-bt-'));
    const lines = readFileSync(resolve('test/fixtures/recordings/wave-2sym-240s.ndjson'), 'utf8').split('\n');
    // No meta line, and the first poll without ETH.
    const first = JSON.parse(lines[1]!) as { t: number; tickers: { symbol: string }[] };
    first.tickers = first.tickers.filter((t) => t.symbol !== 'cmt_ethusdt');
    const data = join(dir, 'nometa.ndjson');
    writeFileSync(data, [JSON.stringify(first), ...lines.slice(2)].join('\n'));
    const config = tempConfig(
      'eth.yaml',
      [
        {
          id: 'eth',
          fixture: 'sma-cross.ts',
          params: "{ symbol: cmt_ethusdt, fast: 5, slow: 20, size: '0.01' }",
        },
      ],
      data,
    );
    const warnings: Record<string, unknown>[] = [];
    const log = pino(
      { level: 'warn' },
      { write: (l: string) => warnings.push(JSON.parse(l) as Record<string, unknown>) },
    );
    const record = await runBacktest({ ...(await prepareBacktest({ configPath: config, env: {} })), log });
    expect(record.orders.length).toBeGreaterThan(0);
    expect(warnings).toContainEqual(expect.objectContaining({ strategy: 'eth', symbols: ['cmt_ethusdt'] }));
  });

  it('refuses a recording without polls, and a config without a recording', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capibot-bt-'));
    writeFileSync(join(dir, 'empty.ndjson'), '{"meta":{}}\n');
    const prepared = await prepareBacktest({ configPath: CONFIG, data: join(dir, 'empty.ndjson'), env: {} });
    await expect(runBacktest(prepared)).rejects.toThrow(BadInputError);
    await expect(runBacktest(prepared)).rejects.toThrow(/holds no polls/);
    writeFileSync(
      join(dir, 'c.yaml'),
      'strategies:\n  - id: sma\n    file: test/fixtures/strategies/sma-cross.ts\n',
    );
    await expect(prepareBacktest({ configPath: join(dir, 'c.yaml'), env: {} })).rejects.toThrow(ConfigError);
  });
});
