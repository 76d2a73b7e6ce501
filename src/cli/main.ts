// The composition root's entry: parses the command line and dispatches to one command module.
// Each command lives in ./commands/<name>.ts and registers itself on the program; the registry
// (./commands/index.ts) imports only the module of the command that runs. The others are listed by
// their registry entry (name, term, summary) without being loaded.
import { Command, CommanderError, Help } from 'commander';
import { reportError, stdio } from './output.ts';
import { COMMANDS } from './commands/index.ts';

/**
 * The command the arguments name: the first operand (`capibot NAME …`), or the one after `help`
 * (`capibot help NAME`). The program's own options (-h, -V) take no value, so every argument before
 * the first operand is one of them.
 */
export function requestedCommand(args: readonly string[]): string | undefined {
  const operands = args.filter((a) => !a.startsWith('-'));
  return operands[0] === 'help' ? operands[1] : operands[0];
}

export async function main(argv: readonly string[]): Promise<number> {
  const program: Command = new Command('capibot')
    .description('Strategy runner for the WEEX contract API /capi/v2: live, paper and virtual-time dry runs')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
    });
  program.configureHelp({
    // A listed command that was not loaded has no options or arguments: its registry entry says them.
    subcommandTerm(this: Help, cmd: Command): string {
      const entry = cmd.parent === program ? COMMANDS.find((e) => e.name === cmd.name()) : undefined;
      return entry?.term ?? Help.prototype.subcommandTerm.call(this, cmd);
    },
  });
  let exitCode = 0;
  const ctx = {
    out: stdio,
    setExitCode: (c: number) => {
      exitCode = c;
    },
  };
  const wanted = requestedCommand(argv.slice(2));
  for (const entry of COMMANDS) {
    if (entry.name === wanted) (await entry.load())(program, ctx);
    else program.command(entry.name).summary(entry.summary);
  }
  program.commands.forEach((c) => c.exitOverride());
  try {
    await program.parseAsync(argv, { from: 'node' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version are successes; everything else commander rejects (including a command
      // group called without its subcommand, which shows the help as an error) is bad usage.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      return 2;
    }
    return reportError(err);
  }
}
