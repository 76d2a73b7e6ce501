// End to end: `capibot run` in paper mode against `capibot sim` (both child processes) for a few
// seconds. /health and /ready answer, /metrics parses as Prometheus text with the documented families,
// `capibot status` sees the runner, and SIGTERM gives a clean exit 0 with every open order canceled
// (shutdown.cancelOpenOrders: true).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerStatus } from '../../src/cli/commands/status.ts';
import type { StatusReport } from '../../src/ops/status-report.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
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

const WAVE = 'test/fixtures/recordings/wave-2sym-240s.ndjson';

let sim: Sim;
let run: Running;
let metricsUrl: string;
let cfg: string;
let storePath: string;

/** Waits for `probe`, naming the runner's stderr on a timeout. */
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs?: number): Promise<T> =>
  until(what, probe, () => run.stderr(), timeoutMs);

beforeAll(async () => {
  sim = await startSim(['--clock', 'realtime'], WAVE);
  const dir = tempDir('capibot-e2e-');
  storePath = join(dir, 'store.sqlite');
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
    params:
      symbol: cmt_btcusdt
      levels: 2
store:
  path: ${storePath}
polling:
  tickersMs: 500
  fillsMs: 500
  historyMs: 1000
metrics:
  port: 0
shutdown:
  cancelOpenOrders: true
log:
  level: info
`,
  );
  run = startCli(['run', '--config', cfg]);
  const m = await run.waitFor(/metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/);
  metricsUrl = m[1] as string;
  await run.waitFor(/capibot run: trading/);
});

afterAll(async () => {
  await run.stop('SIGKILL');
  await sim.proc.stop();
});

describe('capibot run (paper, against capibot sim)', () => {
  it('serves /health, /ready and /metrics while trading, then stops cleanly on SIGTERM', async () => {
    expect((await getJson(`${metricsUrl}/health`)).status).toBe(200);
    await waitFor('/ready', async () =>
      (await getJson(`${metricsUrl}/ready`)).status === 200 ? true : undefined,
    );
    expect((await getJson(`${metricsUrl}/ready`)).json).toEqual({ ready: true });

    // The grid rests orders at the simulator.
    await waitFor('resting grid orders', async () => {
      const open = (await simOrders(sim.url)).filter(
        (o) => o.status === 'open' && o.client_oid?.startsWith('cb-grid-'),
      );
      return open.length > 0 ? open : undefined;
    });

    const scrape = await getJson(`${metricsUrl}/metrics`);
    expect(scrape.status).toBe(200);
    const e = parseExposition(scrape.text);
    for (const [name, type] of [
      ['capibot_budget_used', 'gauge'],
      ['capibot_budget_remaining', 'gauge'],
      ['capibot_requests_total', 'counter'],
      ['capibot_rate_limited_total', 'counter'],
      ['capibot_request_duration_seconds', 'histogram'],
      ['capibot_queue_depth', 'gauge'],
      ['capibot_intents_total', 'counter'],
      ['capibot_orders', 'gauge'],
      ['capibot_orders_unknown', 'gauge'],
      ['capibot_reconcile_corrections_total', 'counter'],
      ['capibot_last_reconcile_timestamp_seconds', 'gauge'],
      ['capibot_fills_total', 'counter'],
      ['capibot_trading_state', 'gauge'],
      ['capibot_ticker_age_seconds', 'gauge'],
    ] as const) {
      expect(e.types.get(name), name).toBe(type);
    }
    for (const pool of ['ip', 'uid']) {
      const used = find(e, 'capibot_budget_used', { pool })[0]?.value;
      const left = find(e, 'capibot_budget_remaining', { pool })[0]?.value;
      expect(used, pool).toBeGreaterThan(0);
      expect(left, pool).toBeGreaterThanOrEqual(0);
    }
    const tickers = find(e, 'capibot_requests_total', { endpoint: 'tickers', status: '200' })[0]?.value ?? 0;
    expect(tickers).toBeGreaterThan(0);
    expect(
      find(e, 'capibot_requests_total', { endpoint: 'batchOrders' }).length +
        find(e, 'capibot_requests_total', { endpoint: 'placeOrder' }).length,
    ).toBeGreaterThan(0);
    expect(find(e, 'capibot_trading_state', { state: 'ACTIVE' })[0]?.value).toBe(1);

    // `capibot status` reads the store while the runner holds it.
    const st = await runInProcess(registerStatus, ['status', '--config', cfg, '--json']);
    expect(st.code).toBe(0);
    const status = JSON.parse(st.stdout) as StatusReport;
    expect(status.runner).toMatchObject({ state: 'running', pid: run.child.pid });
    expect(status.tradingState).toBe('ACTIVE');
    expect(status.lastReconciledAt).not.toBeNull();

    const done = await run.stop('SIGTERM');
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/capibot run: stopped \(SIGTERM\); 0 order\(s\) left open/);

    const atVenue = (await simOrders(sim.url)).filter((o) => o.client_oid?.startsWith('cb-grid-'));
    expect(atVenue.length).toBeGreaterThan(0);
    expect(atVenue.filter((o) => o.status === 'open' || o.status === 'pending')).toEqual([]);
    expect(atVenue.some((o) => o.status === 'canceled')).toBe(true);
    const store = new SqliteStore({ path: storePath, lease: false });
    try {
      expect(store.openOrders()).toEqual([]);
    } finally {
      store.close();
    }
  });
});
