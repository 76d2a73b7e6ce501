#!/usr/bin/env node
// The installed `capibot` binary runs the compiled framework: dist/, built from src/ by
// scripts/build.js (the `prepare` script of `npm ci`). A checkout whose src/ changed after that build
// never runs stale code: it is rebuilt first (about a second, once), and when it cannot be rebuilt
// the TypeScript sources run through tsx instead. CAPIBOT_FROM_SOURCE=1 always runs the sources.
// The TypeScript loader is otherwise registered only to import a strategy file (src/strategy/loader.ts).
// `capibot backtest` first runs itself again under a heap cap (scripts/heap-limit.js explains why), and
// it and `sweep` with V8's tier-up budget for replays (scripts/jit-tiering.js) and two malloc arenas
// (scripts/malloc-arenas.js).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { build, isBuildFresh } from '../scripts/build.js';
import { outOfMemoryHint, restartFlags } from '../scripts/heap-limit.js';
import { mallocArenaEnv } from '../scripts/malloc-arenas.js';

/** How long a signal waits before it is passed on to the child (see runCapped). */
const SIGNAL_GRACE_MS = 300;

/** The node flags to run this command again with (scripts/heap-limit.js), or undefined to run it here. */
function cappedFlags(args) {
  try {
    return restartFlags(args);
  } catch (e) {
    process.stderr.write(`capibot: error [CONFIG] ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(2);
  }
}

/**
 * Runs this command in a child node with `flags` and two malloc arenas (scripts/malloc-arenas.js), its
 * output and input the terminal's, and ends as it ends. Signals sent to this process reach the child too.
 */
function runCapped(flags, args) {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
  let child;
  // Listening before the child is started: a signal that comes meanwhile would otherwise end this
  // process alone and leave the child running (Node runs the handler on a later turn of its event
  // loop, when `child` is set). A signal from a terminal (Ctrl-C) or a service manager often reaches
  // the child as well: it is passed on only if the child has not ended a moment later, so a child
  // stopping gracefully (`--serve` closing its console) does not get it twice.
  const forward = (signal) => {
    setTimeout(() => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        child.kill(signal);
      } catch {
        // Gone already.
      }
    }, SIGNAL_GRACE_MS).unref();
  };
  for (const s of signals) process.on(s, forward);
  // The IPC channel only tells the child when this process is gone, however it ended (SIGKILL
  // included): the child then stops as on SIGTERM (see `watchParent`).
  child = spawn(process.execPath, [...flags, ...process.execArgv, fileURLToPath(import.meta.url), ...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...mallocArenaEnv(process.env), [PARENT_WATCH]: '1' },
  });
  child.on('error', (e) => {
    process.stderr.write(`capibot: cannot start node for the backtest: ${e.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    const hint = outOfMemoryHint(signal, flags);
    if (hint !== undefined) process.stderr.write(hint);
    for (const s of signals) process.off(s, forward);
    // Ends as the child did. A signal that dumps core (SIGABRT, SIGSEGV, SIGQUIT…) is not raised here
    // again (a second core could overwrite the child's): the shell's code for it, 128 + its number.
    const n = constants.signals[signal] ?? 0;
    if (!CORE_DUMPING.has(signal)) process.kill(process.pid, signal);
    process.exit(128 + n);
  });
}

/** Signals whose default action dumps core. */
const CORE_DUMPING = new Set([
  'SIGABRT',
  'SIGSEGV',
  'SIGBUS',
  'SIGILL',
  'SIGFPE',
  'SIGQUIT',
  'SIGTRAP',
  'SIGSYS',
]);

/** Set in the environment of the child runCapped starts. */
const PARENT_WATCH = 'CAPIBOT_PARENT_WATCH';

/**
 * In the child runCapped started: stops (as on SIGTERM) when the process that started it is gone,
 * without the channel keeping this process alive.
 */
function watchParent() {
  if (process.env[PARENT_WATCH] !== '1' || process.channel === undefined) return;
  delete process.env[PARENT_WATCH];
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

async function useCompiled() {
  if (process.env.CAPIBOT_FROM_SOURCE === '1') return false;
  if (isBuildFresh()) return true;
  try {
    await build();
    return true;
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    process.stderr.write(`capibot: cannot rebuild dist/ (${why}); running the TypeScript sources\n`);
    return false;
  }
}

watchParent();
const args = process.argv.slice(2);
const capped = cappedFlags(args);
if (capped !== undefined) {
  runCapped(capped, args);
} else if (await useCompiled()) {
  await import('../dist/cli/entry.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/entry.ts');
}
