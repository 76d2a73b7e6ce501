// Schema migrations of the SQLite store: an ordered, append-only list. Each migration runs in its own
// transaction and records its version in `schema_version`, so running them again is a no-op and a
// crash half-way leaves the store at the last complete version. Never edit a released migration:
// add a new one.
//
// Decimals (prices, sizes, fees, PnL) are TEXT holding plain decimal strings, never REAL: a float
// column would round them. Ids (client_oid, order id, trade id) are TEXT too: exchange ids have 18
// digits and exceed 2^53. Times are INTEGER epoch milliseconds.
import type Database from 'better-sqlite3';
import { StoreError } from '../core/errors.ts';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const SIDES = `'open_long','open_short','close_long','close_short'`;
const STATUSES = `'created','submitted','unknown','pending','open','canceling','filled','canceled','rejected'`;

// From version 4 on, constraints and partial-index predicates over a set of constants are written as
// chains of comparisons, not `IN (...)`: for a list of more than two constants SQLite builds an
// ephemeral table on every statement that evaluates it, which made each write of an order (a CHECK on
// side and status, the predicate of the open-orders index, twice on an UPDATE) cost about twice as
// much. Same constraints, same rows indexed.
// The lists are written out here, not imported from core/orders.ts: a migration is history, and its
// schema must not change when the code's lists do (a new status takes a new migration).
const SIDE_VALUES = ['open_long', 'open_short', 'close_long', 'close_short'];
const STATUS_VALUES = [
  'created',
  'submitted',
  'unknown',
  'pending',
  'open',
  'canceling',
  'filled',
  'canceled',
  'rejected',
];
// Version 5 adds plan (trigger) orders: the `untriggered` status, and two columns.
const STATUS_VALUES_V5 = [...STATUS_VALUES.slice(0, 3), 'untriggered', ...STATUS_VALUES.slice(3)];
const ORDER_COLUMNS = `client_oid, order_id, strategy, symbol, side, order_type, price, size, status,
  filled_qty, avg_price, fills_qty, fills_value, tag, reason, created_at, updated_at`;
const anyOf = (column: string, values: readonly string[]): string =>
  values.map((v) => `${column} = '${v}'`).join(' OR ');

