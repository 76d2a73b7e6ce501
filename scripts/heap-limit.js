// The heap cap of a backtest. A backtest's live heap is bounded by design (the store retires old rows
// to a spill file, the simulator forgets what no query can reach: a few tens of MiB however long the
// run), but V8 sizes its old generation from the heap limit, not from what is live: under Node's
// default limit (a quarter of the machine's memory, up to 4 GiB) it lets the old generation grow to
// about four times the live data before collecting it, so a longer or order-heavier run peaked
// higher for garbage alone. Below about 2 GiB V8 grows the heap by 1.3 to 2 times instead. With a cap
// of 1 GiB a month of 32 strategies peaked at 239 MB instead of 316, and the 4× month at 199 MB
// instead of 250, for the same CPU (BENCHMARKS.md, "A heap cap for backtests").
//
// `capibot backtest` runs itself again with the cap (bin/capibot.js) unless a heap size was chosen
// already (a node flag, or NODE_OPTIONS) or a debugger is attached (`--inspect`: the process being
// debugged must be the one that runs); CAPIBOT_HEAP_MB sets another cap, 0 keeps Node's default.
// The bench's children start with the same flags, so they measure what users run.
// Plain JavaScript: bin/capibot.js imports it before anything is compiled.
import { tieringFlags, TIERED_COMMANDS } from './jit-tiering.js';

/** The cap in MiB when CAPIBOT_HEAP_MB is not set. */
export const DEFAULT_HEAP_MB = 1024;

/** The commands that run with the cap. */
export const CAPPED_COMMANDS = ['backtest'];

/** The cap to apply: CAPIBOT_HEAP_MB (MiB; 0 for none), else the default. Throws on anything else. */
export function heapLimitMb(env = process.env) {
  const raw = env.CAPIBOT_HEAP_MB;
  if (raw === undefined || raw.trim() === '') return DEFAULT_HEAP_MB;
  const text = raw.trim();
  if (!/^\d+$/.test(text))
    throw new Error(`CAPIBOT_HEAP_MB must be a whole number of MiB (0: Node's default), got "${raw}"`);
  const mb = Number(text);
  return mb === 0 ? undefined : mb;
}

/** The node flags of the process: its command line's and NODE_OPTIONS'. */
function nodeFlags(execArgv, nodeOptions) {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
}

/** True when the process was given a heap size already (a node flag or NODE_OPTIONS). */
export function heapChosen(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS) {
  return nodeFlags(execArgv, nodeOptions).some((f) => /^--max[-_]old[-_]space[-_]size\b/.test(f));
}

/**
 * The cap for threads of this process (sweep workers): none when the process was given a heap size,
 * which V8 lets win over a thread's resource limit and which is the user's choice.
 */
export function threadHeapLimitMb(env = process.env) {
  return heapChosen(process.execArgv, env.NODE_OPTIONS) ? undefined : heapLimitMb(env);
}

/** The node flags a capped command runs with (none when the cap is off). */
export function heapFlags(env = process.env) {
  const mb = heapLimitMb(env);
  return mb === undefined ? [] : [`--max-old-space-size=${mb}`];
}

/**
 * The node flags of a process that replays recordings (the bench's children): the heap cap and V8's
 * tier-up budget (./jit-tiering.js), each unless chosen already.
 */
export function replayFlags(env = process.env, execArgv = process.execArgv) {
  return [...(heapChosen(execArgv, env.NODE_OPTIONS) ? [] : heapFlags(env)), ...tieringFlags(env, execArgv)];
}

/**
 * The node flags to run the command `args` again with, or undefined to run it in this process: the
 * heap cap for a backtest, the tier-up budget for a backtest and a sweep (./jit-tiering.js: a sweep's
 * backtests run in threads with heap caps of their own).
 * Undefined for any other command, its `--help`, a debugger attached (the child would not be the
 * process being debugged), or nothing to add (chosen already, or turned off). Throws on a bad
 * CAPIBOT_HEAP_MB or CAPIBOT_INTERRUPT_BUDGET.
 */
export function restartFlags(args, execArgv = process.execArgv, env = process.env) {
  const command = args[0] ?? '';
  const capped = CAPPED_COMMANDS.includes(command);
  if (!capped && !TIERED_COMMANDS.includes(command)) return undefined;
  if (args.includes('--help') || args.includes('-h')) return undefined;
  if (nodeFlags(execArgv, env.NODE_OPTIONS).some((f) => /^--inspect/.test(f))) return undefined;
  const heap = capped && !heapChosen(execArgv, env.NODE_OPTIONS) ? heapFlags(env) : [];
  const flags = [...heap, ...tieringFlags(env, execArgv)];
  return flags.length > 0 ? flags : undefined;
}

/**
 * The message for a capped run that ended by an abort (SIGABRT: V8's out-of-memory abort, most
 * likely), naming the cap and how to raise it; undefined for any other end.
 */
export function outOfMemoryHint(signal, flags) {
  if (signal !== 'SIGABRT') return undefined;
  // The cap is read from its own flag (another numeric flag may come first).
  const cap = flags.map((f) => /^--max-old-space-size=(\d+)$/.exec(f)?.[1]).find((v) => v !== undefined);
  return (
    `capibot: the run aborted, most likely because its JavaScript heap reached the cap of ${cap ?? '?'} MiB ` +
    '(see the lines above). A backtest of capibot itself stays far below it; a strategy that keeps much data can need more: ' +
    "run again with CAPIBOT_HEAP_MB=4096 (or 0 for Node's default).\n"
  );
}
