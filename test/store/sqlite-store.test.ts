import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { StoreError } from '../../src/core/errors.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../../src/core/ids.ts';
import type { Order } from '../../src/core/orders.ts';
import { currentBootId, currentHostname } from '../../src/store/lease.ts';
import { MIGRATIONS } from '../../src/store/migrations.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import type { StoredFill } from '../../src/store/port.ts';

const S1 = strategyId('grid');
const BTC = symbolId('cmt_btcusdt');

function order(n: number, over: Partial<Order> = {}): Order {
  return {
    clientOid: clientOid(`cb-grid-${n}`),
    strategy: S1,
    symbol: BTC,
    side: 'open_long',
    orderType: 'normal',
    price: dec('64123.123456789012345678'),
    size: dec('0.000123456789'),
    status: 'created',
    filledQty: dec('0'),
    createdAt: 1_700_000_000_000 + n,
    updatedAt: 1_700_000_000_000 + n,
    ...over,
  };
}

function fill(id: string, over: Partial<StoredFill> = {}): StoredFill {
  return {
    tradeId: tradeId(id),
    orderId: orderId('987654321098765432'),
    symbol: BTC,
    positionSide: 'LONG',
    orderSide: 'BUY',
    direction: 'OPEN_LONG',
    size: dec('0.001'),
    value: dec('64.123456789'),
    fee: dec('0.0384740740734'),
    realizedPnl: dec('-0.000000000000000001'),
    createdTime: 1_700_000_000_500,
    ...over,
  };
}

