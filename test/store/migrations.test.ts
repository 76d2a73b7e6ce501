import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/core/errors.ts';
import {
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  OPEN_ORDER_SQL,
  migrate,
  type Migration,
} from '../../src/store/migrations.ts';

describe('migrate', () => {
  it('applies every migration once and is idempotent', () => {
    const db = new Database(':memory:');
    expect(migrate(db, 1)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(migrate(db, 2)).toEqual([]);
    expect(migrate(db, 3)).toEqual([]);
    const rows = db.prepare('SELECT version, applied_at FROM schema_version ORDER BY version').all();
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, applied_at: 1 })));
    db.close();
  });

  it('applies only the new migrations to an older store', () => {
    const db = new Database(':memory:');
    migrate(db, 1, MIGRATIONS.slice(0, 1));
    expect(migrate(db, 2)).toEqual(MIGRATIONS.slice(1).map((m) => m.version));
    db.close();
  });

  it('rolls a failing migration back entirely and names it', () => {
    const db = new Database(':memory:');
    const broken: Migration[] = [
      ...MIGRATIONS,
      {
        version: LATEST_SCHEMA_VERSION + 1,
        name: 'broken',
        sql: 'CREATE TABLE half (x); SELECT * FROM nowhere;',
      },
    ];
    expect(() => migrate(db, 1, broken)).toThrow(/migration \d+ \(broken\) failed/);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half'").pluck().get()).toBe(0);
    expect(Math.max(...(db.prepare('SELECT version FROM schema_version').pluck().all() as number[]))).toBe(
      LATEST_SCHEMA_VERSION,
    );
    db.close();
  });

  it('refuses a store written by a newer capibot', () => {
    const db = new Database(':memory:');
    migrate(db, 1);
    db.prepare("INSERT INTO schema_version VALUES (999, 'future', 1)").run();
    expect(() => migrate(db, 2)).toThrow(StoreError);
    db.close();
  });

  it('refuses a gap in the numbering', () => {
    const db = new Database(':memory:');
    expect(() => migrate(db, 1, [{ version: 2, name: 'x', sql: '' }])).toThrow(/numbered/);
    db.close();
  });
});

describe('migration 4: orders constraints and open-orders index as comparisons', () => {
  const COLUMNS = `client_oid, order_id, strategy, symbol, side, order_type, price, size, status, filled_qty,
    avg_price, fills_qty, fills_value, tag, reason, created_at, updated_at`;
  const insert = (db: Database.Database, oid: string, status: string, side = 'open_long') =>
    db
      .prepare(
        `INSERT INTO orders (${COLUMNS}) VALUES (?, ?, 's', 'cmt_btcusdt', ?, 'normal', '1.5', '0.001', ?,
        '0', NULL, NULL, NULL, 'L1', NULL, 1, 2)`,
      )
      .run(oid, status === 'created' ? null : `9${oid.length}`, side, status);

  it('keeps every order of a version-3 store, and its indexes', () => {
    const db = new Database(':memory:');
    migrate(
      db,
      1,
      MIGRATIONS.filter((m) => m.version <= 3),
    );
    insert(db, 'cb-s-1', 'created');
    insert(db, 'cb-s-2', 'open', 'close_short');
    insert(db, 'cb-s-3', 'canceled');
    const before = db.prepare('SELECT * FROM orders ORDER BY client_oid').all();
    expect(
      migrate(
        db,
        2,
        MIGRATIONS.filter((m) => m.version <= 4),
      ),
    ).toEqual([4]);
    expect(db.prepare('SELECT * FROM orders ORDER BY client_oid').all()).toEqual(before);
    const indexes = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL",
      )
      .pluck()
      .all();
    expect(indexes.sort()).toEqual(['orders_by_order_id', 'orders_by_updated_at', 'orders_open']);
    db.close();
  });

  it('still refuses an unknown side or status', () => {
    const db = new Database(':memory:');
    migrate(db, 1);
    expect(() => insert(db, 'cb-s-1', 'bogus')).toThrow(/CHECK constraint failed/);
    expect(() => insert(db, 'cb-s-2', 'open', 'sideways')).toThrow(/CHECK constraint failed/);
    for (const [i, status] of ['created', 'submitted', 'unknown', 'pending', 'open', 'canceling'].entries())
      insert(db, `cb-ok-${i}`, status);
    for (const [i, status] of ['filled', 'canceled', 'rejected'].entries())
      insert(db, `cb-done-${i}`, status);
    for (const [i, side] of ['open_short', 'close_long', 'close_short'].entries())
      insert(db, `cb-side-${i}`, 'open', side);
    db.close();
  });

  it('indexes exactly the open orders, under the predicate the store queries state', () => {
    const db = new Database(':memory:');
    migrate(db, 1);
    for (const [i, status] of ['created', 'open', 'filled', 'canceled', 'rejected', 'canceling'].entries())
      insert(db, `cb-s-${i}`, status);
    // INDEXED BY fails ("no query solution") unless the WHERE clause implies the index's predicate.
    const query = `SELECT client_oid FROM orders INDEXED BY orders_open WHERE ${OPEN_ORDER_SQL}`;
    expect((db.prepare(query).pluck().all() as string[]).sort()).toEqual(['cb-s-0', 'cb-s-1', 'cb-s-5']);
    db.close();
  });
});

describe('migration 5: plan (trigger) orders', () => {
  it('keeps every order of a version-4 store, adds the plan columns and the untriggered status', () => {
    const db = new Database(':memory:');
    migrate(
      db,
      1,
      MIGRATIONS.filter((m) => m.version <= 4),
    );
    const cols = `client_oid, order_id, strategy, symbol, side, order_type, price, size, status, filled_qty,
      avg_price, fills_qty, fills_value, tag, reason, created_at, updated_at`;
    db.prepare(
      `INSERT INTO orders (${cols}) VALUES ('cb-s-1', '91', 's', 'cmt_btcusdt', 'open_long', 'normal', '1.5',
        '0.001', 'open', '0', NULL, NULL, NULL, 'L1', NULL, 1, 2)`,
    ).run();
    expect(() =>
      db.prepare(`UPDATE orders SET status = 'untriggered' WHERE client_oid = 'cb-s-1'`).run(),
    ).toThrow(/CHECK constraint failed/);
    expect(migrate(db, 2)).toEqual([5]);
    const row = db.prepare('SELECT * FROM orders').get() as Record<string, unknown>;
    expect(row).toMatchObject({ client_oid: 'cb-s-1', order_id: '91', status: 'open', price: '1.5' });
    expect(row['trigger_price']).toBeNull();
    expect(row['plan_order_id']).toBeNull();
    db.prepare(
      `UPDATE orders SET status = 'untriggered', trigger_price = '1.2', plan_order_id = '77' WHERE client_oid = 'cb-s-1'`,
    ).run();
    const indexes = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL",
      )
      .pluck()
      .all();
    expect(indexes.sort()).toEqual([
      'orders_by_order_id',
      'orders_by_plan_order_id',
      'orders_by_updated_at',
      'orders_open',
    ]);
    db.close();
  });
});
