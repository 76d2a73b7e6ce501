// `capibot sweep --config FILE --grid FILE [--workers N] [--metric netPnl] [--out DIR]`: a parameter
// grid run as backtests in worker threads, ranked by a summary metric, written to sweep.json,
// sweep.csv and sweep.html (src/backtest/sweep/). Prints the ranking (or sweep.json with --json); progress and the
// elapsed wall time go to stderr.
// This file is the command's definition (its --help); ./sweep-run.ts runs the grid, imported only
// then (test/cli/compiled.test.ts).
import { InvalidArgumentError, Option } from 'commander';
import { defaultWorkers } from '../../backtest/sweep/pool.ts';
import { SWEEP_METRICS, type SortOrder } from '../../backtest/sweep/rank.ts';
import type { RegisterCommand } from '../command.ts';

export interface SweepFlags {
  readonly config: string;
  readonly grid: string;
  readonly data?: string;
  readonly workers?: number;
  readonly metric: string;
  readonly order?: SortOrder;
  readonly out?: string;
  readonly json?: boolean;
  readonly top: number;
  readonly queue?: string;
}

function positiveInt(value: string): number {
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('expected a positive integer');
  return Number(value);
}

export const registerSweep: RegisterCommand = (program, ctx) => {
  program
    .command('sweep')
    .description(
      'Run a parameter grid as backtests in worker threads and rank the runs by a summary metric. ' +
        'Writes sweep.json and sweep.csv, and one config file per run: each row names the exact ' +
        '`capibot backtest` command that reproduces it on its own.',
    )
    .requiredOption('-c, --config <file>', 'config file (YAML) the runs start from')
    .requiredOption(
      '-g, --grid <file>',
      'grid (YAML): `strategy: <id>` (optional with one strategy) and `params: { name: [values...] }`',
    )
    .option('--data <file>', 'recording every run replays (default: backtest.data, else paper.data)')
    .option(
      '--workers <n>',
      `worker threads (default: the number of cores, here ${defaultWorkers()})`,
      positiveInt,
    )
    .option(
      '--queue <url>',
      'run the points on `capibot worker`s through this Redis (redis://HOST:PORT) instead of threads here',
    )
    .option('--metric <name>', `summary metric ranking the runs: ${SWEEP_METRICS.join(', ')}`, 'netPnl')
    .addOption(
      new Option(
        '--order <order>',
        'ranking order (default: desc; asc for feesPaid, maxDrawdown, maxDrawdownFraction, ordersRejected, responses429)',
      ).choices(['asc', 'desc']),
    )
    .option('--out <dir>', 'output folder (default: reports/<UTC timestamp>-sweep/)')
    .option('--top <n>', 'rows printed', positiveInt, 20)
    .option('--json', 'print sweep.json instead of the ranking')
    .addHelpText(
      'after',
      `
Grid example (sweep.yaml):
  strategy: ema
  params:
    fastPeriod: [4, 6, 8]
    slowPeriod: [12, 24]

Distributed (docs/operations.md#distributed-sweeps): with --queue redis://HOST:PORT each point is a
job on a BullMQ queue, run by \`capibot worker --queue redis://HOST:PORT\` on any machine that has the
project, the recording and the strategy files (checked by content hash). The rows are the same as a
local sweep's.`,
    )
    .action(async (flags: SweepFlags) => {
      const { runSweepCommand } = await import('./sweep-run.ts');
      await runSweepCommand(flags, ctx);
    });
};