let dir: string;
const open: SqliteStore[] = [];
function openStore(path: string, extra: Partial<ConstructorParameters<typeof SqliteStore>[0] & object> = {}) {
  const s = new SqliteStore({ path, lease: { heartbeatMs: 0 }, ...extra });
  open.push(s);
  return s;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'capibot-store-'));
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteStore round trip', () => {
  it('keeps decimals and 18-digit ids exact', () => {
    const s = openStore(':memory:');
    const o = order(1, {
      orderId: orderId('123456789012345678'),
      avgPrice: dec('64000.00000000000000001'),
      fillsQty: dec('0.0001'),
      fillsValue: dec('6.400000000000000001'),
      tag: 'grid-3',
    });
    s.insertOrder(o);
    const back = s.getOrder(o.clientOid)!;
    expect(back.orderId).toBe('123456789012345678');
    expect(back.price!.toFixed()).toBe('64123.123456789012345678');
    expect(back.size.toFixed()).toBe('0.000123456789');
    expect(back.avgPrice!.toFixed()).toBe('64000.00000000000000001');
    expect(back.tag).toBe('grid-3');
    expect(back).toEqual(o);
    expect(s.getOrderByOrderId(orderId('123456789012345678'))).toEqual(o);

    const f = fill('999999999999999999', { clientOid: o.clientOid });
    expect(s.recordFill(f)).toBe(true);
    const [stored] = s.allFills();
    expect(stored).toEqual(f);
    expect(stored!.realizedPnl.toFixed()).toBe('-0.000000000000000001');
  });

  it('stores decimals as TEXT, never REAL', () => {
    const path = join(dir, 'types.sqlite');
    const s = openStore(path);
    s.insertOrder(order(1));
    s.recordFill(fill('1'));
    s.close();
    const db = new Database(path, { readonly: true });
    const types = db
      .prepare('SELECT typeof(price) p, typeof(size) s, typeof(filled_qty) q FROM orders')
      .get();
    const ftypes = db
      .prepare('SELECT typeof(trade_id) t, typeof(order_id) o, typeof(fee) f FROM fills')
      .get();
    db.close();
    expect(types).toEqual({ p: 'text', s: 'text', q: 'text' });
    expect(ftypes).toEqual({ t: 'text', o: 'text', f: 'text' });
  });

  it('refuses a second insert of the same client_oid', () => {
    const s = openStore(':memory:');
    s.insertOrder(order(1));
    expect(() => s.insertOrder(order(1))).toThrow(StoreError);
    expect(() => s.insertOrder(order(1))).toThrow(/never reused/);
  });

  it('updates an order and lists open ones; refuses to update a missing order', () => {
    const s = openStore(':memory:');
    s.insertOrder(order(1));
    s.insertOrder(order(2));
    s.updateOrder({ ...order(1), status: 'filled', filledQty: dec('0.000123456789'), updatedAt: 5 });
    expect(s.openOrders().map((o) => o.clientOid)).toEqual(['cb-grid-2']);
    expect(s.allOrders()).toHaveLength(2);
    expect(s.ordersUpdatedSince(6).map((o) => o.clientOid)).toEqual(['cb-grid-2']);
    expect(s.ordersUpdatedSince(5).map((o) => o.clientOid)).toEqual(['cb-grid-1', 'cb-grid-2']);
    expect(() => s.updateOrder(order(3))).toThrow(/not in the store/);
  });

  it('keeps meta values and journal lines', () => {
    const path = join(dir, 'journal.sqlite');
    const s = openStore(path);
    expect(s.getMeta('fills.cursor')).toBeUndefined();
    s.setMeta('fills.cursor', '{"newest":1}');
    s.setMeta('fills.cursor', '{"newest":2}');
    expect(s.getMeta('fills.cursor')).toBe('{"newest":2}');
    s.appendJournal({
      at: 1,
      strategy: S1,
      intent: {
        kind: 'place',
        symbol: symbolId('cmt_btcusdt'),
        side: 'open_long',
        size: dec('1e-3'),
        price: dec('9e4'),
        orderType: 'normal',
      },
      outcome: 'placed',
      clientOid: clientOid('cb-grid-1'),
    });
    s.appendJournal({ at: 2, strategy: S1, intent: { kind: 'cancelAll' }, outcome: 'rejected by risk gate' });
    s.close();
    // The intent's text: its keys in order, decimals as plain decimal strings (never exponents).
    const db = new Database(path, { readonly: true });
    const rows = db
      .prepare('SELECT at, strategy, intent, outcome, client_oid FROM intent_journal ORDER BY at')
      .all();
    db.close();
    expect(rows).toEqual([
      {
        at: 1,
        strategy: 'grid',
        intent:
          '{"kind":"place","symbol":"cmt_btcusdt","side":"open_long","size":"0.001","price":"90000","orderType":"normal"}',
        outcome: 'placed',
        client_oid: 'cb-grid-1',
      },
      {
        at: 2,
        strategy: 'grid',
        intent: '{"kind":"cancelAll"}',
        outcome: 'rejected by risk gate',
        client_oid: null,
      },
    ]);
  });

  it('rolls a transaction back as a whole', () => {
    const s = openStore(':memory:');
    expect(() =>
      s.transaction(() => {
        s.insertOrder(order(1));
        s.recordFill(fill('7'));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(s.allOrders()).toHaveLength(0);
    expect(s.hasFill(tradeId('7'))).toBe(false);
  });

  it('attributes a fill stored before its order was known', () => {
    const s = openStore(':memory:');
    s.recordFill(fill('1'));
    s.recordFill(fill('2', { clientOid: clientOid('cb-grid-9') }));
    expect(s.unattributedFills().map((f) => f.tradeId)).toEqual(['1']);
    expect(s.unattributedFills(1_700_000_000_501)).toEqual([]);
    expect(s.attributeFill(tradeId('1'), clientOid('cb-grid-1'))).toBe(true);
    expect(s.attributeFill(tradeId('1'), clientOid('cb-grid-2'))).toBe(false);
    expect(s.unattributedFills()).toHaveLength(0);
    expect(s.fillsForOrder(orderId('987654321098765432')).map((f) => f.clientOid)).toEqual([
      'cb-grid-1',
      'cb-grid-9',
    ]);
  });

  it('records plan orders and refreshes them when seen again', () => {
    const s = openStore(':memory:');
    const plan = {
      symbol: BTC,
      orderId: orderId('555555555555555555'),
      status: 'untriggered' as const,
      rawStatus: 'UNTRIGGERED',
      type: 'CLOSE_LONG',
      orderType: '0',
      size: dec('0.01'),
      price: dec('0'),
      triggerPrice: dec('60000.5'),
      createTime: 10,
      filledQty: dec('0'),
      priceAvg: dec('0'),
      fee: dec('0'),
    };
    s.recordPlanOrder(plan, 100);
    s.recordPlanOrder({ ...plan, status: 'canceled', rawStatus: '-1' }, 200);
    expect(s.planOrders()).toEqual([
      { ...plan, status: 'canceled', rawStatus: '-1', firstSeenAt: 100, lastSeenAt: 200 },
    ]);
  });
});

describe('SqliteStore across reopen', () => {
  it('records a fill once, also after the store is reopened', () => {
    const path = join(dir, 'fills.sqlite');
    const a = openStore(path);
    expect(a.recordFill(fill('123456789012345678'))).toBe(true);
    expect(a.recordFill(fill('123456789012345678'))).toBe(false);
    a.close();
    const b = openStore(path);
    expect(b.hasFill(tradeId('123456789012345678'))).toBe(true);
    expect(b.recordFill(fill('123456789012345678', { size: dec('5') }))).toBe(false);
    expect(b.allFills()).toHaveLength(1);
    expect(b.allFills()[0]!.size.toFixed()).toBe('0.001');
  });

  it('never hands out a sequence number twice, also after reopen', () => {
    const path = join(dir, 'seq.sqlite');
    const seen: number[] = [];
    for (let round = 0; round < 3; round++) {
      const s = openStore(path);
      for (let i = 0; i < 4; i++) seen.push(s.nextSequence(S1));
      seen.push(s.nextSequence(strategyId('other')));
      s.close();
    }
    const grid = seen.filter((_, i) => i % 5 !== 4);
    expect(grid).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(seen.filter((_, i) => i % 5 === 4)).toEqual([1, 2, 3]);
  });

  it('bumps a sequence past adopted orders, never down', () => {
    const s = openStore(':memory:');
    s.bumpSequence(S1, 41);
    expect(s.nextSequence(S1)).toBe(42);
    s.bumpSequence(S1, 10);
    expect(s.nextSequence(S1)).toBe(43);
  });

  it('runs migrations once: reopening leaves the schema version and data alone', () => {
    const path = join(dir, 'mig.sqlite');
    const a = openStore(path);
    a.insertOrder(order(1));
    a.close();
    const b = openStore(path);
    b.close();
    const db = new Database(path, { readonly: true });
    const versions = db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all();
    const journal = db.pragma('journal_mode', { simple: true });
    const count = db.prepare('SELECT count(*) FROM orders').pluck().get();
    db.close();
    expect(versions).toEqual(MIGRATIONS.map((m) => m.version));
    expect(journal).toBe('wal');
    expect(count).toBe(1);
  });
});

/** Writes the lease row another runner would have left in `path`. */
function plantLease(
  path: string,
  holder: { token: string; pid: number; hostname?: string; bootId?: string; heartbeatAt?: number },
) {
  new SqliteStore({ path, lease: false }).close(); // create + migrate
  const db = new Database(path);
  db.prepare(
    'INSERT OR REPLACE INTO lease (id, token, pid, hostname, boot_id, acquired_at, heartbeat_at) VALUES (1, ?, ?, ?, ?, ?, ?)',
  ).run(
    holder.token,
    holder.pid,
    holder.hostname ?? currentHostname(),
    holder.bootId ?? currentBootId(),
    0,
    holder.heartbeatAt ?? Date.now(),
  );
  db.close();
}

function leasePid(path: string): unknown {
  const db = new Database(path, { readonly: true });
  const pid = db.prepare('SELECT pid FROM lease').pluck().get();
  db.close();
  return pid;
}

describe('SqliteStore single-instance lease', () => {
  it('refuses a second runner on the same file and names the pid holding it', () => {
    const path = join(dir, 'lease.sqlite');
    const first = openStore(path);
    first.insertOrder(order(1));
    expect(() => openStore(path)).toThrow(StoreError);
    expect(() => openStore(path)).toThrow(new RegExp(`in use: .*pid ${process.pid}`));
    // The refused runner changed nothing: the first one still holds the store and writes.
    first.insertOrder(order(2));
    expect(leasePid(path)).toBe(process.pid);
  });

  it('refuses a store held by another live process, naming its pid', () => {
    const path = join(dir, 'lease-other.sqlite');
    plantLease(path, { token: 'other-runner', pid: 424242 });
    expect(() => openStore(path, { lease: { heartbeatMs: 0, isPidAlive: (pid) => pid === 424242 } })).toThrow(
      /held by a running capibot, pid 424242/,
    );
  });

  it('takes over the lease of a runner that died without closing (stale lease)', () => {
    const path = join(dir, 'stale.sqlite');
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid; // a real process that has exited
    plantLease(path, { token: 'crashed-runner', pid: deadPid });
    const s = openStore(path); // real process probe
    s.insertOrder(order(1));
    expect(leasePid(path)).toBe(process.pid);
  });

  it('takes over a lease left by an earlier process that had our pid (container restart)', () => {
    const path = join(dir, 'same-pid.sqlite');
    plantLease(path, { token: 'previous-incarnation', pid: process.pid });
    openStore(path);
    expect(leasePid(path)).toBe(process.pid);
  });

  it('treats a remote holder as alive until its heartbeat is stale', () => {
    const path = join(dir, 'remote.sqlite');
    plantLease(path, { token: 'remote', pid: 7, hostname: 'elsewhere', heartbeatAt: 1_000 });
    expect(() => openStore(path, { now: () => 2_000, lease: { heartbeatMs: 0, staleMs: 60_000 } })).toThrow(
      /held by pid 7 on elsewhere/,
    );
    openStore(path, { now: () => 100_000, lease: { heartbeatMs: 0, staleMs: 60_000 } });
    expect(leasePid(path)).toBe(process.pid);
  });

  it('releases the lease on close so the next runner starts', () => {
    const path = join(dir, 'release.sqlite');
    openStore(path).close();
    expect(leasePid(path)).toBeUndefined();
    openStore(path);
    expect(leasePid(path)).toBe(process.pid);
  });

  it('stops writing once another runner has taken the lease away', () => {
    const path = join(dir, 'lost.sqlite');
    const reasons: string[] = [];
    const s = openStore(path);
    const db = new Database(path);
    db.prepare("UPDATE lease SET token = 'intruder', pid = 1").run();
    db.close();
    s.heartbeat((r) => reasons.push(r));
    expect(reasons[0]).toMatch(/taken over by pid 1/);
    expect(() => s.insertOrder(order(1))).toThrow(/no longer ours/);
  });
});

describe('SqliteStore.countOrdersSince', () => {
  it('counts the orders of one symbol created at or after a time, terminal ones included', () => {
    const s = openStore(join(dir, 'count.db'));
    const ETH = symbolId('cmt_ethusdt');
    for (let n = 1; n <= 6; n++) s.insertOrder(order(n, { status: n % 2 === 0 ? 'canceled' : 'open' }));
    s.insertOrder(order(7, { symbol: ETH }));
    // Updated long after its creation: still counted by its creation time.
    s.updateOrder({ ...order(3, { status: 'filled' }), updatedAt: 1_700_000_900_000 });
    expect(s.countOrdersSince(BTC, 1_700_000_000_003)).toBe(4);
    expect(s.countOrdersSince(BTC, 1_700_000_000_000)).toBe(6);
    expect(s.countOrdersSince(BTC, 1_700_000_000_007)).toBe(0);
    expect(s.countOrdersSince(ETH, 0)).toBe(1);
  });
});
