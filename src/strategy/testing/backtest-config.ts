// A config file backtested exactly as `capibot backtest --config FILE` does it (same loading, same
// driver, same report summary), for tests that check a strategy together with its config.
import type { Env } from '../../config/interpolate.ts';
import { prepareBacktest } from '../../backtest/prepare.ts';
import { summarize, type RunRecord, type Summary } from '../../backtest/report/index.ts';
import { runBacktest } from '../../backtest/run-backtest.ts';

export interface ConfigBacktest {
  /** What the report is computed from: every order and fill, equity and price samples, requests. */
  readonly record: RunRecord;
  /** The `summary` of report.json. */
  readonly summary: Summary;
}

export interface BacktestConfigOptions {
  /** Overrides backtest.data (like --data). */
  readonly data?: string;
  /** Environment for `${VAR}` references in the file. Default: none (their defaults apply). */
  readonly env?: Env;
  /** Relative paths resolve against this directory. Default: the working directory. */
  readonly cwd?: string;
}

export async function backtestConfig(
  configPath: string,
  o: BacktestConfigOptions = {},
): Promise<ConfigBacktest> {
  const prepared = await prepareBacktest({
    configPath,
    env: o.env ?? {},
    ...(o.data !== undefined ? { data: o.data } : {}),
    ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
  });
  const record = await runBacktest({
    config: prepared.config,
    data: prepared.data,
    strategies: prepared.strategies,
    // A strategy's tests read every order of the run (the report alone needs only some).
    allOrders: true,
  });
  return { record, summary: summarize(record) };
}
