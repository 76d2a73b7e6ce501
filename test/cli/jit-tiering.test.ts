// The commands that replay recordings run with V8's tier-up budget for replays (scripts/jit-tiering.js):
// `capibot backtest` with it and the heap cap, `sweep` with it alone; `worker` is not started again (a
// SIGKILL must end it at once). A budget the user chose (node flag or NODE_OPTIONS) wins,
// CAPIBOT_INTERRUPT_BUDGET=0 keeps V8's default. The restarted child also gets two malloc arenas
// (scripts/malloc-arenas.js, test/cli/malloc-arenas.test.ts).
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_MB, replayFlags, restartFlags } from '../../scripts/heap-limit.js';
import {
  budgetChosen,
  DEFAULT_INTERRUPT_BUDGET,
  interruptBudget,
  tieringFlags,
} from '../../scripts/jit-tiering.js';
import { CLI, cleanEnv, REPO, runCli, tempDir } from '../ops/helpers.ts';

const BUDGET = `--interrupt-budget=${DEFAULT_INTERRUPT_BUDGET}`;
const CAP = `--max-old-space-size=${DEFAULT_HEAP_MB}`;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('tier-up budget settings', () => {
  it('reads CAPIBOT_INTERRUPT_BUDGET: unset is the default, 0 is none, anything but a whole number is refused', () => {
    expect(interruptBudget({})).toBe(DEFAULT_INTERRUPT_BUDGET);
    expect(interruptBudget({ CAPIBOT_INTERRUPT_BUDGET: ' 32768 ' })).toBe(32_768);
    expect(interruptBudget({ CAPIBOT_INTERRUPT_BUDGET: '0' })).toBeUndefined();
    expect(tieringFlags({ CAPIBOT_INTERRUPT_BUDGET: '0' }, [])).toEqual([]);
    expect(tieringFlags({ CAPIBOT_INTERRUPT_BUDGET: '8192' }, [])).toEqual(['--interrupt-budget=8192']);
    for (const bad of ['1.5', '-1', '16k', 'lots'])
      expect(() => interruptBudget({ CAPIBOT_INTERRUPT_BUDGET: bad })).toThrow(
        /CAPIBOT_INTERRUPT_BUDGET must be a whole number/,
      );
  });

  it('leaves a budget the user chose alone, by flag or NODE_OPTIONS, in either spelling', () => {
    expect(budgetChosen([], undefined)).toBe(false);
    expect(budgetChosen(['--interrupt-budget=1000'], undefined)).toBe(true);
    expect(budgetChosen([], '--trace-warnings --interrupt_budget=1000')).toBe(true);
    expect(tieringFlags({}, ['--interrupt-budget=1000'])).toEqual([]);
  });

  it('restarts a backtest with both flags, a sweep with the budget alone, never a worker', () => {
    expect(restartFlags(['backtest', '--config', 'c.yaml'], [], {})).toEqual([CAP, BUDGET]);
    expect(restartFlags(['sweep', '--config', 'c.yaml'], [], {})).toEqual([BUDGET]);
    expect(restartFlags(['worker', '--redis', 'redis://x'], [], {})).toBeUndefined();
    expect(restartFlags(['run', '--config', 'c.yaml'], [], {})).toBeUndefined();
    expect(restartFlags(['sweep', '--help'], [], {})).toBeUndefined();
    expect(restartFlags(['sweep'], ['--inspect'], {})).toBeUndefined();
    // A chosen heap size drops the cap, not the budget; a chosen budget drops the budget, not the cap.
    expect(restartFlags(['backtest'], ['--max-old-space-size=300'], {})).toEqual([BUDGET]);
    expect(restartFlags(['backtest'], ['--interrupt-budget=1000'], {})).toEqual([CAP]);
    // The restarted child has both: it runs where it is.
    expect(restartFlags(['backtest'], [CAP, BUDGET], {})).toBeUndefined();
    expect(restartFlags(['sweep'], [BUDGET], {})).toBeUndefined();
    expect(() => restartFlags(['sweep'], [], { CAPIBOT_INTERRUPT_BUDGET: 'x' })).toThrow(
      /CAPIBOT_INTERRUPT_BUDGET/,
    );
  });

  it("gives the bench's replay children the flags a backtest runs with", () => {
    expect(replayFlags({}, [])).toEqual([CAP, BUDGET]);
    expect(replayFlags({ CAPIBOT_HEAP_MB: '0', CAPIBOT_INTERRUPT_BUDGET: '0' }, [])).toEqual([]);
  });
});

/** The command line of `pid` (Linux /proc), or [] when it is gone. */
function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** The environment of `pid` (Linux /proc) as NAME=value entries, or [] when it is gone. */
function environ(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/**
 * The child of `pid` that runs `capibot backtest` again, once there is one (within about 5 s; a
 * stale build is rebuilt first, by a child of its own): its command line and its environment. A
 * child just forked shows its parent's command line until it has started node: that one is passed
 * over.
 */
async function backtestChild(pid: number): Promise<{ argv: string[]; env: string[] } | undefined> {
  const parent = cmdline(pid).join(' ');
  for (let i = 0; i < 500; i++) {
    let children: string[] = [];
    try {
      children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
    } catch {
      // Gone.
    }
    for (const c of children.filter(Boolean)) {
      const argv = cmdline(Number(c));
      if (argv.includes('backtest') && argv.join(' ') !== parent) return { argv, env: environ(Number(c)) };
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}

/** An output folder (removed after the tests) and an environment that chooses none of the settings. */
function unchosen(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir('capibot-jit-');
  dirs.push(dir);
  const env = cleanEnv();
  delete env['NODE_OPTIONS'];
  delete env['MALLOC_ARENA_MAX'];
  return { dir, env };
}

describe.skipIf(process.platform !== 'linux')('capibot backtest', () => {
  it('runs the replay in a child node with the budget, the cap and two malloc arenas', async () => {
    const { dir, env: e } = unchosen();
    const parent = spawn(
      process.execPath,
      [CLI, 'backtest', '--config', 'config/month.yaml', '--out', join(dir, 'out')],
      { cwd: REPO, env: e, stdio: 'ignore' },
    );
    const ended = new Promise((done) => parent.on('exit', done));
    const child = await backtestChild(parent.pid as number);
    parent.kill('SIGTERM');
    await ended;
    expect(child?.argv).toContain(BUDGET);
    expect(child?.argv).toContain(CAP);
    expect(child?.env).toContain('MALLOC_ARENA_MAX=2');
  }, 60_000);

  it('gives the same report with the replay settings as without them (a backtest is deterministic)', async () => {
    const { dir, env: base } = unchosen();
    const tuned = await runCli(
      ['backtest', '--config', 'config/example.yaml', '--out', join(dir, 'tuned')],
      base,
    );
    // Every setting off: nothing to add, so the command runs in this process, as it did before them.
    const plain = await runCli(['backtest', '--config', 'config/example.yaml', '--out', join(dir, 'plain')], {
      ...base,
      CAPIBOT_HEAP_MB: '0',
      CAPIBOT_INTERRUPT_BUDGET: '0',
      MALLOC_ARENA_MAX: '8',
    });
    expect(tuned.code, tuned.stderr).toBe(0);
    expect(plain.code, plain.stderr).toBe(0);
    for (const file of ['report.json', 'fills.csv', 'trades.csv']) {
      const a = readFileSync(join(dir, 'tuned', file));
      expect(a.length).toBeGreaterThan(0);
      expect(a.equals(readFileSync(join(dir, 'plain', file))), file).toBe(true);
    }
  }, 120_000);
});
