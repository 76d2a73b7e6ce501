// The budget shared across processes (#19): three `capibot run` processes (paper mode, the venue one
// `capibot sim` over HTTP on loopback, each with its own store and its own Redis connection) flood the
// simulator with the benchmark quoter (quoter.ts), drawing from one budget in a fresh redis-server.
// Between them and the simulator a pass-through HTTP proxy of this process notes the time of every
// answer and its endpoint: the weight the venue charged, request by request (its sum is checked
// against the simulator's own count). Figures:
//
// - utilisation: the weight in the venue's rolling window, time-averaged over the flood's full
//   windows (from one window after all three trade, to the end), ÷ the shared budget (the venue's
//   limit × safetyMargin), as window-fill.ts computes it for the executor bench. Target ≥ 0.95. The
//   budget counts each window guardMs longer than the venue, which caps it near 10000/10050 in a
//   steady state; a static cancel reserve of 10 % capped it at 0.9.
// - 429 answers during the shared run (target 0), and in the control: the same three processes each
//   with a budget of its own (no Redis), which overrun the venue (target > 0: the difference proven).
//
// The UID pool binds (batchOrders: UID 10 against IP 5; the IP limit is raised so that the tickers
// polls, IP 40 each, do not): every process's reads (tickers, fills, history) count in the same
// windows as its placements. No cancel is ever refused here (the quoter's orders are
// immediate-or-cancel: the venue ends them), so no request is held back for the cancel reserve.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { ENDPOINTS, VENUE_LIMITS, type Endpoint } from '../src/core/endpoints.ts';
import { DEFAULT_BUDGET_CONFIG } from '../src/execution/budget.ts';
import { round } from './stats.ts';
import { startBenchRedis, type BenchRedis } from './sweep-queue.ts';
import { peakWindowFill, windowUtilisation, type Charge } from './window-fill.ts';

export interface SharedBudgetBenchOptions {
  /** Measured span after the first full window, ms. Default 5000. */
  readonly measureMs?: number;
  /** How long the control floods once its processes trade, ms. Default 2500. */
  readonly controlMs?: number;
}

export type Pool = 'ip' | 'uid';

export interface SharedBudgetBench {
  /** `capibot run` processes sharing the budget. */
  readonly processes: number;
  /** The shared budget per venue window (the venue's limits × safetyMargin) and the window. */
  readonly budget: { readonly ip: number; readonly uid: number; readonly windowMs: number };
  readonly bindingPool: Pool;
  /** Time-averaged fill of the venue's window ÷ the shared budget over the full windows, binding pool. */
  readonly utilisation: number;
  readonly utilisationByPool: Readonly<Record<Pool, number>>;
  /** Best possible: the budget counts each window guardMs longer than the venue does. */
  readonly utilisationCeiling: number;
  /** The fullest the venue's window was ÷ the shared budget, binding pool, whole run (venue: 1 / 0.9). */
  readonly peakWindowFill: number;
  /** 429 answers of the simulator during the whole shared run. */
  readonly responses429: number;
  /** 429 answers in the control: the same three, a budget each, no Redis. */
  readonly controlResponses429: number;
  readonly measuredSeconds: number;
  /** batchOrders calls the simulator answered during the shared run (every process). */
  readonly batchCalls: number;
  readonly wallSeconds: number;
}

const CLI = resolve('bin/capibot.js');
const QUOTER = resolve('bench/quoter-plugin.ts');
/** One poll a second, two symbols, five minutes: played in real time, longer than any run here. */
const RECORDING = 'data/binance-btc-eth-20240719-1s.ndjson.gz';
const PROCESSES = 3;
/** The simulator's window (`capibot sim` has the venue's 10 s). */
const WINDOW_MS = VENUE_LIMITS.windowMs;
const UID_LIMIT = VENUE_LIMITS.uidWeightPerWindow;
/** Raised so that the UID pool binds, not the tickers polls. */
const IP_LIMIT = 5 * VENUE_LIMITS.ipWeightPerWindow;
/**
 * Placements per symbol per ticker and process: 2 × 150 a second each, 15 batches (UID 150) against a
 * shared room of UID 90 a second for all three. Less leaves the room unrefilled for a while each time
 * a burst of old grants expires (with 60, the second window averaged 0.89).
 */
const PER_TICK = 150;

/** The children's environment: no credentials (the simulator's test credentials on both sides). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['CAPIBOT_API_KEY'];
  delete env['CAPIBOT_API_SECRET'];
  delete env['CAPIBOT_API_PASSPHRASE'];
  return env;
}

interface Child {
  readonly proc: ChildProcess;
  /** The first output line (stdout or stderr) matching `re`; rejects when the process exits first. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  readonly tail: () => string;
}

/** Children still running: killed if this process exits without having stopped them (an error, ^C). */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

