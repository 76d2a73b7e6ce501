// `capibot kill --config FILE [--yes]`: the kill switch. Trading goes HALTED (persisted in the store:
// a later `capibot run` starts HALTED) and every open order is canceled — through the running process
// when a runner holds the store, or directly (this process takes the store and talks to the venue)
// when none does. `--reset` is the way back: ACTIVE again, with the runner stopped.
// This file is the command's definition (its --help); ./kill-run.ts acts, imported only then
// (test/cli/compiled.test.ts).
import { InvalidArgumentError } from 'commander';
import type { RegisterCommand } from '../command.ts';

export interface KillFlags {
  readonly config: string;
  readonly yes?: boolean;
  readonly timeoutS: number;
  readonly reason: string;
  readonly json?: boolean;
  readonly reset?: boolean;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0) || n > 3600)
    throw new InvalidArgumentError('expected a number of seconds in (0, 3600]');
  return n;
}

export const registerKill: RegisterCommand = (program, ctx) => {
  program
    .command('kill')
    .description(
      'Kill switch: set trading HALTED (persisted: a later `capibot run` starts HALTED, only cancels pass) and ' +
        'cancel every open order. When a runner holds the store the request goes through it (store + SIGUSR2) ' +
        'and kill waits for its confirmation; otherwise kill takes the store and cancels at the venue itself ' +
        '(live: credentials from the environment; no --live needed to cancel). Exit 0 when HALTED and no ' +
        'order is left open, 1 otherwise.',
    )
    .requiredOption('-c, --config <file>', 'config file (YAML) of the run to stop')
    .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)', false)
    .option('--timeout-s <seconds>', 'how long to wait for the cancels to be confirmed', seconds, 30)
    .option('--reason <text>', 'reason recorded in the logs and the store', 'capibot kill')
    .option('--json', 'print the result as JSON', false)
    .option(
      '--reset',
      'instead of killing: set trading back to ACTIVE (the runner must be stopped; the next run trades again)',
      false,
    )
    .action(async (flags: KillFlags) => {
      const { runKill } = await import('./kill-run.ts');
      await runKill(flags, ctx);
    });
};
