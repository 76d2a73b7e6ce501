// `capibot status` on a store built here: open orders, positions and PnL folded from the fills, the
// trading state, the last reconciliation, the runner's snapshot — with and without a lease holder.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerStatus } from '../../src/cli/commands/status.ts';
import { dec } from '../../src/core/decimal.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../../src/core/ids.ts';
import type { Order, OrderStatus } from '../../src/core/orders.ts';
import { CONTROL_META, type RunnerSnapshot } from '../../src/ops/control-protocol.ts';
import { runnerInfo } from '../../src/ops/lease-info.ts';
import type { StatusReport } from '../../src/ops/status-report.ts';
import type { StoredFill } from '../../src/store/port.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { IDLE_STRATEGY, runInProcess, tempDir, writeConfig } from './helpers.ts';

const BTC = symbolId('cmt_btcusdt');
const T0 = 1_700_000_000_000;

function order(n: number, status: OrderStatus, over: Partial<Order> = {}): Order {
  return {
    clientOid: clientOid(`cb-g-${n}`),
    orderId: orderId(String(9000 + n)),
    strategy: strategyId('g'),
    symbol: BTC,
    side: 'open_long',
    orderType: 'normal',
    price: dec('60000'),
    size: dec('0.01'),
    status,
    filledQty: dec(0),
    createdAt: T0 + n,
    updatedAt: T0 + n,
    ...over,
  };
}

function fill(id: string, over: Partial<StoredFill>): StoredFill {
  return {
    tradeId: tradeId(id),
    orderId: orderId('9002'),
    symbol: BTC,
    positionSide: 'LONG',
    orderSide: 'BUY',
    direction: 'OPEN_LONG',
    size: dec('0.02'),
    value: dec('1200'),
    fee: dec('0.24'),
    realizedPnl: dec(0),
    createdTime: T0 + 10,
    ...over,
  };
}

/** A store as a runner would leave it: one order resting, one filled and partly closed. */
function buildStore(path: string): void {
  const s = new SqliteStore({ path, lease: { heartbeatMs: 0 } });
  s.insertOrder(order(1, 'open'));
  s.insertOrder(order(2, 'filled', { size: dec('0.02'), filledQty: dec('0.02') }));
  s.insertOrder(order(3, 'filled', { side: 'close_long', size: dec('0.01'), filledQty: dec('0.01') }));
  s.insertOrder(order(4, 'canceled'));
  s.recordFill({ ...fill('t1', {}), clientOid: clientOid('cb-g-2') });
  s.recordFill({
    ...fill('t2', {
      orderId: orderId('9003'),
      orderSide: 'SELL',
      direction: 'CLOSE_LONG',
      size: dec('0.01'),
      value: dec('610'),
      fee: dec('0.122'),
      createdTime: T0 + 20,
    }),
    clientOid: clientOid('cb-g-3'),
  });
  // A fill of an order not (yet) known: counted, unattributed.
  s.recordFill(
    fill('t3', { orderId: orderId('777'), size: dec('0.005'), value: dec('300'), fee: dec('0.06') }),
  );
  s.setMeta('reconcile.lastAt', String(T0 + 30));
  s.close();
}

function configFor(dir: string, storePath: string): string {
  return writeConfig(
    dir,
    `mode: paper
strategies:
  - id: g
    file: ${IDLE_STRATEGY}
store:
  path: ${storePath}
`,
  );
}

