// End to end: `capibot backtest` on the bundled config (config/example.yaml, its ticker recording)
// and on config/month.yaml (a month of minute bars), each replayed from the NDJSON recording and
// from the same data as Parquet (data/*.parquet, made by `capibot convert`): the reports are the
// same byte for byte, but for the recording's name in report.json and report.html.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type Done } from '../ops/helpers.ts';


const CASES = [
  { config: 'config/example.yaml', data: 'data/binance-btc-eth-20240719-1s' },
  { config: 'config/month.yaml', data: 'data/ftx-btc-perp-202201-1m' },
] as const;

describe('capibot backtest from Parquet', () => {
  const tmp = tempDir('capibot-backtest-parquet-');
  const runs: Done[] = [];

  beforeAll(async () => {
    for (const c of CASES)
      for (const ext of ['.ndjson.gz', '.parquet'])
        runs.push(
          await runCli([
            'backtest',
            '--config',
            c.config,
            '--data',
            `${c.data}${ext}`,
            '--out',
            join(tmp, `${c.data}${ext}`),
          ]),
        );
  }, 240_000);

  it.each(CASES.map((c, i) => [c.config, c.data, i] as const))(
    '%s gives the same report from %s.ndjson.gz and .parquet',
    (_config, data, i) => {
      const ndjson = runs[2 * i] as Done;
      const parquet = runs[2 * i + 1] as Done;
      // stderr holds the timing line only (`backtest: N polls of … in … s`).
      expect(parquet.stderr).toMatch(/^backtest: \d+ polls of /);
      expect(ndjson.code).toBe(0);
      expect(parquet.code).toBe(0);
      const dir = (ext: string): string => join(tmp, `${data}${ext}`);
      for (const f of ['report.json', 'report.html', 'fills.csv', 'trades.csv']) {
        const a = readFileSync(join(dir('.ndjson.gz'), f), 'utf8');
        const b = readFileSync(join(dir('.parquet'), f), 'utf8').replaceAll(
          `${data}.parquet`,
          `${data}.ndjson.gz`,
        );
        expect(b === a, f).toBe(true);
      }
      const report = JSON.parse(readFileSync(join(dir('.parquet'), 'report.json'), 'utf8')) as {
        run: { data: string };
      };
      expect(report.run.data).toBe(`${data}.parquet`);
    },
  );
});