/** The predicate of the open-orders index; a query must state it exactly so to use that index. */
export const OPEN_ORDER_SQL = `status <> 'filled' AND status <> 'canceled' AND status <> 'rejected'`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'orders, fills, intent journal, sequences, meta, lease',
    sql: `
      CREATE TABLE orders (
        client_oid  TEXT PRIMARY KEY,
        order_id    TEXT,
        strategy    TEXT NOT NULL,
        symbol      TEXT NOT NULL,
        side        TEXT NOT NULL CHECK (side IN (${SIDES})),
        order_type  TEXT NOT NULL,
        price       TEXT,
        size        TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (status IN (${STATUSES})),
        filled_qty  TEXT NOT NULL,
        avg_price   TEXT,
        fills_qty   TEXT,
        fills_value TEXT,
        tag         TEXT,
        reason      TEXT,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE INDEX orders_by_order_id ON orders (order_id) WHERE order_id IS NOT NULL;
      CREATE INDEX orders_open ON orders (status) WHERE status NOT IN ('filled','canceled','rejected');

      CREATE TABLE fills (
        trade_id       TEXT PRIMARY KEY,
        order_id       TEXT NOT NULL,
        client_oid     TEXT,
        symbol         TEXT NOT NULL,
        position_side  TEXT NOT NULL,
        order_side     TEXT NOT NULL,
        direction      TEXT NOT NULL,
        size           TEXT NOT NULL,
        value          TEXT NOT NULL,
        fee            TEXT NOT NULL,
        realized_pnl   TEXT NOT NULL,
        created_at     INTEGER NOT NULL
      );
      CREATE INDEX fills_by_order_id ON fills (order_id);
      CREATE INDEX fills_unattributed ON fills (order_id) WHERE client_oid IS NULL;

      CREATE TABLE intent_journal (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        at          INTEGER NOT NULL,
        strategy    TEXT NOT NULL,
        intent      TEXT NOT NULL,
        outcome     TEXT NOT NULL,
        client_oid  TEXT
      );

      CREATE TABLE sequences (
        strategy  TEXT PRIMARY KEY,
        last      INTEGER NOT NULL
      );

      CREATE TABLE meta (
        key    TEXT PRIMARY KEY,
        value  TEXT NOT NULL
      );

      -- At most one row: the runner that holds the store (see sqlite-store.ts, single-instance lease).
      CREATE TABLE lease (
        id            INTEGER PRIMARY KEY CHECK (id = 1),
        token         TEXT NOT NULL,
        pid           INTEGER NOT NULL,
        hostname      TEXT NOT NULL,
        boot_id       TEXT NOT NULL,
        acquired_at   INTEGER NOT NULL,
        heartbeat_at  INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'plan orders seen in historyPlan',
    sql: `
      CREATE TABLE plan_orders (
        order_id       TEXT PRIMARY KEY,
        client_oid     TEXT,
        symbol         TEXT NOT NULL,
        status         TEXT NOT NULL,
        raw_status     TEXT NOT NULL,
        type           TEXT NOT NULL,
        order_type     TEXT NOT NULL,
        size           TEXT NOT NULL,
        price          TEXT NOT NULL,
        trigger_price  TEXT NOT NULL,
        created_at     INTEGER NOT NULL,
        first_seen_at  INTEGER NOT NULL,
        last_seen_at   INTEGER NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'orders by update time (reconcile input: recently updated terminal orders)',
    sql: `
      CREATE INDEX orders_by_updated_at ON orders (updated_at);
    `,
  },
  {
    version: 4,
    name: 'orders: constraints and open-orders index as comparisons (cheaper writes)',
    // The table is rebuilt (SQLite cannot alter a CHECK): same columns, same rows, same indexes.
    sql: `
      CREATE TABLE orders_v4 (
        client_oid  TEXT PRIMARY KEY,
        order_id    TEXT,
        strategy    TEXT NOT NULL,
        symbol      TEXT NOT NULL,
        side        TEXT NOT NULL CHECK (${anyOf('side', SIDE_VALUES)}),
        order_type  TEXT NOT NULL,
        price       TEXT,
        size        TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (${anyOf('status', STATUS_VALUES)}),
        filled_qty  TEXT NOT NULL,
        avg_price   TEXT,
        fills_qty   TEXT,
        fills_value TEXT,
        tag         TEXT,
        reason      TEXT,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      INSERT INTO orders_v4 (${ORDER_COLUMNS}) SELECT ${ORDER_COLUMNS} FROM orders;
      DROP TABLE orders;
      ALTER TABLE orders_v4 RENAME TO orders;
      CREATE INDEX orders_by_order_id ON orders (order_id) WHERE order_id IS NOT NULL;
      CREATE INDEX orders_open ON orders (status) WHERE ${OPEN_ORDER_SQL};
      CREATE INDEX orders_by_updated_at ON orders (updated_at);
    `,
  },
  {
    version: 5,
    name: 'plan (trigger) orders: status untriggered, trigger_price, plan_order_id',
    // Rebuilt again for the CHECK on status (SQLite cannot alter one): same rows, two new columns.
    sql: `
      CREATE TABLE orders_v5 (
        client_oid    TEXT PRIMARY KEY,
        order_id      TEXT,
        strategy      TEXT NOT NULL,
        symbol        TEXT NOT NULL,
        side          TEXT NOT NULL CHECK (${anyOf('side', SIDE_VALUES)}),
        order_type    TEXT NOT NULL,
        price         TEXT,
        size          TEXT NOT NULL,
        status        TEXT NOT NULL CHECK (${anyOf('status', STATUS_VALUES_V5)}),
        filled_qty    TEXT NOT NULL,
        avg_price     TEXT,
        fills_qty     TEXT,
        fills_value   TEXT,
        tag           TEXT,
        reason        TEXT,
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        trigger_price TEXT,
        plan_order_id TEXT
      );
      INSERT INTO orders_v5 (${ORDER_COLUMNS}) SELECT ${ORDER_COLUMNS} FROM orders;
      DROP TABLE orders;
      ALTER TABLE orders_v5 RENAME TO orders;
      CREATE INDEX orders_by_order_id ON orders (order_id) WHERE order_id IS NOT NULL;
      CREATE INDEX orders_by_plan_order_id ON orders (plan_order_id) WHERE plan_order_id IS NOT NULL;
      CREATE INDEX orders_open ON orders (status) WHERE ${OPEN_ORDER_SQL};
      CREATE INDEX orders_by_updated_at ON orders (updated_at);
    `,
  },
];

/** Highest schema version this build knows. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.reduce((v, m) => Math.max(v, m.version), 0);

/** Versions already applied to `db` (empty for a new store). */
export function appliedVersions(db: Database.Database): Set<number> {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    version     INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    applied_at  INTEGER NOT NULL
  )`);
  const rows = db.prepare('SELECT version FROM schema_version').pluck().all() as number[];
  return new Set(rows);
}

/**
 * Applies every migration not yet applied, in order, each in its own IMMEDIATE transaction (a second
 * process migrating at the same moment waits on the busy timeout, then sees the version recorded and
 * skips it). Refuses a store written by a newer capibot. Returns the versions applied now.
 */
export function migrate(
  db: Database.Database,
  now: number,
  migrations: readonly Migration[] = MIGRATIONS,
): number[] {
  checkOrder(migrations);
  const latest = migrations.reduce((v, m) => Math.max(v, m.version), 0);
  const present = appliedVersions(db);
  const newest = Math.max(0, ...present);
  if (newest > latest) {
    throw new StoreError(
      `store schema version ${newest} is newer than this capibot knows (${latest}); upgrade capibot`,
    );
  }
  const applied: number[] = [];
  for (const m of migrations) {
    const run = db.transaction(() => {
      const done = db.prepare('SELECT 1 FROM schema_version WHERE version = ?').get(m.version);
      if (done !== undefined) return false;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        now,
      );
      return true;
    });
    try {
      if (run.immediate()) applied.push(m.version);
    } catch (e) {
      if (e instanceof StoreError) throw e;
      throw new StoreError(`migration ${m.version} (${m.name}) failed: ${(e as Error).message}`);
    }
  }
  return applied;
}

function checkOrder(migrations: readonly Migration[]): void {
  let prev = 0;
  for (const m of migrations) {
    if (m.version !== prev + 1) {
      throw new StoreError(`migrations must be numbered 1, 2, 3…; found ${m.version} after ${prev}`);
    }
    prev = m.version;
  }
}
