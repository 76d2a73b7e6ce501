// End to end over HTTP: the engine drives `capibot sim --clock lockstep` (a child process) through
// the real capi/v2 client and the SQLite store. A strategy's intents become exchange orders with the
// expected client_oids, batched (≤ 20 per batchOrders), with zero 429s.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import pino from 'pino';
import { asyncScheduler } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.ts';
import { SIM_TEST_CREDENTIALS } from '../../src/exchange/sim/test-credentials.ts';
import { WeexClient } from '../../src/exchange/weex/client.ts';
import { riskLimits } from '../../src/risk/limits.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { inlineStrategy } from '../helpers/engine-harness.ts';
import { BTC, ETH } from '../helpers/market.ts';

const FIXTURE = 'test/fixtures/recordings/sim-small.ndjson';
const POLLS = 12;

interface SimProcess {
  readonly child: ChildProcess;
  readonly url: string;
}

async function startSim(): Promise<SimProcess> {
  const env = { ...process.env };
  delete env['CAPIBOT_API_KEY'];
  delete env['CAPIBOT_API_SECRET'];
  delete env['CAPIBOT_API_PASSPHRASE'];
  const child = spawn(
    process.execPath,
    ['bin/capibot.js', 'sim', '--data', FIXTURE, '--port', '0', '--clock', 'lockstep'],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const rl = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    rl.on('line', (line) => {
      const m = /^sim listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`sim exited early (${code}): ${err}`)));
  });
  return { child, url };
}

async function inspect<T>(url: string, path: string): Promise<T> {
  const res = await fetch(`${url}${path}`);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

describe('engine over HTTP against capibot sim --clock lockstep', () => {
  let sim: SimProcess;
  beforeAll(async () => {
    sim = await startSim();
  });
  afterAll(async () => {
    const exited = once(sim.child, 'exit');
    sim.child.kill('SIGTERM');
    await exited;
  });

  it('places batched orders with the expected client_oids and meets no 429', async () => {
    const log = pino({ level: 'silent' });
    const clock = { now: () => Date.now() };
    const client = new WeexClient({
      baseUrl: sim.url,
      credentials: SIM_TEST_CREDENTIALS,
      clock,
      logger: log,
    });
    const specs = new Map((await client.contracts()).map((c) => [c.symbol, c]));
    let tick = 0;
    // First poll: 25 bids per symbol about 1% under the market (they rest). Last poll: cancel them all.
    const quoter = inlineStrategy(
      'quoter',
      (ctx) => ({
        onTicker: (t) => {
          if (t.symbol === BTC) tick++;
          if (tick === POLLS) return ctx.cancelAll(t.symbol);
          if (tick !== 1) return [];
          const spec = ctx.spec(t.symbol);
          return Array.from({ length: 25 }, (_, i) =>
            ctx.place({
              symbol: t.symbol,
              side: 'open_long',
              size: spec.minSize,
              price: ctx.roundPrice(t.symbol, t.bestBid.times('0.99').minus(spec.priceTick.times(i)), 'down'),
            }),
          );
        },
      }),
      [BTC, ETH],
    );
    const store = new SqliteStore({ path: ':memory:', lease: false, logger: log });
    const engine = createEngine({
      port: client,
      store,
      clock,
      scheduler: asyncScheduler,
      log,
      specs,
      strategies: [{ id: 'e2e', definition: quoter }],
      options: {
        clientOidPrefix: 'cb',
        riskLimits: riskLimits({ maxOpenOrders: 200, maxOrderNotional: '100000' }),
      },
    });
    engine.start();
    for (let i = 0; i < POLLS; i++) {
      // Each tickers poll advances the lockstep simulator by one snapshot; it goes through the budget too.
      const tickers = await engine.executor.read('tickers', () => client.tickers());
      engine.onTick(tickers);
      await engine.idle();
    }
    await engine.shutdown(30_000);

    const orders = await inspect<{ client_oid: string; status: string }[]>(sim.url, '/sim/v1/orders');
    const expected = Array.from({ length: 50 }, (_, i) => `cb-e2e-${(i + 1).toString(36)}`);
    expect(orders.map((o) => o.client_oid).sort()).toEqual([...expected].sort());
    expect(orders.every((o) => o.status === 'canceled')).toBe(true);
    const stats = await inspect<{ responses429: number; requests: { byEndpoint: Record<string, number> } }>(
      sim.url,
      '/sim/v1/stats',
    );
    expect(stats.responses429).toBe(0);
    expect(stats.requests.byEndpoint['batchOrders']).toBe(4);
    expect(engine.metrics()).toMatchObject({
      batchCalls: 4,
      batchEntries: 50,
      ordersAccepted: 50,
      cancelsRequested: 50,
      // The venue took every cancel (`result: true`), which does not end an order: each stays
      // `canceling` until order history confirms it, and no reconciliation runs in this test.
      ordersCanceled: 0,
    });
    for (const id of expected) expect(store.getOrder(id as never)?.status).toBe('canceling');
    store.close();
  });
});
