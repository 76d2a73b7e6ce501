// The command registry lists each command without loading it: its entry's term must be what the
// loaded command shows, and `requestedCommand` must pick the one command a command line runs.
import { Command, Help } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/command.ts';
import { COMMANDS } from '../../src/cli/commands/index.ts';
import { requestedCommand } from '../../src/cli/main.ts';

const ctx: CliContext = {
  out: { data: () => undefined, json: () => undefined, info: () => undefined, error: () => undefined },
  setExitCode: () => undefined,
};

describe('the command registry', () => {
  it.each(COMMANDS.map((e) => [e.name, e] as const))(
    '%s: the entry names and lists the loaded command',
    async (_, entry) => {
      const program = new Command('capibot');
      (await entry.load())(program, ctx);
      const [cmd] = program.commands;
      expect(program.commands).toHaveLength(1);
      expect(cmd?.name()).toBe(entry.name);
      expect(entry.term).toBe(new Help().subcommandTerm(cmd as Command));
      expect(entry.summary.length).toBeLessThan(110);
    },
  );

  it('finds the command a command line runs, after the program options and after `help`', () => {
    expect(requestedCommand(['backtest', '--config', 'x.yaml'])).toBe('backtest');
    expect(requestedCommand(['--help'])).toBeUndefined();
    expect(requestedCommand([])).toBeUndefined();
    expect(requestedCommand(['help', 'sweep'])).toBe('sweep');
    expect(requestedCommand(['-h', 'validate'])).toBe('validate');
    expect(requestedCommand(['api', 'tickers'])).toBe('api');
  });
});
