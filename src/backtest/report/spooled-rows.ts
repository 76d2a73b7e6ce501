// A long backtest's report rows kept out of the heap: its fills (each with what it takes from its
// order) and its trades go into a private temporary SQLite database (an empty file name: SQLite keeps
// it in a temporary file that vanishes when closed, holding at most its page cache in memory), and
// come back in the report's order from an index. So writing the report of a run with millions of
// fills holds a few megabytes, not the run (issue #24).
//
// The join is the one reportFills makes in memory (the equivalence is a property test,
// test/backtest/report/spooled-rows.property.test.ts): a fill takes the order with its client_oid,
// else the order with its exchange order id; among several, the last (the stores' order: by
// creation, then client_oid; a RunRecord's: its array order). Fills come in time order, ties in the
// stored order (the store's insertion number; a RunRecord's array order).
import Database from 'better-sqlite3';
import { dec } from '../../core/decimal.ts';
import { clientOid, strategyId } from '../../core/ids.ts';
import { ORDER_SIDES, ORDER_STATUSES, type OrderSide } from '../../core/orders.ts';
import { CompactIdSet } from '../../store/compact-id-set.ts';
import type { StoredFill } from '../../store/port.ts';
import { StoreError } from '../../core/errors.ts';
import {
  FILL_COLUMNS,
  ORDER_DATA_COLUMNS,
  decimal,
  fillFromValues,
  fillValues,
  oneOf,
  orderValues,
} from '../../store/rows.ts';
import { joinFill, type FillOrder, type ReportFill } from './fills.ts';
import { OrderCounter, type OrderCounts } from './order-counts.ts';
import type { ReportRows, TradeSpool } from './report-rows.ts';
import type { Trade, TradeSide, ExitReason } from './trades.ts';
import type { RunRecord } from './types.ts';

/**
 * Where the rows come from: a backtest's store (MemoryStore) or a RunRecord's arrays. Rows come as
 * the stores' row codec lists them (src/store/rows.ts), so the store's retired rows, already values
 * in its spill file, are copied on without being decoded into orders and fills and encoded again.
 */
export interface RowsSource {
  /**
   * Every fill, in any order: its values in FILL_COLUMNS order (`fillValues`; more may follow), the
   * JSON text of exactly those values or undefined (then `values` holds exactly those), and its
   * insertion number (ties of equal times go by it).
   */
  forEachFill(each: (values: readonly unknown[], text: string | undefined, rowid: number) => void): void;
  /**
   * Every order as `orderValues` lists it, in any order; `rank` says which of two orders holding
   * one id is the later.
   */
  forEachOrder(each: (values: readonly unknown[], rank: readonly [number, string]) => void): void;
}

// Where the spool finds what it reads in a row's values.
const FILL_AT = FILL_COLUMNS.indexOf('created_at');
const FILL_OID = FILL_COLUMNS.indexOf('client_oid');
const FILL_ID = FILL_COLUMNS.indexOf('order_id');
const ORDER_OID = ORDER_DATA_COLUMNS.length; // client_oid comes last
const ORDER_ID = ORDER_DATA_COLUMNS.indexOf('order_id');
const ORDER_AT = ORDER_DATA_COLUMNS.indexOf('created_at');
const ORDER_STRATEGY = ORDER_DATA_COLUMNS.indexOf('strategy');
const ORDER_SIDE = ORDER_DATA_COLUMNS.indexOf('side');
const ORDER_STATUS = ORDER_DATA_COLUMNS.indexOf('status');
const ORDER_FILLED = ORDER_DATA_COLUMNS.indexOf('filled_qty');
const ORDER_TRIGGER = ORDER_DATA_COLUMNS.indexOf('trigger_price');
const ORDER_PLAN_ID = ORDER_DATA_COLUMNS.indexOf('plan_order_id');
/** Where a bad value was found, for the store's own errors (src/store/rows.ts). */
const ROW = 'an order row of the report spool';

/** The string at `i` of a stored row (`null` allowed with `nullable`); a StoreError otherwise. */
function textAt(values: readonly unknown[], i: number, what: string, nullable: true): string | null;
function textAt(values: readonly unknown[], i: number, what: string): string;
function textAt(values: readonly unknown[], i: number, what: string, nullable = false): string | null {
  const v = values[i];
  if (typeof v === 'string' || (nullable && v === null)) return v;
  throw new StoreError(`corrupt store row: ${what} is ${JSON.stringify(v)}`);
}

function timeAt(values: readonly unknown[], i: number, what: string): number {
  const v = values[i];
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  throw new StoreError(`corrupt store row: ${what} is ${JSON.stringify(v)}`);
}

/**
 * Page cache of each spool, in KiB as SQLite takes it (negative). better-sqlite3's default is 16 MB,
 * which a long run's spool filled, resident until the report was written; the rest of a spool lives
 * in its temporary file (the OS's page cache). Measured on 100 k fills: 45 MB more RSS with the
 * default, 20 MB with 1 MiB, and no more CPU (a little less: fewer pages to manage).
 */
const SPOOL_CACHE_KIB = -1024;

