// End to end: `capibot kill` while `capibot run` (paper, against `capibot sim`) holds the store. The
// request goes through the runner (store + SIGUSR2): it halts, cancels every resting order at the
// simulator, acknowledges; the runner keeps running HALTED (nothing new is placed) and stops cleanly.
// A later `capibot run` on the same store starts HALTED and places nothing.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerKill } from '../../src/cli/commands/kill.ts';
import { registerStatus } from '../../src/cli/commands/status.ts';
import type { StatusReport } from '../../src/ops/status-report.ts';
import {
  getJson,
  REPO,
  runInProcess,
  simOrders,
  startCli,
  startSim,
  tempDir,
  until,
  writeConfig,
  type Running,
  type Sim,
} from '../ops/helpers.ts';
import { find, parseExposition } from './prom-text.ts';

let sim: Sim;
let run: Running;
let cfg: string;

const ours = async (): Promise<{ client_oid?: string; status: string }[]> =>
  (await simOrders(sim.url)).filter((o) => o.client_oid?.startsWith('cb-grid-'));

/** Waits for `probe`, naming the runner's stderr on a timeout. */
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs?: number): Promise<T> =>
  until(what, probe, () => run.stderr(), timeoutMs);

beforeAll(async () => {
  sim = await startSim(['--clock', 'realtime'], 'test/fixtures/recordings/wave-2sym-240s.ndjson');
  const dir = tempDir('capibot-e2e-kill-');
  cfg = writeConfig(
    dir,
    `mode: paper
exchange:
  baseUrl: ${sim.url}
paper:
  venue: http
strategies:
  - id: grid
    file: ${join(REPO, 'strategies/grid.ts')}
    params: { symbol: cmt_btcusdt, levels: 2 }
store:
  path: ${join(dir, 'store.sqlite')}
polling:
  tickersMs: 500
  fillsMs: 500
  historyMs: 1000
metrics:
  port: 0
log:
  level: info
`,
  );
  run = startCli(['run', '--config', cfg]);
  await run.waitFor(/capibot run: trading/);
});

afterAll(async () => {
  await run.stop('SIGKILL');
  await sim.proc.stop();
});

describe('capibot kill through a running capibot run', () => {
  it('halts the runner, cancels its orders at the venue, and a later run starts HALTED', async () => {
    const metricsUrl = (await run.waitFor(/metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/))[1] as string;
    await waitFor('resting grid orders', async () => {
      const open = (await ours()).filter((o) => o.status === 'open');
      return open.length > 0 ? open : undefined;
    });

    const k = await runInProcess(registerKill, [
      'kill',
      '--config',
      cfg,
      '--yes',
      '--json',
      '--timeout-s',
      '20',
    ]);
    expect(k.code, k.stderr).toBe(0);
    expect(JSON.parse(k.stdout)).toMatchObject({
      ok: true,
      via: 'runner',
      runnerPid: run.child.pid,
      signaled: true,
      acknowledged: true,
      tradingState: 'HALTED',
      stillOpen: [],
    });
    const killedAt = await ours();
    expect(killedAt.filter((o) => o.status === 'open' || o.status === 'pending')).toEqual([]);
    expect(killedAt.some((o) => o.status === 'canceled')).toBe(true);

    // Still running, HALTED: the grid's new intents are refused, nothing new reaches the venue.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(run.child.exitCode).toBeNull();
    expect((await ours()).length).toBe(killedAt.length);
    const e = parseExposition((await getJson(`${metricsUrl}/metrics`)).text);
    expect(find(e, 'capibot_trading_state', { state: 'HALTED' })[0]?.value).toBe(1);
    const st = JSON.parse(
      (await runInProcess(registerStatus, ['status', '--config', cfg, '--json'])).stdout,
    ) as StatusReport;
    expect(st).toMatchObject({
      tradingState: 'HALTED',
      openOrders: [],
      runner: { state: 'running', snapshot: { tradingState: 'HALTED' } },
      kill: { lastAck: { by: 'runner' } },
    });
    expect(st.kill.pending).toBeUndefined();

    const stopped = await run.stop('SIGTERM');
    expect(stopped.code, stopped.stderr).toBe(0);

    // A later run on the same store starts HALTED and places nothing.
    const again = startCli(['run', '--config', cfg, '--duration-s', '2']);
    const done = await again.exited;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/capibot run: trading/);
    expect((await ours()).length).toBe(killedAt.length);
  });
});
