// V8's tier-up budget for the processes that replay recordings (`capibot backtest`, `sweep`).
//
// V8 optimizes a function once it has run "enough" bytecode: its interrupt budget (66 KiB by default)
// spent three times over, plus once more for every 150 bytes of the function. A backtest's order path
// is the opposite of a hot loop: hundreds of functions (the reconciliation kernel, the sleeping loops'
// charges, the simulator's matching) each run a few times an order, and when one of them is
// deoptimized (a new object shape: 39 times in 20,000 polls of sma-cross) it runs unoptimized for the
// rest of the month, and the compiler optimizes the large ones again and again. Counted with callgrind
// over polls 30,000 to 40,000 of the FTX month (sma-cross, 820 orders; BENCHMARKS.md, 2026-11-29):
// with a quarter of the budget the main thread ran 15-19 % fewer instructions an order and all
// threads together (the compiler's included) about 15 % fewer; a never-trading replay 4-8 % fewer.
//
// Like the heap cap (./heap-limit.js), the budget is a node flag: bin/capibot.js starts those commands
// again with it, and the bench's children get the same flags. A budget given already (a node flag or
// NODE_OPTIONS) wins; CAPIBOT_INTERRUPT_BUDGET sets another (bytes of bytecode), 0 keeps V8's default.
// `capibot worker` is not started again: a worker killed outright must end at once (its point then
// runs again on another worker), which a child it left running would not; give it the flag in
// NODE_OPTIONS (docs/operations.md).
// Plain JavaScript: bin/capibot.js imports it before anything is compiled.

/** The budget in bytes of bytecode when CAPIBOT_INTERRUPT_BUDGET is not set (V8's default: 67,584). */
export const DEFAULT_INTERRUPT_BUDGET = 16_384;

/** The commands that replay recordings, and so run with the budget. */
export const TIERED_COMMANDS = ['backtest', 'sweep'];

/** The budget to apply: CAPIBOT_INTERRUPT_BUDGET (0 for V8's default), else the default. Throws on anything else. */
export function interruptBudget(env = process.env) {
  const raw = env.CAPIBOT_INTERRUPT_BUDGET;
  if (raw === undefined || raw.trim() === '') return DEFAULT_INTERRUPT_BUDGET;
  const text = raw.trim();
  if (!/^\d+$/.test(text))
    throw new Error(
      `CAPIBOT_INTERRUPT_BUDGET must be a whole number of bytes (0: V8's default), got "${raw}"`,
    );
  const bytes = Number(text);
  return bytes === 0 ? undefined : bytes;
}

/** True when the process was given an interrupt budget already (a node flag or NODE_OPTIONS). */
export function budgetChosen(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS) {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some((f) => /^--interrupt[-_]budget\b/.test(f));
}

/** The node flags that set the budget (none when one was chosen already, or the default is kept). */
export function tieringFlags(env = process.env, execArgv = process.execArgv) {
  if (budgetChosen(execArgv, env.NODE_OPTIONS)) return [];
  const bytes = interruptBudget(env);
  return bytes === undefined ? [] : [`--interrupt-budget=${bytes}`];
}
