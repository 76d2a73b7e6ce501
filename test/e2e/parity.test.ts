// Parity: one strategy over one recording (a) as a backtest — runBacktest, the code behind
// `capibot backtest`: in-process simulator, virtual time — and (b) against `capibot sim --clock
// lockstep` in a child process, through the real HTTP adapter (WeexClient), the same engine and the
// same reconciliation pollers, also on a virtual clock, driven by polling tickers (each tickers
// request advances the lockstep sim by one snapshot). Both must give the same orders and fills.
//
// Parity holds by design: one matching core (the sim's MatchingCore serves both), one seed for
// exchange ids, one engine configuration (derived from the same config the same way), and the same
// virtual timeline (a poll is handled at its recorded time `t`; the pollers' timers fire at the same
// virtual instants). The config sets executor.concurrency 1 so requests reach the venue in the order
// they were sent (with several in flight over HTTP, arrival order is up to the network).
//
// Excluded on purpose, because they legitimately differ:
// - times stamped by the venue (order createTime/updateTime, fill createdTime): the in-process sim
//   runs on the engine's virtual clock, so a request sent between two snapshots is stamped with the
//   engine's time; a lockstep sim only knows the time of the snapshot it serves. Local order times
//   (createdAt, stamped by the engine's clock) are compared: they are equal.
// - the sim's request counters and weight windows: the HTTP sim also counts the adapter's own
//   market/time requests (signature clock sync), and its weight windows run on its wall clock, which
//   a lockstep replay compresses; its limits are raised here so they never answer 429 (the engine's
//   own weight budget, on the virtual clock, shapes the requests identically on both sides).
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessConfigOf, runBacktest } from '../../src/backtest/run-backtest.ts';
import { prepareBacktest } from '../../src/backtest/prepare.ts';
import { dec } from '../../src/core/decimal.ts';
import type { RecordedPoll, Ticker } from '../../src/core/market.ts';
import type { Order } from '../../src/core/orders.ts';
import { microtasks, VirtualTime } from '../../src/engine/virtual-time.ts';
import { SIM_TEST_CREDENTIALS } from '../../src/exchange/sim/test-credentials.ts';
import { WeexClient } from '../../src/exchange/weex/client.ts';
import { engineOptions, reconcilerConfig } from '../../src/runner/options.ts';
import { createSession } from '../../src/runner/session.ts';
import type { StoredFill } from '../../src/store/port.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { harnessConfig } from '../../src/strategy/testing/session.ts';
import { startSim, type Sim } from '../ops/helpers.ts';

const CONFIG = 'test/fixtures/configs/backtest/parity.yaml';
const DATA = 'test/fixtures/recordings/wave-2sym-240s.ndjson';

function readPolls(path: string): RecordedPoll[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"t"'))
    .map((l) => JSON.parse(l) as RecordedPoll);
}

/** What must match: every order field the exchange and the engine agree on, minus venue times. */
function orderFacts(o: Order) {
  return {
    clientOid: o.clientOid,
    orderId: o.orderId ?? null,
    strategy: o.strategy,
    symbol: o.symbol,
    side: o.side,
    orderType: o.orderType,
    price: o.price?.toFixed() ?? null,
    size: o.size.toFixed(),
    status: o.status,
    filledQty: o.filledQty.toFixed(),
    createdAt: o.createdAt,
  };
}

function fillFacts(f: StoredFill) {
  return {
    tradeId: f.tradeId,
    orderId: f.orderId,
    clientOid: f.clientOid ?? null,
    symbol: f.symbol,
    size: f.size.toFixed(),
    value: f.value.toFixed(),
    price: f.value.div(f.size).toFixed(),
    fee: f.fee.toFixed(),
    realizedPnl: f.realizedPnl.toFixed(),
  };
}

interface Outcome {
  readonly orders: readonly Order[];
  readonly fills: readonly StoredFill[];
}

