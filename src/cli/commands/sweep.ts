// `capibot sweep --config FILE --grid FILE [--workers N] [--metric netPnl] [--out DIR]`: a parameter
// grid run as backtests in worker threads, ranked by a summary metric, written to sweep.json,
// sweep.csv and sweep.html (src/backtest/sweep/). Prints the ranking (or sweep.json with --json); progress and the
// elapsed wall time go to stderr.
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, Option } from 'commander';
import { defaultWorkers } from '../../backtest/sweep/pool.ts';
import { isSweepMetric, SWEEP_METRICS, type SortOrder, type SweepMetric } from '../../backtest/sweep/rank.ts';
import { describeParams, runSweep, type SweepResult } from '../../backtest/sweep/run-sweep.ts';
import { BadInputError } from '../../core/errors.ts';
import type { SweepDispatch } from '../../backtest/sweep/dispatch.ts';
import { safeUrl } from '../../backtest/sweep/queue/safe-url.ts';
import { createRootLogger } from '../../obs/logger.ts';
import type { CliContext, RegisterCommand } from '../command.ts';

interface SweepFlags {
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

/** The best rows as aligned text: rank, metric, params. */
function ranking(result: SweepResult, top: number): string {
  const rows = result.rows.slice(0, top);
  const value = (m: string | number | null): string => (m === null ? 'n/a' : String(m));
  const cells = rows.map((r) => [
    r.rank === null ? '-' : String(r.rank),
    r.metrics === null ? 'failed' : value(r.metrics[result.metric]),
    r.metrics === null ? '' : value(r.metrics.fills),
    `${describeParams(r.params)}${r.error !== undefined ? `  (${r.error})` : ''}`,
  ]);
  const head = ['rank', result.metric, 'fills', 'params'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]): string =>
    c.map((x, i) => (i === c.length - 1 ? x : x.padEnd(widths[i] ?? 0))).join('  ');
  const more = result.rows.length > top ? `\n(${result.rows.length - top} more rows in sweep.csv)` : '';
  return [line(head), ...cells.map(line)].join('\n') + more;
}

/** The queue's dispatcher, loaded only with --queue (a local sweep never loads BullMQ). */
async function queueDispatchFor(url: string, ctx: CliContext): Promise<SweepDispatch> {
  const { queueConnection } = await import('../../backtest/sweep/queue/connection.ts');
  const { queueDispatch } = await import('../../backtest/sweep/queue/submit.ts');
  const connection = queueConnection(url);
  const { logger } = createRootLogger({ level: 'warn', base: { app: 'capibot-sweep' } });
  return queueDispatch({ connection, log: logger, notice: (text) => ctx.out.info(text) });
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
      const started = Date.now();
      if (!isSweepMetric(flags.metric))
        throw new BadInputError(
          `unknown metric "${flags.metric}"; one of ${SWEEP_METRICS.join(', ')}`,
          '--metric',
        );
      const metric: SweepMetric = flags.metric;
      if (flags.queue !== undefined && flags.workers !== undefined)
        throw new BadInputError(
          "--workers sets this machine's threads; with --queue, each worker's --concurrency does",
          '--workers',
        );
      const workers = flags.workers ?? defaultWorkers();
      const dispatch = flags.queue !== undefined ? await queueDispatchFor(flags.queue, ctx) : undefined;
      const written = await runSweep({
        configPath: flags.config,
        gridPath: flags.grid,
        ...(flags.data !== undefined ? { data: flags.data } : {}),
        ...(flags.out !== undefined ? { out: flags.out } : {}),
        workers,
        ...(dispatch !== undefined ? { dispatch } : {}),
        metric,
        ...(flags.order !== undefined ? { order: flags.order } : {}),
        env: process.env,
        onProgress: (done, total, r) =>
          ctx.out.info(
            `sweep: ${done}/${total} done (row ${r.index}${r.kind === 'failed' ? `, failed: ${r.message}` : ''})`,
          ),
      });
      const { result } = written;
      if (flags.json === true) ctx.out.data((await readFile(written.files.json, 'utf8')).trimEnd());
      else ctx.out.data(ranking(result, flags.top));
      const failed = result.rows.filter((r) => r.metrics === null).length;
      // The pool starts no more workers than there are runs.
      const used = Math.min(workers, result.combinations);
      const where =
        flags.queue !== undefined
          ? `the queue at ${safeUrl(flags.queue)}`
          : `${used} worker${used === 1 ? '' : 's'}`;
      // Runs that finished with a strategy disabled: kept with their figures, but not ranked.
      const disabled = result.rows.filter((r) => r.metrics !== null && r.rank === null).length;
      ctx.out.info(
        `sweep: ${result.combinations} run${result.combinations === 1 ? '' : 's'} on ${where} in ` +
          `${((Date.now() - started) / 1000).toFixed(1)} s${failed > 0 ? `, ${failed} failed` : ''}` +
          `${disabled > 0 ? `, ${disabled} not ranked (a strategy was disabled)` : ''}; ` +
          `${written.files.html}, ${written.files.csv}, ${written.files.json}`,
      );
      if (failed + disabled === result.combinations) ctx.setExitCode(1);
    });
};
