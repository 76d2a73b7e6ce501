// The CLI's output code: the only place that writes to the terminal directly. Data goes to stdout
// (JSON with --json), human errors go to stderr as one line.
import { isCapibotError } from '../core/errors.ts';

export interface CliOutput {
  /** Writes a line of data to stdout. */
  data(text: string): void;
  /** Writes a JSON value to stdout (pretty, ids stay strings). */
  json(value: unknown): void;
  /** Writes a human line to stderr. */
  info(text: string): void;
  error(text: string): void;
}

export const stdio: CliOutput = {
  data: (text) => console.log(text),
  json: (value) => console.log(JSON.stringify(value, null, 2)),
  info: (text) => console.error(text),
  error: (text) => console.error(text),
};

/** Exit code convention (ARCHITECTURE.md): 0 ok, 1 runtime failure, 2 bad usage or config. */
export function exitCodeFor(err: unknown): 1 | 2 {
  return isCapibotError(err) ? err.exitCode : 1;
}

/** One human line for an error: code and message, never a stack (set CAPIBOT_DEBUG=1 for one). */
export function errorLine(err: unknown): string {
  if (isCapibotError(err)) return `capibot: error [${err.code}] ${err.message}`;
  if (err instanceof Error) return `capibot: error ${err.message}`;
  return `capibot: error ${String(err)}`;
}

export function reportError(err: unknown, out: CliOutput = stdio): number {
  out.error(errorLine(err));
  if (process.env['CAPIBOT_DEBUG'] && err instanceof Error && err.stack) out.error(err.stack);
  return exitCodeFor(err);
}