function startCli(args: readonly string[]): Child {
  const proc = spawn(process.execPath, [CLI, ...args], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  const lines: string[] = [];
  const waiters: { re: RegExp; ok: (m: RegExpExecArray) => void }[] = [];
  const onLine = (line: string): void => {
    lines.push(line);
    if (lines.length > 50) lines.shift();
    for (const w of [...waiters]) {
      const m = w.re.exec(line);
      if (m !== null) {
        waiters.splice(waiters.indexOf(w), 1);
        w.ok(m);
      }
    }
  };
  if (proc.stdout !== null) createInterface({ input: proc.stdout }).on('line', onLine);
  if (proc.stderr !== null) createInterface({ input: proc.stderr }).on('line', onLine);
  const exited = once(proc, 'exit');
  const tail = (): string => lines.slice(-5).join(' | ');
  return {
    proc,
    tail,
    waitFor: (re, timeoutMs = 30_000) =>
      new Promise<RegExpExecArray>((ok, fail) => {
        const timer = setTimeout(
          () => fail(new Error(`capibot ${args[0]}: no ${re} within ${timeoutMs} ms: ${tail()}`)),
          timeoutMs,
        );
        waiters.push({
          re,
          ok: (m) => {
            clearTimeout(timer);
            ok(m);
          },
        });
        void exited.then(([code]) => {
          clearTimeout(timer);
          fail(new Error(`capibot ${args[0]} exited (${String(code)}) before ${re}: ${tail()}`));
        });
      }),
  };
}

async function kill(c: Child): Promise<void> {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  const exited = once(c.proc, 'exit');
  c.proc.kill('SIGKILL');
  await exited;
}

function runConfig(i: number, dir: string, simUrl: string, redisUrl: string | undefined): string {
  const path = join(dir, `run-${i}.yaml`);
  const shared = redisUrl === undefined ? [] : ['  shared:', `    url: ${redisUrl}`, '    account: bench'];
  writeFileSync(
    path,
    [
      'mode: paper',
      'exchange:',
      `  baseUrl: ${simUrl}`,
      '  timeoutMs: 5000',
      'store:',
      `  path: ${join(dir, `store-${i}.sqlite`)}`,
      'strategies:',
      '  - id: flood',
      `    file: ${QUOTER}`,
      `    params: { symbols: [cmt_btcusdt, cmt_ethusdt], perTick: ${PER_TICK} }`,
      'paper:',
      '  venue: http',
      // Each process's orders are its own (another prefix is "not capibot's": never adopted).
      'orders:',
      `  clientOidPrefix: m${i}`,
      'risk:',
      '  maxOpenOrders: 100000',
      '  maxOrdersPerMinute: 100000',
      'budget:',
      `  ipWeightPerWindow: ${IP_LIMIT}`,
      `  uidWeightPerWindow: ${UID_LIMIT}`,
      ...shared,
      'metrics:',
      '  enabled: false',
      'log:',
      '  level: warn',
      '',
    ].join('\n'),
  );
  return path;
}

const Stats = z.object({
  weightUsed: z.object({ ip: z.number(), uid: z.number() }),
  responses429: z.number(),
  requests: z.object({ byEndpoint: z.record(z.string(), z.number()) }),
});
type Stats = z.infer<typeof Stats>;

async function simStats(url: string): Promise<Stats> {
  const res = await fetch(`${url}/sim/v1/stats`);
  if (!res.ok) throw new Error(`/sim/v1/stats: HTTP ${res.status}`);
  return Stats.parse(await res.json());
}

const BY_PATH = new Map<string, Endpoint>(Object.values(ENDPOINTS).map((e) => [e.path, e]));

/** A request the venue charged: when its answer left the simulator, and its weights. */
interface Charged {
  readonly t: number;
  readonly ip: number;
  readonly uid: number;
}

/**
 * A pass-through HTTP proxy in front of the simulator that notes every charged request: one the
 * simulator answered with anything but 429 (it charges the weight windows before any other check).
 * The simulator handles requests one at a time, so the answer follows the charge by a fraction of a
 * millisecond on loopback.
 */
async function startProxy(
  target: string,
): Promise<{ url: string; charged: Charged[]; close(): Promise<void> }> {
  const to = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const charged: Charged[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const up = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        const e = BY_PATH.get(path);
        if (e !== undefined && answer.statusCode !== 429) {
          charged.push({ t: Date.now(), ip: e.ipWeight, uid: e.uidWeight });
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    charged,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => ok());
      }),
  };
}

