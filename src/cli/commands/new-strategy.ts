// `capibot new-strategy NAME [--dir strategies]`: scaffolds a strategy plugin and its test from the
// template (strategies/templates/starter.ts and its test). The files compile, the test passes and the
// strategy runs in a backtest as they are. Existing files are never overwritten.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RegisterCommand } from '../command.ts';
import { BadInputError } from '../../core/errors.ts';

/** kebab-case: lower-case letters and digits in dash-separated words, starting with a letter. */
export const STRATEGY_NAME_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const MAX_NAME = 40;
/** Names that would clash with the folders and files next to the strategies. */
const RESERVED = new Set(['index', 'lib', 'schemas', 'templates']);

/** capibot's own checkout (the templates and src/strategy live there). */
const CAPIBOT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const TEMPLATE_DIR = join(CAPIBOT_ROOT, 'strategies', 'templates');
const TEMPLATE_NAME = 'starter';
/** How the template files import capibot (they sit two levels below the root). */
const TEMPLATE_IMPORT = "'../../src/strategy/";

export interface ScaffoldResult {
  readonly strategyFile: string;
  readonly testFile: string;
  /** A strategy id derived from the name, for the config (`[A-Za-z0-9_]{1,16}`). */
  readonly suggestedId: string;
}

export function checkStrategyName(name: string): void {
  if (name.length > MAX_NAME || !STRATEGY_NAME_PATTERN.test(name)) {
    throw new BadInputError(
      `expected a kebab-case name of at most ${MAX_NAME} characters (lower-case letters, digits, dashes; starting with a letter), got ${JSON.stringify(name)}`,
      'NAME',
    );
  }
  if (RESERVED.has(name)) throw new BadInputError(`"${name}" is reserved; choose another name`, 'NAME');
}

/** The template's text for NAME in `dir`: its name replaced, its capibot imports re-pointed. */
function render(template: string, name: string, dir: string): string {
  let rel = relative(dir, join(CAPIBOT_ROOT, 'src', 'strategy'))
    .split(sep)
    .join('/');
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return template
    .replaceAll(TEMPLATE_IMPORT, `'${rel}/`)
    .replace(new RegExp(`\\b${TEMPLATE_NAME}\\b`, 'g'), name);
}

/** Writes `<dir>/<name>.ts` and `<dir>/<name>.test.ts`; refuses when either exists. */
export function scaffoldStrategy(name: string, dir: string): ScaffoldResult {
  checkStrategyName(name);
  const target = resolve(dir);
  const strategyFile = join(target, `${name}.ts`);
  const testFile = join(target, `${name}.test.ts`);
  for (const f of [strategyFile, testFile]) {
    if (existsSync(f))
      throw new BadInputError(
        'already exists; new-strategy never overwrites a file (choose another NAME or --dir)',
        f,
      );
  }
  const source = readFileSync(join(TEMPLATE_DIR, `${TEMPLATE_NAME}.ts`), 'utf8');
  const test = readFileSync(join(TEMPLATE_DIR, `${TEMPLATE_NAME}.test.ts`), 'utf8');
  mkdirSync(target, { recursive: true });
  // `wx`: fail rather than overwrite, even if a file appeared since the check above.
  writeFileSync(strategyFile, render(source, name, target), { flag: 'wx' });
  writeFileSync(testFile, render(test, name, target), { flag: 'wx' });
  return { strategyFile, testFile, suggestedId: name.replaceAll('-', '_').slice(0, 16) };
}

interface NewStrategyOptions {
  readonly dir: string;
}

export const registerNewStrategy: RegisterCommand = (program, ctx) => {
  program
    .command('new-strategy')
    .description(
      'Scaffold a strategy plugin and its test from the template: writes DIR/NAME.ts and DIR/NAME.test.ts ' +
        '(never overwrites). The new strategy compiles, passes its test and runs in a backtest as it is.',
    )
    .argument('<NAME>', 'kebab-case strategy name, e.g. "breakout" or "funding-skew" (also the file name)')
    .option('-d, --dir <dir>', 'folder to write the files to', 'strategies')
    .action((name: string, opts: NewStrategyOptions) => {
      const r = scaffoldStrategy(name, opts.dir);
      const show = (f: string): string => relative(process.cwd(), f) || f;
      ctx.out.data(`created ${show(r.strategyFile)}`);
      ctx.out.data(`created ${show(r.testFile)}`);
      ctx.out.info('next:');
      ctx.out.info(
        `  npx vitest run ${show(r.testFile)}     # its test, through the real engine in virtual time`,
      );
      // vitest.config.ts (and `npm test`) only look under test/ and strategies/.
      const rel = relative(process.cwd(), r.testFile).split(sep).join('/');
      if (!/^(test|strategies)\//.test(rel))
        ctx.out.info(
          '  (this folder is outside the test folders of vitest.config.ts (test/, strategies/): add it to ' +
            "`include` there, or that command finds no test; `npm test` and `tsc -p .` do not check it either)",
        );
      ctx.out.info(
        `  npx capibot backtest --strategy ${show(r.strategyFile)}     # a report on the bundled sample, default settings`,
      );
      ctx.out.info(
        `  add to a config:  strategies: [{ id: ${r.suggestedId}, file: ${show(r.strategyFile)} }]`,
      );
      ctx.out.info('  npx capibot backtest --config <that config>     # with its risk, paper and data settings');
    });
};