/** (b): the engine and the pollers over HTTP, on a virtual clock, one tickers request per poll. */
async function overHttp(url: string): Promise<Outcome> {
  const prepared = await prepareBacktest({ configPath: CONFIG, env: process.env });
  const config = harnessConfig(prepared.strategies, harnessConfigOf(prepared.config));
  const polls = readPolls(DATA);
  const log = pino({ level: 'silent' });
  const vt = new VirtualTime(polls[0]!.t);
  // The adapter signs with its clock plus the measured server offset; re-measuring every 5 virtual
  // seconds keeps the signatures within the sim's ±30 s window while virtual time runs ahead.
  const client = new WeexClient({
    baseUrl: url,
    credentials: SIM_TEST_CREDENTIALS,
    clock: vt.clock,
    serverTimeMaxAgeMs: 5_000,
    retry: { maxAttempts: 1 },
    logger: log,
  });
  const specs = new Map((await client.contracts()).map((c) => [c.symbol, c]));
  const store = new SqliteStore({ path: ':memory:', lease: false, now: () => vt.now() });
  const { engine, reconciler } = createSession({
    port: client,
    store,
    clock: vt.clock,
    scheduler: vt.scheduler,
    timers: vt.timers,
    log,
    specs,
    strategies: prepared.strategies,
    engine: engineOptions(config),
    reconcile: reconcilerConfig(config.polling),
  });
  // Settled when nothing can happen without virtual time passing (an HTTP request in flight keeps
  // the executor busy, so engine.idle() waits for its reply).
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 10_000; i++) {
      await engine.idle();
      if (!reconciler.busy) return;
      await microtasks(16);
      await engine.idle();
      if (!reconciler.busy) return;
      const x = engine.executor;
      if (x.isQuiescent() && (x.depth().reads > 0 || x.depth().retrying > 0)) return;
    }
    throw new Error('did not settle');
  };
  const until = async <T>(p: Promise<T>): Promise<T> => {
    let done = false;
    const watched = p.finally(() => (done = true));
    await settle();
    while (!done) {
      const due = vt.nextDue();
      if (due === undefined) break;
      await vt.advanceTo(due, settle);
    }
    return watched;
  };
  engine.start();
  reconciler.start();
  try {
    for (const poll of polls) {
      await vt.advanceTo(poll.t, settle);
      const tickers: readonly Ticker[] = await until(engine.executor.read('tickers', () => client.tickers()));
      engine.onTick(tickers);
      await settle();
    }
    const p = config.polling;
    await vt.advanceTo(vt.now() + 2 * Math.max(p.fillsMs, p.historyMs), settle);
    await settle();
    return { orders: store.allOrders(), fills: store.allFills() };
  } finally {
    reconciler.stop();
    engine.stop();
    engine.executor.stop();
    store.close();
    await client.close();
  }
}

describe('parity: backtest (in-process) vs capibot sim --clock lockstep over HTTP', () => {
  let sim: Sim;
  beforeAll(async () => {
    sim = await startSim(
      [
        '--clock',
        'lockstep',
        '--seed',
        '1',
        '--slippage-bps',
        '0',
        '--ip-weight',
        '1000000',
        '--uid-weight',
        '1000000',
        '--order-rate',
        '1000000',
      ],
      DATA,
    );
  });
  afterAll(async () => {
    await sim.proc.stop('SIGTERM');
  });

  it('gives the same orders and fills', async () => {
    const backtest = await runBacktest({
      ...(await prepareBacktest({ configPath: CONFIG, env: process.env })),
      allOrders: true,
    });
    const http = await overHttp(sim.url);

    // The run exercised every path: resting orders filled and canceled, takers, IOC closes.
    const statuses = new Set(backtest.orders.map((o) => `${o.orderType}:${o.status}`));
    for (const s of ['postOnly:filled', 'postOnly:canceled', 'normal:filled', 'ioc:filled'])
      expect(statuses).toContain(s);
    expect(backtest.fills.length).toBeGreaterThan(30);

    expect(http.orders.map(orderFacts)).toEqual(backtest.orders.map(orderFacts));
    expect(http.fills.map(fillFacts)).toEqual(backtest.fills.map(fillFacts));

    // The venue's own records agree with the engine's (client_oid, status, filled size).
    const venue = (await (await fetch(`${sim.url}/sim/v1/orders`)).json()) as {
      client_oid: string;
      status: string;
      filled_qty: string;
    }[];
    const byOid = new Map(venue.map((o) => [o.client_oid, o]));
    for (const o of backtest.orders) {
      expect(dec(byOid.get(o.clientOid)?.filled_qty ?? '-1').eq(o.filledQty), o.clientOid).toBe(true);
    }
    expect(venue.length).toBe(backtest.orders.length);
  });
});
