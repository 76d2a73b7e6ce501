// `capibot run --config FILE [--live] [--duration-s N]`: runs the configured strategies, in paper mode
// (against `capibot sim`, or the in-process simulator over live or recorded tickers) or live. The
// composition lives in src/runner/; this file parses the command line.
// The runner and the config loader are imported when the command runs: `capibot run --help` loads
// neither (test/cli/compiled.test.ts).
import { InvalidArgumentError } from 'commander';
import type { RegisterCommand } from '../command.ts';

interface RunFlags {
  readonly config: string;
  readonly live?: boolean;
  readonly durationS?: number;
}

function positiveSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0))
    throw new InvalidArgumentError('expected a positive number of seconds');
  return n;
}

export const registerRun: RegisterCommand = (program, ctx) => {
  program
    .command('run')
    .description(
      'Run the configured strategies: paper mode (capibot sim at exchange.baseUrl, or the in-process simulator) or live mode (needs --live)',
    )
    .requiredOption('--config <file>', 'config file (YAML); see `capibot config-schema`')
    .option('--live', 'confirm live trading with real money (the config must also say mode: live)')
    .option(
      '--duration-s <seconds>',
      'stop gracefully after this many seconds (default: run until SIGTERM/SIGINT)',
      positiveSeconds,
    )
    .addHelpText(
      'after',
      `
Before any strategy sees a ticker, every order the store still holds as open is reconciled with the
exchange (fills, order history), so a restart after a crash never duplicates or loses an order.
SIGTERM/SIGINT stop gracefully (stop strategies, optionally cancel open orders, drain within
shutdown.drainDeadlineMs, reconcile a last time); a second signal exits at once.
Exit codes: 0 stopped normally, 1 runtime failure, 2 bad usage or config.`,
    )
    .action(async (flags: RunFlags) => {
      const [{ loadConfigDocument }, { runTrading }] = await Promise.all([
        import('../../config/load.ts'),
        import('../../runner/runner.ts'),
      ]);
      const { config, where } = loadConfigDocument(flags.config, process.env);
      const result = await runTrading({
        config,
        where,
        env: process.env,
        live: flags.live === true,
        ...(flags.durationS !== undefined ? { durationMs: Math.round(flags.durationS * 1000) } : {}),
        say: (line) => ctx.out.info(line),
      });
      ctx.setExitCode(result.exitCode);
    });
};