async function statusJson(cfg: string): Promise<StatusReport> {
  const r = await runInProcess(registerStatus, ['status', '--config', cfg, '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as StatusReport;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe('capibot status', () => {
  it('shows open orders, positions and PnL from the stored fills when no runner is up', async () => {
    const dir = tempDir();
    const storePath = join(dir, 'store.sqlite');
    buildStore(storePath);
    const s = await statusJson(configFor(dir, storePath));

    expect(s.runner).toEqual({ state: 'none' });
    expect(s.tradingState).toBe('ACTIVE');
    expect(s.lastReconciledAt).toBe(T0 + 30);
    expect(s.openOrders.map((o) => [o.clientOid, o.status, o.price, o.orderId])).toEqual([
      ['cb-g-1', 'open', '60000', '9001'],
    ]);
    expect(s.ordersByStatus).toEqual({ open: 1, filled: 2, canceled: 1 });
    // Bought 0.02 for 1200 (entry 60000), sold 0.01 for 610: realised 610 − 600 = 10.
    expect(s.positions).toEqual([
      {
        strategy: null,
        symbol: 'cmt_btcusdt',
        leg: 'long',
        qty: '0.005',
        avgEntry: '60000',
        realizedPnl: '0',
        fees: '0.06',
        volume: '300',
        fills: 1,
      },
      {
        strategy: 'g',
        symbol: 'cmt_btcusdt',
        leg: 'long',
        qty: '0.01',
        avgEntry: '60000',
        realizedPnl: '10',
        fees: '0.362',
        volume: '1810',
        fills: 2,
      },
    ]);
    expect(s.pnl).toEqual({
      realizedPnl: '10',
      fees: '0.422',
      realizedNet: '9.578',
      volume: '2110',
      fills: 3,
    });
    expect(s.kill).toEqual({});
    expect(s.planOrders).toEqual({ total: 0, untriggered: 0, resting: 0, protective: 0 });
  });

  it('counts our plan orders resting at the venue, the protective ones apart, and shows their trigger', async () => {
    const dir = tempDir();
    const storePath = join(dir, 'store.sqlite');
    buildStore(storePath);
    const st = new SqliteStore({ path: storePath, lease: { heartbeatMs: 0 } });
    st.insertOrder(
      order(5, 'untriggered', { side: 'close_long', triggerPrice: dec('58000'), tag: 'stop-loss' }),
    );
    st.insertOrder(order(6, 'untriggered', { triggerPrice: dec('61000') }));
    st.close();
    const s = await statusJson(configFor(dir, storePath));
    expect(s.planOrders).toMatchObject({ resting: 2, protective: 1 });
    expect(s.openOrders.map((o) => [o.clientOid, o.triggerPrice])).toEqual([
      ['cb-g-1', null],
      ['cb-g-5', '58000'],
      ['cb-g-6', '61000'],
    ]);
    const text = await runInProcess(registerStatus, ['status', '--config', configFor(dir, storePath)]);
    expect(text.stdout).toMatch(
      /Plan orders \(ours\)\s+2 resting at the venue until triggered, 1 of them stops\/targets/,
    );
    expect(text.stdout).toContain('plan @58000');
  });

  it('names the runner holding the lease (pid, heartbeat age) and shows its snapshot', async () => {
    const dir = tempDir();
    const storePath = join(dir, 'store.sqlite');
    buildStore(storePath);
    // A live process of this host stands in for the runner: its pid holds the lease.
    const stand = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    children.push(stand);
    const pid = stand.pid as number;
    const runner = new SqliteStore({ path: storePath, lease: { pid, heartbeatMs: 0 } });
    const snapshot: RunnerSnapshot = {
      at: Date.now(),
      pid,
      tradingState: 'ACTIVE',
      budget: {
        ip: { used: 120, limit: 900, remaining: 780 },
        uid: { used: 40, limit: 900, remaining: 860 },
        orderRate: { used: 1, limit: 10, remaining: 9 },
        backoffMs: 0,
      },
      queue: { staged: 0, placements: 0, cancels: 0, reads: 1, inFlight: 0, retrying: 0 },
      pnl: { realized: '10', unrealized: '2.5', fees: '0.422', net: '12.078' },
      openOrders: 1,
    };
    runner.setMeta(CONTROL_META.snapshot, JSON.stringify(snapshot));
    try {
      const cfg = configFor(dir, storePath);
      const s = await statusJson(cfg);
      expect(s.runner).toMatchObject({
        state: 'running',
        pid,
        sameHost: true,
        snapshot: { pnl: snapshot.pnl },
      });
      expect(s.runner.heartbeatAgeMs).toBeGreaterThanOrEqual(0);
      // Still the same picture of orders while the runner holds the store.
      expect(s.openOrders).toHaveLength(1);

      const text = await runInProcess(registerStatus, ['status', '--config', cfg]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(`running: pid ${pid}`);
      expect(text.stdout).toMatch(/Weight budget\s+IP 120\/900 \(780 left\)/);
      expect(text.stdout).toMatch(/CLIENT_OID\s+ORDER_ID\s+STRATEGY/);
      expect(text.stdout).toMatch(/cb-g-1\s+9001\s+g\s+cmt_btcusdt\s+open_long/);
    } finally {
      stand.kill('SIGKILL');
      await once(stand, 'exit');
    }
    // The holder is gone: the lease is stale (the next run takes it over), its snapshot is still shown.
    const after = await statusJson(configFor(dir, storePath));
    expect(after.runner.state).toBe('stale');
    runner.close();
  });

  it('refuses a store that does not exist instead of creating one (exit 1)', async () => {
    const dir = tempDir();
    const r = await runInProcess(registerStatus, [
      'status',
      '--config',
      configFor(dir, join(dir, 'none.sqlite')),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no store at .*none\.sqlite/);
  });

  it('judges leases like the store does: other host by heartbeat age, other boot as stale', () => {
    const holder = {
      token: 't',
      pid: 4242,
      hostname: 'elsewhere',
      bootId: 'b1',
      acquiredAt: 0,
      heartbeatAt: 1_000,
    };
    const probe = { hostname: 'here', bootId: 'b1', isPidAlive: () => true };
    expect(runnerInfo(holder, { ...probe, now: 30_000 }).state).toBe('running');
    expect(runnerInfo(holder, { ...probe, now: 120_000 }).state).toBe('stale');
    const local = { ...holder, hostname: 'here' };
    expect(runnerInfo(local, { ...probe, now: 120_000 }).state).toBe('running');
    expect(runnerInfo(local, { ...probe, now: 1, isPidAlive: () => false }).state).toBe('stale');
    expect(runnerInfo({ ...local, bootId: 'b0' }, { ...probe, now: 1 }).state).toBe('stale');
    expect(runnerInfo(undefined, { ...probe, now: 1 })).toEqual({ state: 'none' });
  });
});
