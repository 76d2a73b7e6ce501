// `capibot kill` with no runner up, against `capibot sim` (child processes): orders resting at the
// exchange — one the store knows, one it lost (adopted by its client_oid prefix) — end canceled at
// /sim/v1/orders, and the store says HALTED, so a later `capibot run` starts HALTED.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerKill } from '../../src/cli/commands/kill.ts';
import { registerStatus } from '../../src/cli/commands/status.ts';
import { dec } from '../../src/core/decimal.ts';
import { clientOid, orderId, strategyId, symbolId } from '../../src/core/ids.ts';
import { SIM_TEST_CREDENTIALS } from '../../src/exchange/sim/test-credentials.ts';
import { WeexClient } from '../../src/exchange/weex/client.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import {
  IDLE_STRATEGY,
  runCli,
  runInProcess,
  simOrders,
  startSim,
  tempDir,
  writeConfig,
  type Sim,
} from './helpers.ts';

const BTC = symbolId('cmt_btcusdt');

let sim: Sim;
let client: WeexClient;

beforeAll(async () => {
  sim = await startSim(['--seed', '11']);
  client = new WeexClient({ baseUrl: sim.url, credentials: SIM_TEST_CREDENTIALS });
});

afterAll(async () => {
  await client.close();
  await sim.proc.stop();
});

function config(dir: string, storePath: string): string {
  return writeConfig(
    dir,
    `mode: paper
exchange:
  baseUrl: ${sim.url}
paper:
  venue: http
strategies:
  - id: g
    file: ${IDLE_STRATEGY}
store:
  path: ${storePath}
polling:
  unknownGraceMs: 60000
metrics:
  enabled: false
log:
  level: warn
`,
  );
}

async function placeResting(oid: string): Promise<string> {
  const [t] = (await client.tickers()).filter((x) => x.symbol === BTC);
  if (t === undefined) throw new Error('no BTC ticker');
  const price = t.bestBid.times('0.98').round(1, 0);
  const out = await client.placeOrder(BTC, {
    clientOid: clientOid(oid),
    side: 'open_long',
    orderType: 'normal',
    size: dec('0.001'),
    price,
  });
  if (out.outcome !== 'accepted') throw new Error(`not accepted: ${JSON.stringify(out)}`);
  return out.orderId;
}

describe('capibot kill (no runner)', () => {
  it('cancels every open order at the venue, adopts the one the store lacked, and leaves the store HALTED', async () => {
    const dir = tempDir();
    const storePath = join(dir, 'store.sqlite');
    const cfg = config(dir, storePath);

    // One order the store knows (as a runner would have left it) and one it lost.
    const known = await placeResting('cb-g-1');
    await placeResting('cb-g-2');
    const venueNow = await client.serverTime();
    const store = new SqliteStore({ path: storePath, lease: { heartbeatMs: 0 } });
    store.bumpSequence(strategyId('g'), 1);
    store.insertOrder({
      clientOid: clientOid('cb-g-1'),
      orderId: orderId(known),
      strategy: strategyId('g'),
      symbol: BTC,
      side: 'open_long',
      orderType: 'normal',
      price: dec('1'),
      size: dec('0.001'),
      status: 'open',
      filledQty: dec(0),
      createdAt: venueNow - 1_000,
      updatedAt: venueNow - 1_000,
    });
    store.close();
    expect((await simOrders(sim.url)).filter((o) => o.status === 'open')).toHaveLength(2);

    const r = await runCli(['kill', '--config', cfg, '--yes', '--json', '--timeout-s', '15']);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ ok: true, via: 'direct', venue: 'paper-http', tradingState: 'HALTED' });
    expect(out['adopted']).toBe(1);
    expect(out['stillOpen']).toEqual([]);

    const atVenue = await simOrders(sim.url);
    for (const oid of ['cb-g-1', 'cb-g-2']) {
      expect(atVenue.find((o) => o.client_oid === oid)?.status).toBe('canceled');
    }
    const after = new SqliteStore({ path: storePath, lease: false });
    try {
      expect(after.getMeta('tradingState')).toBe('HALTED');
      expect(after.openOrders()).toEqual([]);
      expect(after.getOrder(clientOid('cb-g-2'))?.status).toBe('canceled');
    } finally {
      after.close();
    }

    // `status` shows it, with no runner.
    const s = await runInProcess(registerStatus, ['status', '--config', cfg, '--json']);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({
      tradingState: 'HALTED',
      openOrders: [],
      runner: { state: 'none' },
    });

    // `kill --reset` is the way back.
    const reset = await runInProcess(registerKill, ['kill', '--config', cfg, '--reset', '--yes']);
    expect(reset.code).toBe(0);
    const again = new SqliteStore({ path: storePath, lease: false });
    expect(again.getMeta('tradingState')).toBe('ACTIVE');
    again.close();
  });

  it('refuses without --yes when not on a terminal (exit 2) and does nothing', async () => {
    const dir = tempDir();
    const cfg = config(dir, join(dir, 'store.sqlite'));
    const r = await runInProcess(registerKill, ['kill', '--config', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
  });
});
