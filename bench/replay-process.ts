// How the bench starts a child that replays recordings: with the node flags (the heap cap and V8's
// tier-up budget: scripts/heap-limit.js `replayFlags`) and the environment (two malloc arenas:
// scripts/malloc-arenas.js `replayEnv`) that `capibot backtest` runs with, so that every figure
// measures what users run. One place for it: the replay, orders, symbols and Parquet benches.
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { replayFlags } from '../scripts/heap-limit.js';
import { replayEnv } from '../scripts/malloc-arenas.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

/**
 * Runs `node <replay flags> <nodeFlags> bin/run-ts.js <script> <args>` from the repository root and
 * returns what it printed (the bench children print their figures as JSON lines).
 */
export async function runReplayChild(
  script: string,
  args: readonly string[],
  nodeFlags: readonly string[] = [],
): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [...replayFlags(), ...nodeFlags, 'bin/run-ts.js', script, ...args],
    { cwd: REPO, env: replayEnv(), maxBuffer: 1 << 20 },
  );
  return stdout;
}
