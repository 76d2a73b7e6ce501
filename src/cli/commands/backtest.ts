// `capibot backtest --config FILE | --strategy FILE [--data REC] [--out DIR] [--json]`: replays a
// recording through the engine in virtual time (src/backtest/run-backtest.ts), writes report.json,
// report.html and fills.csv, and prints the summary table (or the report with --json). --strategy
// runs one strategy file with default settings and no config file (the two flags are exclusive).
// A progress bar on stderr when it is a terminal; the elapsed wall time goes to stderr, never into
// the report.
// This file is the command's definition (its --help); ./backtest-run.ts runs it, imported only then
// (test/cli/compiled.test.ts).
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { LevelWithSilent } from 'pino';
import { DEFAULT_BACKTEST_DATA } from '../../backtest/default-data.ts';
import { DEFAULT_HEAP_MB } from '../../../scripts/heap-limit.js';
import { DEFAULT_INTERRUPT_BUDGET } from '../../../scripts/jit-tiering.js';
import { DEFAULT_MALLOC_ARENAS } from '../../../scripts/malloc-arenas.js';
import type { RegisterCommand } from '../command.ts';

export interface BacktestFlags {
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
  capibot backtest --config config/example.yaml --data data/ftx-btc-perp-202201-1m.ndjson.gz --out /tmp/bt --json

Memory:
  A backtest runs under a JavaScript heap cap of ${DEFAULT_HEAP_MB} MiB: its own data stays far below
  it, and the cap keeps V8 from letting garbage grow to four times what is alive.
  CAPIBOT_HEAP_MB=4096 sets another cap, CAPIBOT_HEAP_MB=0 keeps Node's default; a
  --max-old-space-size of your own (NODE_OPTIONS) is left as it is. The run's node also gets
  MALLOC_ARENA_MAX=${DEFAULT_MALLOC_ARENAS} (glibc): V8's compiler threads then reuse one another's freed memory
  instead of each keeping its own (a MALLOC_ARENA_MAX of your own is left as it is). Old orders
  and fills spill to a temporary file under TMPDIR.

Speed:
  The run's node gets a quarter of V8's tier-up budget (--interrupt-budget=${DEFAULT_INTERRUPT_BUDGET}),
  so the functions a backtest runs a few times an order are optimized again soon after a
  deoptimization. CAPIBOT_INTERRUPT_BUDGET sets another, 0 keeps V8's default; an
  --interrupt-budget of your own (NODE_OPTIONS) is left as it is.`,
    )
    .action(async function (this: Command, flags: BacktestFlags) {
      const { runBacktestCommand } = await import('./backtest-run.ts');
      await runBacktestCommand(this, flags, ctx);
    });
};
