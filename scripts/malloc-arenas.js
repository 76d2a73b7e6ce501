// glibc's malloc arenas for the processes that replay recordings (`capibot backtest`, `sweep`).
//
// glibc gives each thread that calls malloc an arena of its own, up to eight per core, and keeps what
// is freed in the arena it came from. A backtest's V8 compiles its hot code on background threads,
// whose graphs are malloc'd and freed a compile at a time: over a long run each of those threads' arenas
// keeps its high-water mark of freed memory, resident. With two arenas the freed memory is reused
// across threads. Measured (BENCHMARKS.md, 2026-11-29, a fourth session): the FTX month four times
// over with sma-cross peaked at 168-175 MiB against 178-187 MiB, the market maker's month at 170
// against 183 MiB, with no CPU cost the host could show; one arena saved a little more, at the risk
// of threads waiting for it (a sweep runs several backtests in threads of one process).
//
// Like the heap cap (./heap-limit.js) it must be set when the process starts: bin/capibot.js starts
// those commands again (it already does, for their node flags) with MALLOC_ARENA_MAX in the child's
// environment, and the bench's children get the same. A MALLOC_ARENA_MAX already set wins. No
// effect where the C library is not glibc (musl, macOS): they read no such variable.
// Plain JavaScript: bin/capibot.js imports it before anything is compiled.

/** The arenas a replaying process runs with when MALLOC_ARENA_MAX is not set. */
export const DEFAULT_MALLOC_ARENAS = 2;

/** What to add to a replaying process's environment: MALLOC_ARENA_MAX, unless `env` sets it. */
export function mallocArenaEnv(env = process.env) {
  const set = env.MALLOC_ARENA_MAX;
  if (set !== undefined && set.trim() !== '') return {};
  return { MALLOC_ARENA_MAX: String(DEFAULT_MALLOC_ARENAS) };
}

/** The environment of a process that replays recordings (the bench's children): `env` plus the arenas. */
export function replayEnv(env = process.env) {
  return { ...env, ...mallocArenaEnv(env) };
}
