// The composition root's entry: parses the command line and dispatches to one command module.
// Each command lives in ./commands/<name>.ts and registers itself on the program.
import { Command, CommanderError } from 'commander';
import { reportError, stdio } from './output.ts';
import { COMMANDS } from './commands/index.ts';

export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command('capibot')
    .description('Strategy runner for the WEEX contract API /capi/v2: live, paper and virtual-time dry runs')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
    });
  let exitCode = 0;
  for (const register of COMMANDS) {
    register(program, {
      out: stdio,
      setExitCode: (c) => {
        exitCode = c;
      },
    });
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
