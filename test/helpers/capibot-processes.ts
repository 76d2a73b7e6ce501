// The end-to-end crash tests' processes: `capibot sim --clock realtime` and `capibot run` as child
// processes over real HTTP, the paper config they share, the kill-and-restart cycle and the reads of
// the simulator's inspection API (test/e2e/crash-recovery*.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect } from 'vitest';
import { lcg, writeWalkRecording } from './walk-recording.ts';

/** The children's environment: no credentials (both sides use the simulator's test credentials). */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['CAPIBOT_API_KEY'];
  delete env['CAPIBOT_API_SECRET'];
  delete env['CAPIBOT_API_PASSPHRASE'];
  return env;
}

export interface Sim {
  readonly child: ChildProcess;
  readonly url: string;
}

/** Starts `capibot sim --clock realtime` over `data` with the fault profile `faults`; resolves with its URL. */
export async function startSim(data: string, faults: string): Promise<Sim> {
  const child = spawn(
    process.execPath,
    [
      'bin/capibot.js',
      'sim',
      '--data',
      data,
      '--clock',
      'realtime',
      '--speed',
      '1',
      '--port',
      '0',
      '--seed',
      '11',
      '--faults',
      faults,
      '--ip-weight',
      '5000',
      '--uid-weight',
      '5000',
      '--log-level',
      'warn',
    ],
    { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const rl = createInterface({ input: child.stdout });
  const url = await new Promise<string>((ok, fail) => {
    rl.on('line', (line) => {
      const m = /^sim listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (m?.[1]) ok(m[1]);
    });
    child.once('exit', (code) => fail(new Error(`sim exited early (${code}): ${err}`)));
  });
  return { child, url };
}

/** Stops the simulator (SIGTERM) and waits for it. */
export async function stopSim(sim: Sim | undefined): Promise<void> {
  if (sim === undefined) return;
  const exited = once(sim.child, 'exit');
  sim.child.kill('SIGTERM');
  await exited;
}

export function startRun(
  config: string,
  extra: readonly string[] = [],
): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, ['bin/capibot.js', 'run', '--config', config, ...extra], {
    env: cleanEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  return { child, stderr: () => err };
}

export const sleep = (ms: number): Promise<void> => new Promise<void>((r) => setTimeout(r, ms));

export interface PaperRunConfig {
  readonly baseUrl: string;
  readonly storePath: string;
  /** Absolute path of the strategy plugin (id `churn`). */
  readonly strategyFile: string;
  /** The strategy's params as YAML flow-map entries, e.g. `{ plans: true }`. */
  readonly params?: string;
  /** polling.planHistoryMs (default: the config's). */
  readonly planHistoryMs?: number;
}

/** The paper config of the crash tests: fast polling, a short unknown-grace period, cancel on exit. */
export function paperRunConfigYaml(o: PaperRunConfig): string {
  return [
    'mode: paper',
    'exchange:',
    `  baseUrl: ${o.baseUrl}`,
    '  timeoutMs: 2000',
    'store:',
    `  path: ${o.storePath}`,
    'strategies:',
    '  - id: churn',
    `    file: ${o.strategyFile}`,
    ...(o.params !== undefined ? [`    params: ${o.params}`] : []),
    'paper:',
    '  venue: http',
    // The last (graceful) run leaves nothing resting: the simulator's market keeps moving after it.
    'orders:',
    '  cancelOnExit: true',
    'budget:',
    '  ipWeightPerWindow: 5000',
    '  uidWeightPerWindow: 5000',
    'polling:',
    '  tickersMs: 400',
    '  fillsMs: 500',
    '  historyMs: 800',
    '  unknownGraceMs: 3000',
    '  staleAfterMs: 5000',
    ...(o.planHistoryMs !== undefined ? [`  planHistoryMs: ${o.planHistoryMs}`] : []),
    'metrics:',
    '  enabled: false',
    'log:',
    '  level: warn',
    'shutdown:',
    '  drainDeadlineMs: 3000',
    '',
  ].join('\n');
}

export interface KillCycle {
  readonly kills: number;
  /** Seed of the kill moments. */
  readonly seed: number;
  /** Each run is killed this long after its start, plus up to `spreadMs` more (seeded). */
  readonly minMs: number;
  readonly spreadMs: number;
  /** Trading time of the final, graceful run. */
  readonly lastRunS: number;
}

/**
 * Runs `capibot run` `kills` times, each SIGKILLed at a seeded moment (from start-up and recovery to
 * well into trading) and restarted on the same store; then a last run that stops by itself, which
 * must exit 0.
 */
export async function killAndRestart(config: string, k: KillCycle): Promise<void> {
  const rnd = lcg(k.seed);
  for (let i = 0; i < k.kills; i++) {
    const run = startRun(config);
    await sleep(k.minMs + Math.floor(rnd() * k.spreadMs));
    const exited = once(run.child, 'exit');
    run.child.kill('SIGKILL');
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect(code === null ? signal : `exit ${code}: ${run.stderr()}`).toBe('SIGKILL');
  }
  const last = startRun(config, ['--duration-s', String(k.lastRunS)]);
  const [code] = (await once(last.child, 'exit')) as [number | null];
  expect(code, last.stderr()).toBe(0);
}

export interface WireOrder {
  readonly client_oid: string;
  readonly order_id: string;
  readonly status: string;
  readonly filled_qty: string;
}
export interface WireFill {
  readonly tradeId: string;
  readonly orderId: string;
  readonly fillSize: string;
}
/** A row of /sim/v1/plans: the plan row of historyPlan plus the simulator's links. */
export interface WirePlan {
  readonly client_oid: string | null;
  readonly order_id: string;
  readonly status: string;
  readonly triggerTime: string;
  readonly origin: string;
  readonly childOrderId?: string;
  readonly reason?: string;
}

/** GET of an inspection route of the simulator. */
export async function inspect<T>(url: string, path: string): Promise<T> {
  const res = await fetch(`${url}${path}`);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/**
 * A `capibot sim --clock realtime` for one test file: a temporary folder holding a seeded random-walk
 * recording and `faults`, the simulator started before the tests and stopped (folder removed) after.
 * Returns a getter of both (valid inside the tests).
 */
export function crashVenue(
  name: string,
  recording: { readonly seed: number; readonly t0: number },
  faults: unknown,
): () => { readonly dir: string; readonly sim: Sim } {
  let dir = '';
  let sim: Sim | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `capibot-${name}-`));
    writeWalkRecording(join(dir, 'market.ndjson'), {
      ...recording,
      polls: 900,
      stepMs: 100,
      stride: 30,
      source: `${name} test`,
    });
    writeFileSync(join(dir, 'faults.json'), JSON.stringify(faults));
    sim = await startSim(join(dir, 'market.ndjson'), join(dir, 'faults.json'));
  });
  afterAll(async () => {
    await stopSim(sim);
    rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (sim === undefined) throw new Error('the simulator is not up (crashVenue is used inside tests)');
    return { dir, sim };
  };
}
