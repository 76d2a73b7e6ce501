// `capibot backtest`, run: prepare the config (or the lone strategy), replay, write the report, print
// the summary, and with --serve show the run in the web console. The options: ./backtest.ts.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { resolveConsoleTokens } from '../../console/auth.ts';
import { serveBacktest } from '../../console/serve-backtest.ts';
import { prepareBacktest, prepareStrategyBacktest } from '../../backtest/prepare.ts';
import { createProgress } from '../../backtest/progress.ts';
import { countPolls } from '../../backtest/count-polls.ts';
import {
  createRunFolder,
  pointLatest,
  prepareOutputFolder,
  REPORTS_ROOT,
} from '../../backtest/output-dir.ts';
import {
  disabledText,
  renderSummaryText,
  writeReport,
  type RunRecord,
  type SpooledRun,
} from '../../backtest/report/index.ts';
import { runBacktest, runSpooledBacktest } from '../../backtest/run-backtest.ts';
import { InvariantViolation } from '../../core/errors.ts';
import { createRootLogger } from '../../obs/logger.ts';
import { untilStopped } from '../../runner/signals.ts';
import type { CliContext } from '../command.ts';
import type { BacktestFlags } from './backtest.ts';

function seconds(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);
}

export async function runBacktestCommand(cmd: Command, flags: BacktestFlags, ctx: CliContext): Promise<void> {
  const started = Date.now();
  const data = flags.data !== undefined ? { data: flags.data } : {};
  let prepared;
  if (flags.strategy !== undefined)
    prepared = await prepareStrategyBacktest({ strategyFile: flags.strategy, ...data, env: process.env });
  else if (flags.config !== undefined)
    prepared = await prepareBacktest({ configPath: flags.config, ...data, env: process.env });
  else cmd.error("error: one of '-c, --config <file>' or '-s, --strategy <file>' is required");
  // --serve on an address the token rules refuse is said before the run, not after it.
  const serveTokens =
    flags.serve === true ? resolveConsoleTokens(prepared.config.console, process.env) : undefined;
  // After the config and strategies are checked (a bad one leaves no folder), before the run.
  if (flags.out !== undefined) await prepareOutputFolder(flags.out);
  const root = createRootLogger({ level: flags.logLevel, base: { app: 'capibot-backtest' } });
  const showProgress = process.stderr.isTTY === true;
  const total = showProgress ? await countPolls(prepared.data) : undefined;
  const progress = createProgress({
    now: () => Date.now(),
    label: 'backtest',
    ...(total !== undefined ? { total } : {}),
  });
  // The console serves the run from memory; otherwise the report streams from a spool, so a
  // long run's fills and orders are never all in memory (issue #24).
  let run: RunRecord | SpooledRun;
  try {
    const options = { ...prepared, log: root.logger, onProgress: (n: number) => progress.update(n) };
    run = flags.serve === true ? await runBacktest(options) : await runSpooledBacktest(options);
  } finally {
    progress.stop();
    root.flush();
  }
  let written;
  try {
    const dir = flags.out ?? (await createRunFolder(REPORTS_ROOT, new Date()));
    written = await writeReport(dir, run);
    if (flags.out === undefined) await pointLatest(dir);
  } finally {
    if ('rows' in run) run.rows.close();
  }
  const tickers = 'rows' in run ? run.facts.run.tickers : run.run.tickers;

  if (flags.json === true) ctx.out.data((await readFile(written.files.json, 'utf8')).trimEnd());
  else ctx.out.data(renderSummaryText(written.summary).trimEnd());
  const disabled = written.summary.strategiesDisabled;
  if (disabled.length > 0)
    ctx.out.info(
      `backtest: warning: ${disabled.length} strategy instance${disabled.length === 1 ? ' was' : 's were'} ` +
        `disabled during the run, and made no decision after that: ${disabledText(disabled)}`,
    );
  const elapsed = Date.now() - started;
  const rate = elapsed > 0 ? Math.round((tickers * 1000) / elapsed) : tickers;
  ctx.out.info(
    `backtest: ${tickers} polls of ${prepared.data} in ${seconds(elapsed)} s (${rate} polls/s); ` +
      `report: ${written.files.html}`,
  );
  if (flags.serve === true) {
    const settings = prepared.config.console;
    if ('rows' in run) throw new InvariantViolation('backtest --serve: the run was spooled');
    // Listening before the console's address is printed: a Ctrl-C the moment it shows (a test sends
    // one as soon as it reads the line) met no listener yet, and Node's default ended the command
    // by the signal instead of closing the console and exiting 0.
    const stopped = untilStopped();
    const server = await serveBacktest({
      record: run,
      console: flags.servePort !== undefined ? { ...settings, port: flags.servePort } : settings,
      env: process.env,
      ...(serveTokens !== undefined ? { tokens: serveTokens } : {}),
      say: (line) => ctx.out.info(line),
    });
    await stopped;
    await server.close();
  }
}
