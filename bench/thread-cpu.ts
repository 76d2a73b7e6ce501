// CPU time of the calling thread alone, for the bench's children: process.cpuUsage() counts every
// thread of the process, V8's optimizing compiler and GC helpers included, and in a backtest's first
// minute those take more CPU than the engine's own thread (BENCHMARKS.md, "Where a backtest's CPU
// goes"). Linux only (/proc/thread-self/stat, in clock ticks of 10 ms); undefined elsewhere.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux that Node runs on). */
const TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds of the calling thread so far, or undefined where /proc is not there. */
export function threadCpuMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/thread-self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  if (!Number.isFinite(user) || !Number.isFinite(system)) return undefined;
  return ((user + system) * 1000) / TICKS_PER_SECOND;
}
