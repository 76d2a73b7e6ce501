// `capibot sweep`, run: the grid's backtests on threads here or on a queue's workers, ranked and
// written; the ranking printed. The options: ./sweep.ts.
import { readFile } from 'node:fs/promises';
import { defaultWorkers } from '../../backtest/sweep/pool.ts';
import { isSweepMetric, SWEEP_METRICS, type SweepMetric } from '../../backtest/sweep/rank.ts';
import { describeParams, runSweep, type SweepResult } from '../../backtest/sweep/run-sweep.ts';
import { BadInputError } from '../../core/errors.ts';
import type { SweepDispatch } from '../../backtest/sweep/dispatch.ts';
import { safeUrl } from '../../backtest/sweep/queue/safe-url.ts';
import { createRootLogger } from '../../obs/logger.ts';
import type { CliContext } from '../command.ts';
import type { SweepFlags } from './sweep.ts';

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

export async function runSweepCommand(flags: SweepFlags, ctx: CliContext): Promise<void> {
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
}
