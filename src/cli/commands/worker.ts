// `capibot worker --queue redis://HOST:PORT [--concurrency N]`: runs the points of distributed sweeps
// (`capibot sweep --queue …`) from a BullMQ queue on this machine (src/backtest/sweep/queue/serve.ts),
// one line per point on stderr, until SIGTERM/SIGINT: the first one stops taking points and lets
// the running ones finish, a second one abandons them (another worker runs them again).
// This file is the command's definition (its --help); ./worker-run.ts serves, imported only then
// (test/cli/compiled.test.ts).
import { availableParallelism } from 'node:os';
import { InvalidArgumentError, Option } from 'commander';
import type { LevelWithSilent } from 'pino';
import type { RegisterCommand } from '../command.ts';

export interface WorkerFlags {
  readonly queue: string;
  readonly concurrency: number;
  readonly lockMs: number;
  readonly stalledMs: number;
  readonly maxStalled: number;
  readonly logLevel: LevelWithSilent;
}

/** CPU count − 1 (the machine keeps one core), at least 1. */
export function defaultConcurrency(): number {
  return Math.max(1, availableParallelism() - 1);
}

function intFlag(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d{1,9}$/.test(value) || n < min || n > max)
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    return n;
  };
}

export const registerWorker: RegisterCommand = (program, ctx) => {
  program
    .command('worker')
    .description(
      'Run the points of distributed sweeps (`capibot sweep --queue URL`) taken from a Redis queue, ' +
        'each as its own backtest in a worker thread, until SIGTERM. Needs the project, the recording ' +
        'and the strategy files the sweep names at the same paths (relative to the working directory); ' +
        "a point whose recording or strategy file differs from the submitter's (SHA-256) is refused " +
        'and fails with the reason.',
    )
    .requiredOption('--queue <url>', 'the Redis of the sweeps: redis://[user:password@]HOST:PORT[/db]')
    .option(
      '--concurrency <n>',
      `points run at once, one thread each (default: CPU count − 1, at least 1; here ${defaultConcurrency()})`,
      intFlag(1, 1024),
      defaultConcurrency(),
    )
    .option(
      '--lock-ms <ms>',
      "a point's lock; when its worker dies, the point is run again elsewhere after about this long",
      intFlag(100, 3_600_000),
      30_000,
    )
    .option(
      '--stalled-ms <ms>',
      'how often to look for the points of dead workers',
      intFlag(100, 3_600_000),
      15_000,
    )
    .option(
      '--max-stalled <n>',
      'how many times a point may lose its worker before it fails',
      intFlag(1, 100),
      2,
    )
    .addOption(
      new Option('--log-level <level>', 'level of the logs on stderr (JSON lines, pretty on a terminal)')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('warn'),
    )
    .addHelpText(
      'after',
      `
Example (two machines with a checkout of the project and its data):
  redis host$  redis-server --bind 10.0.0.5 --requirepass "$REDIS_PASSWORD"
  machine A$   capibot worker --queue redis://:$REDIS_PASSWORD@10.0.0.5:6379
  machine B$   capibot worker --queue redis://:$REDIS_PASSWORD@10.0.0.5:6379 --concurrency 8
  laptop$      capibot sweep --config config/month.yaml --grid sweep.yaml \\
                 --queue redis://:$REDIS_PASSWORD@10.0.0.5:6379

Anyone who can write to that Redis can make the workers run backtests: keep it on a private network,
with a password. Setup, monitoring and Redis restarts: docs/operations.md#distributed-sweeps.`,
    )
    .action(async (flags: WorkerFlags) => {
      const { serveWorker } = await import('./worker-run.ts');
      await serveWorker(flags, ctx);
    });
};
