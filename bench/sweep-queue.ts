// The distributed sweep's speed-up: the same 4-point grid (ema-cross over the FTX month) through
// `capibot sweep --queue` with one `capibot worker` (concurrency 1), then with two, side by side in
// one run against a fresh redis-server. Reported as the ratio of wall times (one ÷ two); the target
// is ≥ 1.6 on 2 cores. On a shared machine the ratio drops when another process holds a core, so
// two controls come with it: the same grid as a local sweep on 1 and 2 threads, and two plain
// `capibot backtest` processes run one after the other and then side by side (no sweep, no queue):
// that last ratio is what the machine gives two backtests at once.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

export interface SweepQueueBench {
  readonly points: number;
  readonly oneWorkerSeconds: number;
  readonly twoWorkersSeconds: number;
  /** oneWorkerSeconds ÷ twoWorkersSeconds. */
  readonly speedup: number;
  readonly cores: number;
  /** The control: the same grid as a local sweep, `--workers 1` ÷ `--workers 2` (what the machine allows). */
  readonly localSpeedup: number;
  /**
   * The machine's own ceiling, with no sweep at all: two `capibot backtest` processes of the same
   * month, one after the other ÷ both at once (wall time). Two cores that really run two backtests
   * side by side give about 2.
   */
  readonly processSpeedup: number;
}

const CLI = 'bin/capibot.js';
const CONFIG = 'config/month.yaml';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function until(child: ChildProcess, re: RegExp): Promise<void> {
  const lines = createInterface({ input: child.stderr! });
  for await (const line of lines) if (re.test(line)) return;
  throw new Error(`the process ended before printing ${re}`);
}

async function run(args: readonly string[]): Promise<void> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`capibot ${args[0]} exited ${code}: ${err.trim().split('\n').pop()}`);
}

async function timedSweep(url: string, grid: string, out: string, workers: number): Promise<number> {
  const children = Array.from({ length: workers }, () =>
    spawn(process.execPath, [CLI, 'worker', '--queue', url, '--concurrency', '1'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  try {
    await Promise.all(children.map((c) => until(c, /ready on redis:/)));
    const t0 = performance.now();
    await run(['sweep', '--config', CONFIG, '--grid', grid, '--queue', url, '--out', out]);
    return (performance.now() - t0) / 1000;
  } finally {
    await Promise.all(
      children.map(async (c) => {
        if (c.exitCode !== null) return;
        const exited = once(c, 'exit');
        c.kill('SIGTERM');
        await exited;
      }),
    );
  }
}

/** A redis-server of a benchmark's own: loopback, a free port, no persistence, data in `dir`. */
export interface BenchRedis {
  readonly url: string;
  /** SIGKILLs it (nothing to save). */
  stop(): void;
}

export async function startBenchRedis(dir: string): Promise<BenchRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const redis = spawn(
    process.env['REDIS_SERVER_BIN'] ?? 'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const spawned = new Promise<void>((resolve, reject) => {
    redis.once('spawn', resolve);
    redis.once('error', (e) => reject(new Error(`redis-server: ${e.message}`)));
  });
  const stop = (): void => void redis.kill('SIGKILL');
  try {
    await spawned;
  } catch (e) {
    stop();
    throw e;
  }
  await new Promise((r) => setTimeout(r, 300));
  return { url, stop };
}

export async function benchSweepQueue(): Promise<SweepQueueBench> {
  const dir = mkdtempSync(join(tmpdir(), 'capibot-bench-sweepq-'));
  let redis: BenchRedis | undefined;
  try {
    redis = await startBenchRedis(dir);
    const url = redis.url;
    const grid = join(dir, 'grid.yaml');
    writeFileSync(grid, 'strategy: ema\nparams:\n  fastPeriod: [60, 120]\n  slowPeriod: [360, 480]\n');
    // A warm-up sweep (compiled dist/, file caches), not timed.
    await timedSweep(url, grid, join(dir, 'warm'), 2);
    const one = await timedSweep(url, grid, join(dir, 'one'), 1);
    const two = await timedSweep(url, grid, join(dir, 'two'), 2);
    const local = async (workers: number): Promise<number> => {
      const t0 = performance.now();
      await run([
        'sweep',
        '--config',
        CONFIG,
        '--grid',
        grid,
        '--workers',
        String(workers),
        '--out',
        join(dir, `l${workers}`),
      ]);
      return (performance.now() - t0) / 1000;
    };
    const localOne = await local(1);
    const localTwo = await local(2);
    const backtest = (name: string): Promise<void> =>
      run(['backtest', '--config', CONFIG, '--out', join(dir, name)]);
    const t0 = performance.now();
    await backtest('seq1');
    await backtest('seq2');
    const t1 = performance.now();
    await Promise.all([backtest('par1'), backtest('par2')]);
    const t2 = performance.now();
    return {
      points: 4,
      oneWorkerSeconds: Math.round(one * 100) / 100,
      twoWorkersSeconds: Math.round(two * 100) / 100,
      speedup: Math.round((one / two) * 1000) / 1000,
      cores: availableParallelism(),
      localSpeedup: Math.round((localOne / localTwo) * 1000) / 1000,
      processSpeedup: Math.round(((t1 - t0) / (t2 - t1)) * 1000) / 1000,
    };
  } finally {
    redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
