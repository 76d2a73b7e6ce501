// End to end, with a real redis-server: `capibot sweep --queue` with `capibot worker` child processes
// writes the same sweep.csv and sweep.json, byte for byte, as a local sweep of the same grid; a
// worker SIGKILLed mid-point has its point run again by another, counted once; and a worker whose
// recording differs from the submitter's refuses the points, with the reason in the rows.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_MISSING, SKIP_REDIS, findRedisServer, redisForSuite } from '../helpers/redis-server.ts';
import { CLI, cleanEnv, REPO, runCli, tempDir, type Done } from '../ops/helpers.ts';

const CONFIG = 'test/fixtures/configs/backtest/sma.yaml';
const RECORDING = 'test/fixtures/recordings/wave-2sym-240s.ndjson';

interface WorkerChild {
  readonly child: ChildProcess;
  /** Every stderr line so far. */
  readonly lines: string[];
  /** Resolves with the first stderr line matching `re`. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
}

function startWorker(url: string, cwd = REPO, extra: readonly string[] = []): WorkerChild {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'worker',
      '--queue',
      url,
      '--concurrency',
      '1',
      '--lock-ms',
      '1000',
      '--stalled-ms',
      '300',
      ...extra,
    ],
    { cwd, env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    lines.push(line);
    for (const w of [...waiters])
      if (w.re.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
  });
  return {
    child,
    lines,
    waitFor(re, timeoutMs = 60_000) {
      const seen = lines.find((l) => re.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`no line matching ${re} in:\n${lines.join('\n')}`)),
          timeoutMs,
        );
        waiters.push({ re, resolve: (l) => (clearTimeout(t), resolve(l)) });
      });
    },
  };
}

async function stop(w: WorkerChild): Promise<number | null> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return w.child.exitCode;
  const exited = once(w.child, 'exit');
  w.child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

describe.skipIf(SKIP_REDIS)('capibot sweep --queue and capibot worker', () => {
  const redis = redisForSuite();
  const tmp = tempDir('capibot-sweep-queue-');
  const grid = join(tmp, 'grid.yaml');
  // Every sweep writes here and is moved away after, so the rows (which name their config file)
  // can be compared byte for byte.
  const out = join(tmp, 'out');
  const workers: WorkerChild[] = [];
  let local: { csv: string; json: string };

  const sweep = async (
    extra: readonly string[],
    keep: string,
  ): Promise<Done & { csv: string; json: string }> => {
    const done = await runCli(['sweep', '--config', CONFIG, '--grid', grid, '--out', out, ...extra]);
    const dir = join(tmp, keep);
    renameSync(out, dir);
    return {
      ...done,
      csv: readFileSync(join(dir, 'sweep.csv'), 'utf8'),
      json: readFileSync(join(dir, 'sweep.json'), 'utf8'),
    };
  };

  const url = (): string => {
    const server = redis();
    if (server === undefined) return expect.fail(REDIS_MISSING);
    return server.url;
  };

  beforeAll(async () => {
    writeFileSync(grid, 'strategy: sma\nparams:\n  fast: [3, 5]\n  slow: [15, 20]\n');
    const done = await sweep(['--workers', '2'], 'local');
    expect(done.code, done.stderr).toBe(0);
    local = done;
  }, 120_000);

  afterEach(async () => {
    await Promise.all(workers.splice(0).map(stop));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('finds redis-server', () => {
    if (findRedisServer() === undefined) expect.fail(REDIS_MISSING);
  });

  it('two workers give the same rows as the local sweep, byte for byte', async () => {
    const w = [startWorker(url()), startWorker(url())];
    workers.push(...w);
    await Promise.all(w.map((x) => x.waitFor(/ready on redis:/)));
    const done = await sweep(['--queue', url()], 'queue');
    expect(done.code, done.stderr).toBe(0);
    expect(done.csv).toBe(local.csv);
    expect(done.json).toBe(local.json);
    expect(done.stderr).toMatch(/sweep: 4\/4 done/);
    // Both took points; SIGTERM stops them cleanly.
    for (const x of w) expect(x.lines.some((l) => / row \d started/.test(l))).toBe(true);
    for (const x of workers.splice(0)) expect(await stop(x)).toBe(0);
  }, 120_000);

  it('a point whose worker is SIGKILLed runs again on another, once in the results', async () => {
    const a = startWorker(url());
    workers.push(a);
    await a.waitFor(/ready on redis:/);
    const running = sweep(['--queue', url()], 'killed');
    const started = await a.waitFor(/ row \d+ started/);
    a.child.kill('SIGKILL');
    await once(a.child, 'exit');
    const row = /row (\d+) started/.exec(started)?.[1];
    expect(a.lines.some((l) => new RegExp(`row ${row} done`).test(l))).toBe(false);
    const b = startWorker(url());
    workers.push(b);
    const done = await running;
    expect(done.code, done.stderr).toBe(0);
    expect(b.lines.some((l) => new RegExp(` row ${row} started`).test(l))).toBe(true);
    expect(done.stderr.match(/sweep: \d\/4 done/g)).toHaveLength(4);
    expect(done.csv).toBe(local.csv);
    expect(done.json).toBe(local.json);
  }, 120_000);

  it('a worker whose recording differs refuses the points, and says why', async () => {
    // Another checkout: the same paths, but one byte of the recording changed.
    const other = join(tmp, 'other');
    mkdirSync(join(other, 'test/fixtures/recordings'), { recursive: true });
    cpSync(join(REPO, RECORDING), join(other, RECORDING));
    writeFileSync(
      join(other, RECORDING),
      readFileSync(join(other, RECORDING), 'utf8').replace('"t":', '"t" :'),
    );
    const w = startWorker(url(), other);
    workers.push(w);
    await w.waitFor(/ready on redis:/);
    const done = await sweep(['--queue', url()], 'refused');
    expect(done.code).toBe(1);
    const result = JSON.parse(done.json) as { rows: { rank: number | null; error?: string }[] };
    expect(result.rows).toHaveLength(4);
    for (const r of result.rows) {
      expect(r.rank).toBeNull();
      expect(r.error).toMatch(/refuses the point: its recording differs from the submitter's \(sha256 /);
      expect(r.error).toContain(RECORDING);
    }
    expect(w.lines.some((l) => /row \d refused: .*recording differs/.test(l))).toBe(true);
  }, 120_000);
});
