// `capibot validate --config FILE [--check-files]`: load and check a config exactly as `run` and
// `backtest` would, without starting anything: the fields, then every enabled strategy whose file
// exists (loaded, its params and symbols checked). Prints `ok: <summary>` (exit 0) or every problem,
// one line each, the first as the error (exit 2).
// The config loader and the strategy loader are imported when the command runs: its --help loads
// neither (test/cli/compiled.test.ts).
import type { RegisterCommand } from '../command.ts';
import { errorLine } from '../output.ts';
import { ConfigError } from '../../core/errors.ts';

interface ValidateOptions {
  readonly config: string;
  readonly checkFiles?: boolean;
}

export const registerValidate: RegisterCommand = (program, ctx) => {
  program
    .command('validate')
    .description(
      'Check a config file: YAML syntax, ${VAR} references, every field and cross-field rule, no inline secrets, ' +
        'and the params and symbols of every enabled strategy whose file exists (the file is loaded, as run does). ' +
        'Prints "ok: <summary>" or one line per problem (file:line:col path: message); exit 2 when invalid.',
    )
    .requiredOption('-c, --config <file>', 'config file (YAML) to check')
    .option('--check-files', 'also require the strategy files and recordings it names to exist', false)
    .action(async (opts: ValidateOptions) => {
      const [
        { loadConfiguredStrategies },
        { checkConfigFiles, configProblemLines, loadConfigDocument, summarizeConfig },
      ] = await Promise.all([import('../../runner/strategies.ts'), import('../../config/index.ts')]);
      try {
        const loaded = loadConfigDocument(opts.config, process.env);
        if (opts.checkFiles === true) checkConfigFiles(loaded, process.cwd());
        await loadConfiguredStrategies(loaded, {
          baseDir: process.cwd(),
          skipMissing: opts.checkFiles !== true,
          allowNone: true,
        });
        ctx.out.data(`ok: ${opts.config}: ${summarizeConfig(loaded.config, process.env)}`);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        // The first problem is the error line; every further one follows it, one line each.
        ctx.out.error(errorLine(e));
        for (const line of configProblemLines(e).slice(1)) ctx.out.error(`  also: ${line}`);
        ctx.setExitCode(e.exitCode);
      }
    });
};