// Every string goes in losslessly: keys as UTF-16 big-endian blobs (SQLite compares blobs byte by
// byte, which is JavaScript's code-unit order, and a lone surrogate stays itself; TEXT would turn it
// into U+FFFD and compare UTF-8 bytes), values as JSON text (which escapes a lone surrogate).
const SCHEMA = `
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = ${SPOOL_CACHE_KIB};
CREATE TABLE fills (
  rowid_ INTEGER NOT NULL, created_at INTEGER NOT NULL, client_oid BLOB, order_id BLOB NOT NULL,
  data TEXT NOT NULL);
CREATE TABLE orders (
  seq INTEGER PRIMARY KEY, client_oid BLOB NOT NULL, order_id BLOB, rank_a INTEGER NOT NULL,
  rank_b BLOB NOT NULL, data TEXT NOT NULL);
`;

/** Made once every row is in: building an index at the end is cheaper than keeping it while inserting. */
const INDEXES = `
CREATE INDEX fills_in_order ON fills (created_at, rowid_);
CREATE INDEX orders_by_oid ON orders (client_oid, rank_a, rank_b, seq);
CREATE INDEX orders_by_id ON orders (order_id, rank_a, rank_b, seq);
`;

const JOINED_FILLS = `
SELECT f.data AS fill, o.data AS orderData
FROM fills f
LEFT JOIN orders o ON o.seq = COALESCE(
  (SELECT seq FROM orders WHERE client_oid = f.client_oid ORDER BY rank_a DESC, rank_b DESC, seq DESC LIMIT 1),
  (SELECT seq FROM orders WHERE order_id = f.order_id ORDER BY rank_a DESC, rank_b DESC, seq DESC LIMIT 1))
ORDER BY f.created_at, f.rowid_`;

/** A key's UTF-16 code units, big-endian: byte order is code-unit order. */
export function keyBlob(s: string): Buffer {
  return Buffer.from(s, 'utf16le').swap16();
}

function decodeFill(text: string): StoredFill {
  return fillFromValues(JSON.parse(text) as unknown[]);
}

type OrderLine = [clientOid: string, strategy: string, side: OrderSide, triggerPrice: string | null];

function decodeOrder(text: string | null): FillOrder | undefined {
  if (text === null) return undefined;
  const [oid, strategy, side, trigger] = JSON.parse(text) as OrderLine;
  return {
    clientOid: clientOid(oid),
    strategy: strategyId(strategy),
    side,
    ...(trigger !== null ? { triggerPrice: dec(trigger) } : {}),
  };
}

type TradeLine = [
  strategy: string | null,
  symbol: string,
  side: TradeSide,
  entryTime: number,
  exitTime: number | null,
  size: string,
  openSize: string,
  entryPrice: string | null,
  exitPrice: string | null,
  pnl: string,
  fees: string,
  netPnl: string,
  durationMs: number,
  exitReason: ExitReason,
  fills: number,
];

function encodeTrade(t: Trade): string {
  const line: TradeLine = [
    t.strategy,
    t.symbol,
    t.side,
    t.entryTime,
    t.exitTime,
    t.size.toFixed(),
    t.openSize.toFixed(),
    t.entryPrice?.toFixed() ?? null,
    t.exitPrice?.toFixed() ?? null,
    t.pnl.toFixed(),
    t.fees.toFixed(),
    t.netPnl.toFixed(),
    t.durationMs,
    t.exitReason,
    t.fills,
  ];
  return JSON.stringify(line);
}

function decodeTrade(text: string): Trade {
  const [strategy, symbol, side, entryTime, exitTime, size, openSize, entryPrice, exitPrice, ...rest] =
    JSON.parse(text) as TradeLine;
  const [pnl, fees, netPnl, durationMs, exitReason, fills] = rest;
  return {
    strategy,
    symbol,
    side,
    entryTime,
    exitTime,
    size: dec(size),
    openSize: dec(openSize),
    entryPrice: entryPrice === null ? null : dec(entryPrice),
    exitPrice: exitPrice === null ? null : dec(exitPrice),
    pnl: dec(pnl),
    fees: dec(fees),
    netPnl: dec(netPnl),
    durationMs,
    exitReason,
    fills,
  };
}

/**
 * Trades in a temporary database of their own (a connection reading the fills cannot write while it
 * reads), read back by (entry time, order added).
 */
class SpooledTrades implements TradeSpool {
  readonly #db = new Database('');
  readonly #insert: Database.Statement<[number, string]>;
  readonly #read: Database.Statement<[], { data: string }>;

  constructor() {
    this.#db
      .exec(`PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = ${SPOOL_CACHE_KIB};
      CREATE TABLE trades (seq INTEGER PRIMARY KEY, entry_time INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX trades_in_order ON trades (entry_time, seq);`);
    this.#insert = this.#db.prepare('INSERT INTO trades (entry_time, data) VALUES (?, ?)');
    this.#read = this.#db.prepare('SELECT data FROM trades ORDER BY entry_time, seq');
  }

  add(t: Trade): void {
    this.#insert.run(t.entryTime, encodeTrade(t));
  }

