// What a strategy's failure is called in a StrategyDisabled reason: which hook threw, what, and the
// line of the strategy's own code it came from (tsx maps the stack to the .ts source), e.g.
//   onTicker threw TypeError: Cannot read properties of undefined (reading 'price') (strategies/x.ts:23:41)
// HookFailure and HookMisuse never leave the host: they only carry the hook's name and the misuse to
// the reason.
import { fileURLToPath } from 'node:url';
import { isAbsolute, relative, sep } from 'node:path';
import { CapibotError } from '../core/errors.ts';

export type HookName = 'onTicker' | 'onOrderUpdate' | 'onFill' | 'onTimer' | 'run';

/** An error a strategy's hook threw (or its `run` stream emitted), with the hook's name. */
export class HookFailure extends Error {
  readonly hook: HookName;
  readonly thrown: unknown;
  constructor(hook: HookName, thrown: unknown) {
    super(`${hook} failed`);
    this.name = 'HookFailure';
    this.hook = hook;
    this.thrown = thrown;
  }
}

/** A hook used wrongly (it returned a Promise): said as `<hook> <message>`. */
export class HookMisuse extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookMisuse';
  }
}

/**
 * capibot's own folders: frames in them are the engine's, not the strategy's. Both src/ and its
 * compiled twin dist/ (whose frames source maps may point back at src/).
 */
const OWN_DIRS = ['../../src/', '../../dist/'].map((d) => fileURLToPath(new URL(d, import.meta.url)));

/**
 * `path:line:col` of a stack frame line (`at fn (PATH:L:C)` or `at PATH:L:C`; the path may hold
 * spaces and parentheses), without a file:// scheme or a loader's query string.
 */
function frameLocation(line: string): { file: string; at: string } | undefined {
  const t = line.trim();
  const m = /\((.+):(\d+):(\d+)\)$/.exec(t) ?? /^at (.+):(\d+):(\d+)$/.exec(t);
  if (m === null || m[1] === undefined) return undefined;
  let path = m[1];
  const query = path.indexOf('?');
  if (query !== -1) path = path.slice(0, query);
  let file = path;
  if (path.startsWith('file://')) {
    try {
      file = fileURLToPath(path);
    } catch {
      return undefined;
    }
  }
  return { file, at: `${m[2] ?? ''}:${m[3] ?? ''}` };
}

/**
 * The first frame of `e`'s stack in the strategy's own code (not in capibot's src/, node_modules or
 * Node itself), relative to the working directory when under it. Undefined when there is none.
 */
export function strategyOrigin(e: Error, cwd = process.cwd()): string | undefined {
  for (const line of (e.stack ?? '').split('\n').slice(1)) {
    const loc = frameLocation(line);
    if (loc === undefined || !isAbsolute(loc.file)) continue;
    if (OWN_DIRS.some((d) => loc.file.startsWith(d)) || loc.file.includes(`${sep}node_modules${sep}`))
      continue;
    const rel = relative(cwd, loc.file);
    return `${rel.startsWith('..') ? loc.file : rel}:${loc.at}`;
  }
  return undefined;
}

function what(thrown: unknown): string {
  if (!(thrown instanceof Error)) return `a non-Error value: ${String(thrown)}`;
  // Plain errors and capibot's own (their message names the strategy) go by their message.
  const named = thrown.name !== 'Error' && !(thrown instanceof CapibotError);
  return named ? `${thrown.name}: ${thrown.message}` : thrown.message;
}

/** The reason a strategy was disabled, in one line. */
export function describeFailure(e: unknown): string {
  if (!(e instanceof HookFailure)) return e instanceof Error ? e.message : `threw ${what(e)}`;
  if (e.thrown instanceof HookMisuse) return `${e.hook} ${e.thrown.message}`;
  const origin = e.thrown instanceof Error ? strategyOrigin(e.thrown) : undefined;
  const verb = e.hook === 'run' ? 'errored with' : 'threw';
  return `${e.hook} ${verb} ${what(e.thrown)}${origin !== undefined ? ` (${origin})` : ''}`;
}
