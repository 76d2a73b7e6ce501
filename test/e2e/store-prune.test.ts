// End to end: `capibot store prune` on the store of a real paper run. `capibot run` trades the churn
// strategy against `capibot sim --clock realtime` (recorded time × 1200, a year in the past: the
// store lives in the venue's clock), then the store is pruned halfway through its history. The
// prune must count what a dry run counted, remove no open order, keep every position and the
// realised PnL and fees exactly (`capibot status` before and after), and refuse to run while a
// runner holds the store. A second run on the same store against the same simulator then recovers
// and trades: none of the pruned orders comes back (adopted from order history), and the positions
// folded from the store still equal the simulator's.
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerStatus } from '../../src/cli/commands/status.ts';
import { isTerminal } from '../../src/core/orders.ts';
import type { StatusReport } from '../../src/ops/status-report.ts';
import type { PruneStoreOutput } from '../../src/ops/prune.ts';
import { isCarryOrder } from '../../src/store/carry.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import {
  getJson,
  runCli,
  runInProcess,
  startCli,
  startSim,
  tempDir,
  writeConfig,
  type Sim,
} from '../ops/helpers.ts';
import { writeWalkRecording } from '../helpers/walk-recording.ts';

const T0 = Date.now() - 365 * 86_400_000;
const STEP_MS = 10_000;
const POLLS = 6 * 360; // six hours of recorded time

interface SimLeg {
  readonly qty: string;
}

async function status(cfg: string): Promise<StatusReport> {
  const r = await runInProcess(registerStatus, ['status', '--config', cfg, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusReport;
}

/** Positions as `capibot status` folds them: per leg, what a prune must keep. */
const legs = (s: StatusReport) =>
  Object.fromEntries(
    s.positions.map((p) => [
      `${p.strategy}|${p.symbol}|${p.leg}`,
      [p.qty, p.avgEntry, p.realizedPnl, p.fees],
    ]),
  );

let sim: Sim;
let cfg: string;
let storePath: string;

beforeAll(async () => {
  const dir = tempDir('capibot-prune-');
  const data = join(dir, 'market.ndjson');
  writeWalkRecording(data, {
    seed: 7,
    t0: T0,
    polls: POLLS,
    stepMs: STEP_MS,
    stride: 40,
    source: 'store-prune test',
  });
  sim = await startSim(
    ['--clock', 'realtime', '--speed', '1200', '--ip-weight', '5000', '--uid-weight', '5000'],
    data,
  );
  storePath = join(dir, 'store.sqlite');
  cfg = writeConfig(
    dir,
    [
      'mode: paper',
      'exchange:',
      `  baseUrl: ${sim.url}`,
      'paper:',
      '  venue: http',
      'strategies:',
      '  - id: churn',
      `    file: ${resolve('test/fixtures/strategies/churn.ts')}`,
      'store:',
      `  path: ${storePath}`,
      'orders:',
      '  cancelOnExit: true',
      'budget:',
      '  ipWeightPerWindow: 5000',
      '  uidWeightPerWindow: 5000',
      'polling:',
      '  tickersMs: 300',
      '  fillsMs: 400',
      '  historyMs: 600',
      '  staleAfterMs: 5000',
      'metrics:',
      '  enabled: false',
      'log:',
      '  level: warn',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await sim?.proc.stop();
});

describe('capibot store prune (end to end)', () => {
  it('prunes a real run’s store; status, positions and a later recovery are unchanged', async () => {
    const first = await runCli(['run', '--config', cfg, '--duration-s', '8']);
    expect(first.code, first.stderr).toBe(0);

    const store = new SqliteStore({ path: storePath, lease: false });
    const ordersBefore = store.allOrders();
    store.close();
    expect(ordersBefore.every((o) => isTerminal(o.status))).toBe(true);
    const times = ordersBefore.map((o) => o.updatedAt);
    const [t0, t1] = [Math.min(...times), Math.max(...times)];
    expect(t1 - t0, 'the run spans hours of venue time').toBeGreaterThan(2 * 3_600_000);
    const before = Math.round(t0 + (t1 - t0) * 0.4);

    const statusBefore = await status(cfg);
    const simLegs = (await getJson(`${sim.url}/sim/v1/positions`)).json as { long: SimLeg; short: SimLeg }[];
    expect(statusBefore.positions.find((p) => p.leg === 'long')?.qty ?? '0').toBe(
      simLegs[0]?.long.qty ?? '0',
    );

    const prune = (...flags: string[]) =>
      runCli(['store', 'prune', '--config', cfg, '--before', String(before), ...flags]);
    const dry = await prune('--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    const planned = JSON.parse(dry.stdout) as PruneStoreOutput;
    expect(planned.orders).toBeGreaterThan(5);
    expect(planned.fills).toBeGreaterThan(0);

    const real = await prune('--json');
    expect(real.code, real.stderr).toBe(0);
    const done = JSON.parse(real.stdout) as PruneStoreOutput;
    const counts = (r: PruneStoreOutput) => ({
      ...r,
      dryRun: undefined,
      bytesBefore: undefined,
      bytesAfter: undefined,
    });
    expect(counts(done)).toEqual(counts(planned));

    const after = new SqliteStore({ path: storePath, lease: false });
    const kept = after.allOrders();
    after.close();
    const gone = ordersBefore.filter((o) => !kept.some((k) => k.clientOid === o.clientOid));
    expect(gone).toHaveLength(done.orders);
    expect(gone.every((o) => isTerminal(o.status) && o.updatedAt < before)).toBe(true);

    const statusAfter = await status(cfg);
    expect(legs(statusAfter)).toEqual(legs(statusBefore));
    expect(statusAfter.pnl.realizedPnl).toBe(statusBefore.pnl.realizedPnl);
    expect(statusAfter.pnl.fees).toBe(statusBefore.pnl.fees);
    expect(statusAfter.lastPrune).toMatchObject({ before, orders: done.orders, fills: done.fills });
    const count = (s: StatusReport) => Object.values(s.ordersByStatus).reduce((a, n) => a + (n ?? 0), 0);
    expect(count(statusAfter)).toBe(count(statusBefore) - done.orders);

    // A second run recovers on the pruned store and trades; a prune is refused while it runs.
    const second = startCli(['run', '--config', cfg, '--duration-s', '6']);
    await second.waitFor(/capibot run: trading/);
    const refused = await prune();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/a runner holds .* stop it before pruning/);
    const dryWhileRunning = await prune('--dry-run');
    expect(dryWhileRunning.code, dryWhileRunning.stderr).toBe(0);
    const end = await second.exited;
    expect(end.code, end.stderr).toBe(0);

    const last = new SqliteStore({ path: storePath, lease: false });
    try {
      const now = new Set(last.allOrders().map((o) => o.clientOid as string));
      expect(gone.filter((o) => now.has(o.clientOid))).toEqual([]);
      expect(last.allOrders().filter(isCarryOrder).length).toBe(done.carriedLegs);
    } finally {
      last.close();
    }
    const finalStatus = await status(cfg);
    const finalSim = (await getJson(`${sim.url}/sim/v1/positions`)).json as { long: SimLeg; short: SimLeg }[];
    const leg = (l: 'long' | 'short') => finalStatus.positions.find((p) => p.leg === l)?.qty ?? '0';
    expect(leg('long')).toBe(finalSim[0]?.long.qty ?? '0');
    expect(leg('short')).toBe(finalSim[0]?.short.qty ?? '0');
  }, 90_000);
});
