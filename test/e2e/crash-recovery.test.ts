// Crash test, end to end (ARCHITECTURE.md invariant 10): `capibot run` trades an aggressive strategy
// against `capibot sim --clock realtime` (child processes, real HTTP) and is killed with SIGKILL at
// seeded random moments, four times, each time restarted on the same store; a last run stops
// gracefully. Then the store must agree with the simulator's inspection API:
//   - no client_oid twice at the exchange (nothing was ever placed twice);
//   - no exchange order with our prefix missing from the store (no orphan), same order id and status;
//   - no store order that claims to be at the exchange but is not;
//   - every exchange fill in the store exactly once, attributed to the right client_oid.
// The recording is dated a year before the wall clock, so the run must keep the venue's time from
// its tickers (history and fills windows computed from the wall clock would find nothing).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { lcg, writeWalkRecording } from '../helpers/walk-recording.ts';

const SEED = 20_240_719;
const KILLS = 4;
const T0 = 1_764_482_511_000;

function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['CAPIBOT_API_KEY'];
  delete env['CAPIBOT_API_SECRET'];
  delete env['CAPIBOT_API_PASSPHRASE'];
  return env;
}

interface Sim {
  readonly child: ChildProcess;
  readonly url: string;
}

/** Mild faults on top of the kills: lost replies (orders that exist but were never acknowledged), dup rows. */
const FAULTS = {
  faults: [
    { kind: 'responseLost', probability: 0.05, endpoints: ['placeOrder', 'batchOrders', 'cancelOrder'] },
    { kind: 'duplicateRows', probability: 0.2 },
    { kind: 'staleHistory', probability: 0.2, lagMs: 500 },
  ],
};

async function startSim(data: string, faults: string): Promise<Sim> {
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

function startRun(
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

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface WireOrder {
  readonly client_oid: string;
  readonly order_id: string;
  readonly status: string;
  readonly filled_qty: string;
}
interface WireFill {
  readonly tradeId: string;
  readonly orderId: string;
  readonly fillSize: string;
}

async function inspect<T>(url: string, path: string): Promise<T> {
  const res = await fetch(`${url}${path}`);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

describe('capibot run killed with SIGKILL at random moments (end to end)', () => {
  let dir: string;
  let sim: Sim;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-crash-'));
    writeWalkRecording(join(dir, 'market.ndjson'), {
      seed: SEED,
      t0: T0,
      polls: 900,
      stepMs: 100,
      stride: 30,
      source: 'crash-recovery test',
    });
    writeFileSync(join(dir, 'faults.json'), JSON.stringify(FAULTS));
    sim = await startSim(join(dir, 'market.ndjson'), join(dir, 'faults.json'));
  });

  afterAll(async () => {
    if (sim !== undefined) {
      const exited = once(sim.child, 'exit');
      sim.child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('restarts converge: no duplicate, no orphan, no lost or double-counted fill', async () => {
    const storePath = join(dir, 'store.sqlite');
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      [
        'mode: paper',
        'exchange:',
        `  baseUrl: ${sim.url}`,
        '  timeoutMs: 2000',
        'store:',
        `  path: ${storePath}`,
        'strategies:',
        '  - id: churn',
        `    file: ${resolve('test/fixtures/strategies/churn.ts')}`,
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
        'metrics:',
        '  enabled: false',
        'log:',
        '  level: warn',
        'shutdown:',
        '  drainDeadlineMs: 3000',
        '',
      ].join('\n'),
    );

    const rnd = lcg(SEED + 1);
    for (let i = 0; i < KILLS; i++) {
      const run = startRun(config);
      // A moment anywhere from start-up (recovery) to well into trading.
      await sleep(1_200 + Math.floor(rnd() * 3_300));
      const exited = once(run.child, 'exit');
      run.child.kill('SIGKILL');
      const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      expect(code === null ? signal : `exit ${code}: ${run.stderr()}`).toBe('SIGKILL');
    }
    const last = startRun(config, ['--duration-s', '6']);
    const [code] = (await once(last.child, 'exit')) as [number | null];
    expect(code, last.stderr()).toBe(0);

    const orders = await inspect<WireOrder[]>(sim.url, '/sim/v1/orders');
    const fills = await inspect<WireFill[]>(sim.url, '/sim/v1/fills');
    const store = new SqliteStore({ path: storePath, lease: false });
    try {
      const local = store.allOrders();
      const localFills = store.allFills();
      const byOid = new Map(local.map((o) => [o.clientOid as string, o]));

      // The run did trade: orders, fills and restarts all happened.
      expect(orders.length).toBeGreaterThan(8);
      expect(fills.length).toBeGreaterThan(3);

      const seen = new Map<string, number>();
      for (const o of orders) seen.set(o.client_oid, (seen.get(o.client_oid) ?? 0) + 1);
      expect([...seen].filter(([, n]) => n > 1)).toEqual([]);

      const problems: string[] = [];
      for (const o of orders) {
        if (!o.client_oid.startsWith('cb-')) continue;
        const l = byOid.get(o.client_oid);
        if (l === undefined) {
          problems.push(`orphan ${o.client_oid} (${o.status})`);
          continue;
        }
        if (l.orderId !== o.order_id) problems.push(`${o.client_oid}: order id ${l.orderId} ≠ ${o.order_id}`);
        const want = o.status === 'pending' ? 'open' : o.status;
        const have = l.status === 'pending' ? 'open' : l.status;
        if (want !== have) problems.push(`${o.client_oid}: store ${l.status}, exchange ${o.status}`);
        if (!l.filledQty.eq(o.filled_qty))
          problems.push(`${o.client_oid}: filled ${l.filledQty.toFixed()} ≠ ${o.filled_qty}`);
      }
      const atExchange = new Set(orders.map((o) => o.client_oid));
      for (const l of local) {
        if (atExchange.has(l.clientOid)) continue;
        if (l.orderId !== undefined || (l.status !== 'rejected' && l.status !== 'canceled')) {
          problems.push(`${l.clientOid}: ${l.status} in the store, never at the exchange`);
        }
      }
      const oidOfOrder = new Map(orders.map((o) => [o.order_id, o.client_oid]));
      const stored = new Map(localFills.map((f) => [f.tradeId as string, f]));
      expect(localFills).toHaveLength(stored.size);
      for (const f of fills) {
        const s = stored.get(f.tradeId);
        if (s === undefined) problems.push(`fill ${f.tradeId} missing from the store`);
        else if (s.clientOid !== oidOfOrder.get(f.orderId))
          problems.push(`fill ${f.tradeId} attributed to ${s.clientOid ?? 'nobody'}`);
      }
      if (stored.size !== fills.length)
        problems.push(`${stored.size} fills stored, ${fills.length} at the exchange`);
      expect(problems).toEqual([]);
    } finally {
      store.close();
    }
  }, 60_000);
});