  forEach(each: (t: Trade) => void): void {
    for (const r of this.#read.iterate()) each(decodeTrade(r.data));
  }

  close(): void {
    this.#db.close();
  }
}

export class SpooledRows implements ReportRows {
  readonly #db: Database.Database;
  readonly #joined: Database.Statement<[], { fill: string; orderData: string | null }>;
  readonly #spools: SpooledTrades[] = [];
  /** Counts over every order of the source (the report's order figures). */
  readonly orderCounts: OrderCounts;

  private constructor(source: RowsSource) {
    this.#db = new Database('');
    try {
      this.#db.exec(SCHEMA);
      this.orderCounts = this.#load(source);
      this.#db.exec(INDEXES);
      this.#joined = this.#db.prepare(JOINED_FILLS);
    } catch (e) {
      this.#db.close();
      throw e;
    }
  }

  /** The rows of a backtest's store (read back one at a time, retired ones included). */
  static fromStore(store: {
    forEachFillValues(
      each: (values: readonly unknown[], text: string | undefined, rowid: number) => void,
    ): void;
    forEachOrderValues(each: (values: readonly unknown[]) => void): void;
  }): SpooledRows {
    return new SpooledRows({
      forEachFill: (each) => store.forEachFillValues(each),
      forEachOrder: (each) =>
        store.forEachOrderValues((v) =>
          each(v, [timeAt(v, ORDER_AT, 'an order creation time'), textAt(v, ORDER_OID, 'a client_oid')]),
        ),
    });
  }

  /** A RunRecord's rows (the join and order of reportFills(record.fills, record.orders)). */
  static fromRecord(record: Pick<RunRecord, 'fills' | 'orders'>): SpooledRows {
    return new SpooledRows({
      forEachFill: (each) => record.fills.forEach((f, i) => each(fillValues(f), undefined, i)),
      forEachOrder: (each) => record.orders.forEach((o, i) => each(orderValues(o), [i, ''])),
    });
  }

  /** Fills first (noting their ids), then the orders some fill can join, counting every order. */
  #load(source: RowsSource): OrderCounts {
    const db = this.#db;
    const oids = new CompactIdSet();
    const ids = new CompactIdSet();
    const insertFill = db.prepare(
      'INSERT INTO fills (rowid_, created_at, client_oid, order_id, data) VALUES (?, ?, ?, ?, ?)',
    );
    const insertOrder = db.prepare(
      'INSERT INTO orders (client_oid, order_id, rank_a, rank_b, data) VALUES (?, ?, ?, ?, ?)',
    );
    const counter = new OrderCounter();
    db.transaction(() => {
      source.forEachFill((values, text, rowid) => {
        const oid = textAt(values, FILL_OID, "a fill's client_oid", true);
        const id = textAt(values, FILL_ID, "a fill's order id");
        const at = timeAt(values, FILL_AT, "a fill's time");
        insertFill.run(
          rowid,
          at,
          oid === null ? null : keyBlob(oid),
          keyBlob(id),
          text ?? JSON.stringify(values),
        );
        if (oid !== null) oids.add(oid);
        ids.add(id);
      });
      source.forEachOrder((values, [a, b]) => {
        const oid = textAt(values, ORDER_OID, "an order's client_oid");
        const id = textAt(values, ORDER_ID, "an order's id", true);
        const trigger = textAt(values, ORDER_TRIGGER, "an order's trigger price", true);
        const planId = textAt(values, ORDER_PLAN_ID, "an order's plan order id", true);
        const status = oneOf(ORDER_STATUSES, textAt(values, ORDER_STATUS, 'a status'), 'status', ROW);
        const plan = trigger !== null;
        const triggered =
          plan &&
          (planId !== null ||
            decimal(textAt(values, ORDER_FILLED, 'a filled size'), 'filled_qty', ROW).gt(0));
        // A plan's trigger price is read back as a decimal with the report (checked here, once).
        if (trigger !== null) decimal(trigger, 'trigger_price', ROW);
        counter.addStatus(status, triggered, plan);
        if (!oids.has(oid) && (id === null || !ids.has(id))) return;
        const line: OrderLine = [
          oid,
          textAt(values, ORDER_STRATEGY, "an order's strategy"),
          oneOf(ORDER_SIDES, textAt(values, ORDER_SIDE, 'a side'), 'side', ROW),
          trigger,
        ];
        insertOrder.run(keyBlob(oid), id === null ? null : keyBlob(id), a, keyBlob(b), JSON.stringify(line));
      });
    })();
    return counter.counts();
  }

  forEachFill(each: (f: ReportFill) => void): void {
    for (const r of this.#joined.iterate()) each(joinFill(decodeFill(r.fill), decodeOrder(r.orderData)));
  }

  tradeSpool(): TradeSpool {
    const spool = new SpooledTrades();
    this.#spools.push(spool);
    return spool;
  }

  /** Removes the databases (their temporary files). */
  close(): void {
    for (const s of this.#spools) s.close();
    this.#spools.length = 0;
    this.#db.close();
  }
}