interface FloodRun {
  readonly charged: readonly Charged[];
  /** When the last of the three processes said it trades. */
  readonly start: number;
  readonly end: number;
  readonly stats: Stats;
}

/**
 * One flood: a fresh simulator and three `capibot run` processes (sharing through `redisUrl`, or each
 * with a budget of its own), run for `ms` from the moment all three trade.
 */
async function flood(dir: string, redisUrl: string | undefined, ms: number): Promise<FloodRun> {
  const sim = startCli([
    'sim',
    '--data',
    RECORDING,
    '--clock',
    'realtime',
    '--port',
    '0',
    '--ip-weight',
    String(IP_LIMIT),
    '--uid-weight',
    String(UID_LIMIT),
    '--log-level',
    'warn',
  ]);
  const runs: Child[] = [];
  let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
  try {
    const simUrl = (await sim.waitFor(/^sim listening on (http:\/\/127\.0\.0\.1:\d+)$/))[1] ?? '';
    proxy = await startProxy(simUrl);
    for (let i = 0; i < PROCESSES; i++) {
      runs.push(startCli(['run', '--config', runConfig(i, dir, proxy.url, redisUrl)]));
    }
    await Promise.all(runs.map((r) => r.waitFor(/capibot run: trading/, 60_000)));
    const start = Date.now();
    await new Promise((r) => setTimeout(r, ms));
    const end = Date.now();
    for (const r of runs) {
      if (r.proc.exitCode !== null) throw new Error(`capibot run exited during the flood: ${r.tail()}`);
    }
    await Promise.all(runs.map(kill));
    const stats = await simStats(simUrl);
    const charged = proxy.charged;
    const uid = charged.reduce((n, c) => n + c.uid, 0);
    if (uid !== stats.weightUsed.uid) {
      throw new Error(
        `the proxy saw UID weight ${uid} charged, the simulator counted ${stats.weightUsed.uid}`,
      );
    }
    return { charged, start, end, stats };
  } finally {
    await Promise.all(runs.map(kill));
    await proxy?.close();
    await kill(sim);
  }
}

/** Builds dist/ once if the sources changed (three processes starting at once would each try). */
async function warmUp(): Promise<void> {
  const c = startCli(['--version']);
  const [code] = (await once(c.proc, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`capibot --version exited ${String(code)}: ${c.tail()}`);
}

export async function benchSharedBudget(o: SharedBudgetBenchOptions = {}): Promise<SharedBudgetBench> {
  const measureMs = o.measureMs ?? 5_000;
  const controlMs = o.controlMs ?? 2_500;
  const wall0 = performance.now();
  // The stores on tmpfs where there is one: each placement is committed (fsync) before it is sent, and
  // three processes doing so on a shared disk measure the disk, not the budget.
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'capibot-bench-shared-'));
  let redis: BenchRedis | undefined;
  try {
    await warmUp();
    redis = await startBenchRedis(dir);
    const sharedDir = mkdtempSync(join(dir, 'shared-'));
    const shared = await flood(sharedDir, redis.url, WINDOW_MS + measureMs);
    const controlDir = mkdtempSync(join(dir, 'control-'));
    const control = await flood(controlDir, undefined, controlMs);

    const c = DEFAULT_BUDGET_CONFIG;
    const budget = {
      ip: Math.floor(IP_LIMIT * c.safetyMargin),
      uid: Math.floor(UID_LIMIT * c.safetyMargin),
    };
    const from = shared.start + WINDOW_MS;
    const charges = (pool: Pool): Charge[] =>
      shared.charged.map((x) => ({ t: x.t, weight: x[pool] })).sort((a, b) => a.t - b.t);
    const util = {
      ip: windowUtilisation(charges('ip'), from, shared.end, WINDOW_MS, budget.ip),
      uid: windowUtilisation(charges('uid'), from, shared.end, WINDOW_MS, budget.uid),
    };
    const bindingPool: Pool = util.uid >= util.ip ? 'uid' : 'ip';
    return {
      processes: PROCESSES,
      budget: { ...budget, windowMs: WINDOW_MS },
      bindingPool,
      utilisation: round(util[bindingPool]),
      utilisationByPool: { ip: round(util.ip), uid: round(util.uid) },
      utilisationCeiling: round(WINDOW_MS / (WINDOW_MS + c.guardMs)),
      peakWindowFill: round(peakWindowFill(charges(bindingPool), WINDOW_MS, budget[bindingPool])),
      responses429: shared.stats.responses429,
      controlResponses429: control.stats.responses429,
      measuredSeconds: round((shared.end - from) / 1000, 1),
      batchCalls: shared.stats.requests.byEndpoint['batchOrders'] ?? 0,
      wallSeconds: round((performance.now() - wall0) / 1000, 1),
    };
  } finally {
    redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
