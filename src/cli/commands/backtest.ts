// `capibot backtest --config FILE | --strategy FILE [--data REC] [--out DIR] [--json]`: replays a
// recording through the engine in virtual time (src/backtest/run-backtest.ts), writes report.json,
// report.html and fills.csv, and prints the summary table (or the report with --json). --strategy
// runs one strategy file with default settings and no config file (the two flags are exclusive).
// A progress bar on stderr when it is a terminal; the elapsed wall time goes to stderr, never into
// the report.
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { resolveConsoleTokens } from '../../console/auth.ts';
import { serveBacktest, untilStopped } from '../../console/serve-backtest.ts';
import type { LevelWithSilent } from 'pino';
import { DEFAULT_BACKTEST_DATA, prepareBacktest, prepareStrategyBacktest } from '../../backtest/prepare.ts';
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
import type { RegisterCommand } from '../command.ts';

interface BacktestFlags {
  readonly config?: string;
  readonly strategy?: string;
  readonly data?: string;
  readonly out?: string;
  readonly json?: boolean;
  readonly serve?: boolean;
  readonly servePort?: number;
  readonly logLevel: LevelWithSilent;
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d{1,5}$/.test(value) || n > 65535)
    throw new InvalidArgumentError('expected a port number (0-65535)');
  return n;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);
}

export const registerBacktest: RegisterCommand = (program, ctx) => {
  program
    .command('backtest')
    .description(
      'Replay a recording through the same engine as `run` (strategies, risk gate, executor with its weight budget, ' +
        'reconciliation polling) against the in-process paper exchange, in virtual time: nothing sleeps, and the same ' +
        'inputs give a byte-identical report.json. Writes report.json, report.html and fills.csv; prints the summary.',
    )
    .option('-c, --config <file>', 'config file (YAML): strategies, risk, paper exchange, polling, budget')
    .addOption(
      new Option(
        '-s, --strategy <file>',
        'instead of --config: run this strategy file alone (default params), every other setting at its ' +
          'default (`capibot config-schema`); refused together with --config (name the file in the ' +
          "config's strategies to use its settings)",
      ).conflicts('config'),
    )
    .option(
      '--data <file>',
      'recording to replay (.ndjson, .ndjson.gz or .parquet) (default: backtest.data, else paper.data; with ' +
        `--strategy: ${DEFAULT_BACKTEST_DATA}, the bundled sample)`,
    )
    .option(
      '--out <dir>',
      'output folder (default: reports/<UTC timestamp>/, and reports/latest then points at it)',
    )
    .option('--json', 'print the report (the content of report.json) instead of the summary table')
    .option(
      '--serve',
      'then show the finished run in the web console (the page `capibot run` serves, read-only) at console.host:console.port until Ctrl-C; tokens as for `run` (docs/console.md)',
    )
    .option(
      '--serve-port <port>',
      'with --serve: this port instead of console.port (0 = any free port)',
      portNumber,
    )
    .addOption(
      new Option('--log-level <level>', 'log level of the engine and strategies on stderr')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('warn'),
    )
    .addHelpText(
      'after',
      `
Example:
  capibot backtest --config config/example.yaml
  capibot backtest --strategy strategies/ema-cross.ts
  capibot backtest --config config/example.yaml --data data/ftx-btc-perp-202201-1m.ndjson.gz --out /tmp/bt --json`,
    )
    .action(async function (this: Command, flags: BacktestFlags) {
      const started = Date.now();
      const data = flags.data !== undefined ? { data: flags.data } : {};
      let prepared;
      if (flags.strategy !== undefined)
        prepared = await prepareStrategyBacktest({ strategyFile: flags.strategy, ...data, env: process.env });
      else if (flags.config !== undefined)
        prepared = await prepareBacktest({ configPath: flags.config, ...data, env: process.env });
      else this.error("error: one of '-c, --config <file>' or '-s, --strategy <file>' is required");
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
        const server = await serveBacktest({
          record: run,
          console: flags.servePort !== undefined ? { ...settings, port: flags.servePort } : settings,
          env: process.env,
          ...(serveTokens !== undefined ? { tokens: serveTokens } : {}),
          say: (line) => ctx.out.info(line),
        });
        await untilStopped();
        await server.close();
      }
    });
};
