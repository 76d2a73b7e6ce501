// `capibot backtest` runs under a heap cap (scripts/heap-limit.js): it runs itself again in a child
// node with --max-old-space-size unless a heap size was chosen already, ends as that child ends
// (signals sent to it reach the child), and a run that meets the cap says so and how to raise it.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_HEAP_MB,
  heapChosen,
  heapFlags,
  heapLimitMb,
  outOfMemoryHint,
  restartFlags,
  threadHeapLimitMb,
} from '../../scripts/heap-limit.js';
import { CLI, cleanEnv, REPO, tempDir } from '../ops/helpers.ts';
import { rmSync } from 'node:fs';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The test process's environment without any heap choice of its own. */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const e = cleanEnv(extra);
  delete e['NODE_OPTIONS'];
  return { ...e, ...extra };
}

function capibot(args: readonly string[], e: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; stderr: string }>((done) => {
    execFile(process.execPath, [CLI, ...args], { cwd: REPO, env: e }, (err, _out, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr });
    });
  });
}

/** The pids of `pid`'s children (Linux /proc). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** True while `pid` runs (a zombie, ended but not yet reaped by an adoptive parent, does not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The first child of `pid`, once it has one (within about 2 s). */
async function firstChild(pid: number): Promise<number | undefined> {
  for (let i = 0; i < 200; i++) {
    const c = childrenOf(pid)[0];
    if (c !== undefined) return c;
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}

describe('heap cap settings', () => {
  it('reads CAPIBOT_HEAP_MB: unset is the default, 0 is none, anything but a whole number is refused', () => {
    expect(heapLimitMb({})).toBe(DEFAULT_HEAP_MB);
    expect(heapLimitMb({ CAPIBOT_HEAP_MB: ' 2048 ' })).toBe(2048);
    expect(heapLimitMb({ CAPIBOT_HEAP_MB: '0' })).toBeUndefined();
    expect(heapFlags({ CAPIBOT_HEAP_MB: '0' })).toEqual([]);
    expect(heapFlags({ CAPIBOT_HEAP_MB: '512' })).toEqual(['--max-old-space-size=512']);
    for (const bad of ['1.5', '-1', '1g', 'lots'])
      expect(() => heapLimitMb({ CAPIBOT_HEAP_MB: bad })).toThrow(/CAPIBOT_HEAP_MB must be a whole number/);
  });

  it('leaves a heap size the user chose alone, by flag or NODE_OPTIONS, in either spelling', () => {
    expect(heapChosen([], undefined)).toBe(false);
    expect(heapChosen(['--inspect'], '--trace-warnings')).toBe(false);
    expect(heapChosen(['--max-old-space-size=300'], undefined)).toBe(true);
    expect(heapChosen([], '--trace-warnings --max_old_space_size=300')).toBe(true);
  });

  it('caps only a backtest, not its help, a chosen heap size, a debugged process or a cap of 0', () => {
    // The tier-up budget (scripts/jit-tiering.js, test/cli/jit-tiering.test.ts) turned off here.
    const e = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
      CAPIBOT_INTERRUPT_BUDGET: '0',
      ...extra,
    });
    const cap = [`--max-old-space-size=${DEFAULT_HEAP_MB}`];
    expect(restartFlags(['backtest', '--config', 'c.yaml'], [], e())).toEqual(cap);
    expect(restartFlags(['backtest'], ['--trace-warnings'], e({ CAPIBOT_HEAP_MB: '512' }))).toEqual([
      '--max-old-space-size=512',
    ]);
    expect(restartFlags(['run', '--config', 'c.yaml'], [], e())).toBeUndefined();
    expect(restartFlags(['sweep', '--config', 'c.yaml'], [], e())).toBeUndefined();
    expect(restartFlags([], [], e())).toBeUndefined();
    expect(restartFlags(['backtest', '--help'], [], e())).toBeUndefined();
    expect(restartFlags(['backtest', '-h'], [], e())).toBeUndefined();
    expect(restartFlags(['backtest'], ['--max-old-space-size=300'], e())).toBeUndefined();
    expect(restartFlags(['backtest'], [], e({ NODE_OPTIONS: '--max-old-space-size=300' }))).toBeUndefined();
    expect(restartFlags(['backtest'], ['--inspect-brk'], e())).toBeUndefined();
    expect(restartFlags(['backtest'], [], e({ NODE_OPTIONS: '--inspect=0' }))).toBeUndefined();
    expect(restartFlags(['backtest'], [], e({ CAPIBOT_HEAP_MB: '0' }))).toBeUndefined();
    expect(() => restartFlags(['backtest'], [], e({ CAPIBOT_HEAP_MB: 'x' }))).toThrow(/CAPIBOT_HEAP_MB/);
  });

  it.skipIf(heapChosen())('caps sweep threads unless NODE_OPTIONS gave the process a heap size', () => {
    expect(threadHeapLimitMb({})).toBe(DEFAULT_HEAP_MB);
    expect(threadHeapLimitMb({ CAPIBOT_HEAP_MB: '700' })).toBe(700);
    expect(threadHeapLimitMb({ NODE_OPTIONS: '--max-old-space-size=300' })).toBeUndefined();
    expect(threadHeapLimitMb({ CAPIBOT_HEAP_MB: '0' })).toBeUndefined();
  });

  it("names the cap only for V8's out-of-memory abort", () => {
    const flags = ['--max-old-space-size=640'];
    expect(outOfMemoryHint('SIGABRT', flags)).toContain('cap of 640 MiB');
    // The cap is read from its own flag, wherever other numeric flags stand.
    expect(outOfMemoryHint('SIGABRT', ['--stack-size=984', ...flags])).toContain('cap of 640 MiB');
    expect(outOfMemoryHint('SIGABRT', flags)).toContain('CAPIBOT_HEAP_MB=4096');
    expect(outOfMemoryHint(null, flags)).toBeUndefined();
    expect(outOfMemoryHint('SIGTERM', flags)).toBeUndefined();
  });
});

describe('capibot backtest under the heap cap', () => {
  const args = (out: string) => ['backtest', '--config', 'config/month.yaml', '--out', out];

  it('meets a cap too small for it with exit 134 and a message naming the cap and the remedy', async () => {
    const dir = tempDir('capibot-heap-');
    dirs.push(dir);
    const r = await capibot(args(join(dir, 'out')), env({ CAPIBOT_HEAP_MB: '12' }));
    expect(r.code).toBe(134);
    expect(r.stderr).toContain('its JavaScript heap reached the cap of 12 MiB');
    expect(r.stderr).toContain('JavaScript heap out of memory');
    expect(r.stderr).toContain('CAPIBOT_HEAP_MB=4096');
  }, 60_000);

  it('runs without the cap when the user chose a heap size (the cap of 12 MiB does not apply)', async () => {
    const dir = tempDir('capibot-heap-');
    dirs.push(dir);
    const r = await capibot(
      args(join(dir, 'out')),
      env({ CAPIBOT_HEAP_MB: '12', NODE_OPTIONS: '--max-old-space-size=4096' }),
    );
    expect(r.code).toBe(0);
  }, 60_000);

  it('refuses a bad CAPIBOT_HEAP_MB before running anything', async () => {
    const r = await capibot(['backtest', '--config', 'config/month.yaml'], env({ CAPIBOT_HEAP_MB: 'big' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('CAPIBOT_HEAP_MB must be a whole number of MiB');
  });

  it('passes a SIGTERM sent to it on to the backtest, and ends by it', async () => {
    const dir = tempDir('capibot-heap-');
    dirs.push(dir);
    const parent = spawn(process.execPath, [CLI, ...args(join(dir, 'out'))], {
      cwd: REPO,
      env: env(),
      stdio: 'ignore',
    });
    const child = await firstChild(parent.pid as number);
    expect(child).toBeDefined();
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      parent.on('exit', (code, signal) => done({ code, signal })),
    );
    parent.kill('SIGTERM');
    expect(await ended).toEqual({ code: null, signal: 'SIGTERM' });
    expect(alive(child as number)).toBe(false);
  }, 60_000);

  it('stops the backtest when the command is killed outright (SIGKILL: nothing is passed on)', async () => {
    const dir = tempDir('capibot-heap-');
    dirs.push(dir);
    const out = join(dir, 'out');
    const parent = spawn(process.execPath, [CLI, ...args(out)], { cwd: REPO, env: env(), stdio: 'ignore' });
    const child = await firstChild(parent.pid as number);
    expect(child).toBeDefined();
    parent.kill('SIGKILL');
    let running = true;
    for (let i = 0; i < 500 && running; i++) {
      await new Promise((r) => setTimeout(r, 10));
      running = alive(child as number);
    }
    expect(running).toBe(false);
    // It stopped before finishing: no report.
    expect(existsSync(join(out, 'report.json'))).toBe(false);
  }, 60_000);
});
