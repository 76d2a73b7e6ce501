// The write-ahead store on SQLite (better-sqlite3, synchronous API: a state change is committed
// before the next line of the engine runs).
//
// Durability choice: WAL journal + `synchronous = FULL` by default. In WAL mode FULL costs one fsync
// of the WAL per commit (a sequential append; checkpoints are not fsynced on the hot path). NORMAL
// would survive a process crash (SIGKILL) but an OS crash or power cut could roll back the last
// commits — among them a client_oid sequence step and an order written `created` whose request had
// already reached the exchange. After such a rollback the sequence would hand out that client_oid a
// second time (invariant 1). Commits happen at order rate, not tick rate, and a network round trip
// dwarfs an fsync, so the safe setting is the default. Backtests use ':memory:' (no fsync at all);
// paper runs that do not care may pass `synchronous: 'NORMAL'`.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { CapibotError, StoreError } from '../core/errors.ts';
import type { ClientOid, OrderId, StrategyId, SymbolId, TradeId } from '../core/ids.ts';
import { intentJson } from '../core/intent-json.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import type { PlanReport } from '../core/reports.ts';
import {
  currentBootId,
  currentHostname,
  decideLease,
  isPidAlive,
  type LeaseHolder,
  type LeaseIdentity,
} from './lease.ts';
import { migrate, OPEN_ORDER_SQL } from './migrations.ts';
import type {
  JournalEntry,
  OrderStore,
  PruneOptions,
  PruneResult,
  PruneRules,
  StoredFill,
  StoredPlanOrder,
} from './port.ts';
import { planPrune, pruneResult } from './prune-plan.ts';
import {
  fillFromRow,
  fillToRow,
  ORDER_DATA_COLUMNS,
  orderFromRow,
  orderValues,
  planFromRow,
  planStatusOf,
  planToRow,
  type FillRow,
  type OrderRow,
  type PlanRow,
} from './rows.ts';

export interface LeaseOptions {
  /** A holder on another host without a heartbeat for this long is considered dead. Default 60 000. */
  readonly staleMs?: number;
  /** Heartbeat period; 0 disables the timer. Default 5 000. */
  readonly heartbeatMs?: number;
  /** Test seams; the defaults probe the real process table. */
  readonly isPidAlive?: (pid: number) => boolean;
  readonly pid?: number;
  readonly hostname?: string;
  readonly bootId?: string;
  /** Called when another runner took the lease away (the store then refuses writes). */
  readonly onLost?: (reason: string) => void;
}

export interface SqliteStoreOptions {
  /** File path, or ':memory:'. Parent directories are created. */
  readonly path: string;
  /** See the header comment. Default 'FULL'. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** How long to wait on a lock held by another connection. Default 5 000 ms. */
  readonly busyTimeoutMs?: number;
  /** Wall clock for lease and migration times (adapter code; default Date.now). */
  readonly now?: () => number;
  readonly logger?: Logger;
  /** `false` skips the single-instance lease (read-only tools such as `capibot status`). */
  readonly lease?: LeaseOptions | false;
}

/** Tokens of stores open in this process: two stores in one process also exclude each other. */
const LIVE_TOKENS = new Set<string>();

interface LeaseRow {
  token: string;
  pid: number;
  hostname: string;
  boot_id: string;
  acquired_at: number;
  heartbeat_at: number;
}

function prepareAll(db: Database.Database) {
  return {
    nextSeq: db
      .prepare(
        `INSERT INTO sequences (strategy, last) VALUES (?, 1)
         ON CONFLICT (strategy) DO UPDATE SET last = last + 1 RETURNING last`,
      )
      .pluck(),
    bumpSeq: db.prepare(
      `INSERT INTO sequences (strategy, last) VALUES (?, ?)
       ON CONFLICT (strategy) DO UPDATE SET last = max(last, excluded.last)`,
    ),
    // Positional parameters (rows.ts orderValues): both take the same values, `client_oid` last.
    insertOrder: db.prepare(
      `INSERT INTO orders (${ORDER_DATA_COLUMNS.join(', ')}, client_oid)
       VALUES (${ORDER_DATA_COLUMNS.map(() => '?').join(', ')}, ?)`,
    ),
    updateOrder: db.prepare(
      `UPDATE orders SET ${ORDER_DATA_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE client_oid = ?`,
    ),
    getOrder: db.prepare('SELECT * FROM orders WHERE client_oid = ?'),
    // Two orders with one exchange id (a duplicate the reconciler reported) and one creation time:
    // the client_oid decides, as the memory store's order (created_at, client_oid) does.
    getOrderByOrderId: db.prepare(
      'SELECT * FROM orders WHERE order_id = ? ORDER BY created_at, client_oid LIMIT 1',
    ),
    // A plan order is also found by the plan's own id once its child order's id is its order id.
    getOrderByPlanOrderId: db.prepare(
      'SELECT * FROM orders WHERE plan_order_id = ? ORDER BY created_at, client_oid LIMIT 1',
    ),
    openOrders: db.prepare(`SELECT * FROM orders WHERE ${OPEN_ORDER_SQL} ORDER BY created_at, client_oid`),
    // Two indexed halves (the partial index of open orders, the update-time index) instead of one
    // `OR` that scans the whole table; UNION drops the rows both halves return.
    ordersSince: db.prepare(
      `SELECT * FROM orders WHERE ${OPEN_ORDER_SQL}
       UNION
       SELECT * FROM orders WHERE updated_at >= ?
       ORDER BY created_at, client_oid`,
    ),
    allOrders: db.prepare('SELECT * FROM orders ORDER BY created_at, client_oid'),
    // An order is updated at or after its creation: the update-time index bounds the scan to the
    // orders touched since `since`.
    countSince: db
      .prepare('SELECT COUNT(*) FROM orders WHERE updated_at >= ? AND created_at >= ? AND symbol = ?')
      .pluck(),
    recordFill: db.prepare(
      `INSERT INTO fills (trade_id, order_id, client_oid, symbol, position_side, order_side, direction, size,
         value, fee, realized_pnl, created_at)
       VALUES (@trade_id, @order_id, @client_oid, @symbol, @position_side, @order_side, @direction, @size,
         @value, @fee, @realized_pnl, @created_at)
       ON CONFLICT (trade_id) DO NOTHING`,
    ),
    hasFill: db.prepare('SELECT 1 FROM fills WHERE trade_id = ?').pluck(),
    allFills: db.prepare('SELECT * FROM fills ORDER BY created_at, rowid'),
    fillsForOrder: db.prepare('SELECT * FROM fills WHERE order_id = ? ORDER BY created_at, rowid'),
    unattributed: db.prepare(
      'SELECT * FROM fills WHERE client_oid IS NULL AND created_at >= ? ORDER BY created_at, rowid',
    ),
    attribute: db.prepare('UPDATE fills SET client_oid = ? WHERE trade_id = ? AND client_oid IS NULL'),
    journal: db.prepare(
      'INSERT INTO intent_journal (at, strategy, intent, outcome, client_oid) VALUES (?, ?, ?, ?, ?)',
    ),
    getMeta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
    deleteMeta: db.prepare('DELETE FROM meta WHERE key = ?'),
    setMeta: db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ),
    upsertPlan: db.prepare(
      `INSERT INTO plan_orders (order_id, client_oid, symbol, status, raw_status, type, order_type, size, price,
         trigger_price, created_at, first_seen_at, last_seen_at)
       VALUES (@order_id, @client_oid, @symbol, @status, @raw_status, @type, @order_type, @size, @price,
         @trigger_price, @created_at, @first_seen_at, @last_seen_at)
       ON CONFLICT (order_id) DO UPDATE SET client_oid = excluded.client_oid, status = excluded.status,
         raw_status = excluded.raw_status, size = excluded.size, price = excluded.price,
         trigger_price = excluded.trigger_price, last_seen_at = excluded.last_seen_at`,
    ),
    planOrders: db.prepare('SELECT * FROM plan_orders ORDER BY created_at, order_id'),
    planStatus: db.prepare('SELECT status FROM plan_orders WHERE order_id = ?').pluck(),
    // Prune (./prune-plan.ts): rows by primary key, journal lines by time.
    deleteOrder: db.prepare('DELETE FROM orders WHERE client_oid = ?'),
    deleteFill: db.prepare('DELETE FROM fills WHERE trade_id = ?'),
    deletePlan: db.prepare('DELETE FROM plan_orders WHERE order_id = ?'),
    countJournal: db.prepare('SELECT COUNT(*) FROM intent_journal WHERE at < ?').pluck(),
    deleteJournal: db.prepare('DELETE FROM intent_journal WHERE at < ?'),
    getLease: db.prepare('SELECT * FROM lease WHERE id = 1'),
    putLease: db.prepare(
      `INSERT OR REPLACE INTO lease (id, token, pid, hostname, boot_id, acquired_at, heartbeat_at)
       VALUES (1, ?, ?, ?, ?, ?, ?)`,
    ),
    heartbeat: db.prepare('UPDATE lease SET heartbeat_at = ? WHERE id = 1 AND token = ?'),
    releaseLease: db.prepare('DELETE FROM lease WHERE id = 1 AND token = ?'),
  };
}

type Statements = ReturnType<typeof prepareAll>;

function isConstraint(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
}

export class SqliteStore implements OrderStore {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly st: Statements;
  /** One transaction wrapper for every call (better-sqlite3 builds a new one per `db.transaction`). */
  private readonly tx: (fn: () => unknown) => unknown;
  private readonly now: () => number;
  private readonly logger: Logger | undefined;
  private readonly identity: LeaseIdentity | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private lostReason: string | undefined;
  private closed = false;

  constructor(options: SqliteStoreOptions | string) {
    const o: SqliteStoreOptions = typeof options === 'string' ? { path: options } : options;
    this.path = o.path;
    this.now = o.now ?? Date.now;
    this.logger = o.logger;
    const memory = o.path === ':memory:' || o.path === '';
    try {
      if (!memory) mkdirSync(dirname(o.path), { recursive: true });
      this.db = new Database(o.path);
    } catch (e) {
      throw new StoreError(`cannot open store ${o.path}: ${(e as Error).message}`);
    }
    try {
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(o.busyTimeoutMs ?? 5000))}`);
      if (!memory) {
        const mode = this.db.pragma('journal_mode = WAL', { simple: true });
        if (mode !== 'wal') {
          this.logger?.warn({ path: o.path, mode }, 'store: WAL mode unavailable on this file system');
        }
      }
      this.db.pragma(`synchronous = ${o.synchronous ?? 'FULL'}`);
      migrate(this.db, this.now());
      this.st = prepareAll(this.db);
      this.tx = this.db.transaction((fn: () => unknown) => fn());
      this.identity = o.lease === false ? undefined : this.acquireLease(o.lease ?? {});
    } catch (e) {
      this.db.close();
      if (e instanceof StoreError) throw e;
      throw new StoreError(`cannot open store ${o.path}: ${(e as Error).message}`);
    }
  }

  // --- lease ------------------------------------------------------------------------------------

  private acquireLease(opts: LeaseOptions): LeaseIdentity {
    const me: LeaseIdentity = {
      token: randomUUID(),
      pid: opts.pid ?? process.pid,
      hostname: opts.hostname ?? currentHostname(),
      bootId: opts.bootId ?? currentBootId(),
    };
    const staleMs = opts.staleMs ?? 60_000;
    const take = this.db.transaction(() => {
      const row = this.st.getLease.get() as LeaseRow | undefined;
      const holder: LeaseHolder | undefined =
        row === undefined
          ? undefined
          : {
              token: row.token,
              pid: row.pid,
              hostname: row.hostname,
              bootId: row.boot_id,
              acquiredAt: row.acquired_at,
              heartbeatAt: row.heartbeat_at,
            };
      const now = this.now();
      const decision = decideLease(holder, me, {
        now,
        staleMs,
        isPidAlive: opts.isPidAlive ?? isPidAlive,
        liveTokens: LIVE_TOKENS,
      });
      if (decision.kind === 'refuse') {
        throw new StoreError(`store ${this.path} is in use: ${decision.reason}`);
      }
      if (decision.kind === 'takeover') {
        this.logger?.warn({ path: this.path, reason: decision.reason }, 'store: taking over a stale lease');
      }
      this.st.putLease.run(me.token, me.pid, me.hostname, me.bootId, now, now);
    });
    take.immediate();
    LIVE_TOKENS.add(me.token);
    const period = opts.heartbeatMs ?? 5000;
    if (period > 0) {
      this.heartbeatTimer = setInterval(() => this.heartbeat(opts.onLost), period);
      this.heartbeatTimer.unref();
    }
    return me;
  }

  /** Refreshes the lease; if another runner took it, stop writing (and say so loudly). */
  heartbeat(onLost?: (reason: string) => void): void {
    if (this.closed || this.identity === undefined || this.lostReason !== undefined) return;
    const changed = this.st.heartbeat.run(this.now(), this.identity.token).changes;
    if (changed === 0) {
      const row = this.st.getLease.get() as LeaseRow | undefined;
      this.lostReason =
        row === undefined
          ? 'the lease row was removed'
          : `the lease was taken over by pid ${row.pid} on ${row.hostname}`;
      this.logger?.error({ path: this.path, reason: this.lostReason }, 'store: lease lost, refusing writes');
      onLost?.(this.lostReason);
    }
  }

  private writable(): void {
    if (this.closed) throw new StoreError(`store ${this.path} is closed`);
    if (this.lostReason !== undefined) {
      throw new StoreError(`store ${this.path} is no longer ours: ${this.lostReason}`);
    }
  }

  // --- OrderStore -------------------------------------------------------------------------------

  nextSequence(strategy: StrategyId): number {
    this.writable();
    return this.st.nextSeq.get(strategy) as number;
  }

  bumpSequence(strategy: StrategyId, atLeast: number): void {
    this.writable();
    if (!Number.isSafeInteger(atLeast) || atLeast < 0) {
      throw new StoreError(`bad sequence ${atLeast} for strategy ${strategy}`);
    }
    this.st.bumpSeq.run(strategy, atLeast);
  }

  insertOrder(order: Order): void {
    this.writable();
    try {
      this.st.insertOrder.run(orderValues(order));
    } catch (e) {
      if (isConstraint(e)) {
        const exists = this.st.getOrder.get(order.clientOid) !== undefined;
        throw new StoreError(
          exists
            ? `order ${order.clientOid} already exists in the store (a client_oid is never reused)`
            : `order ${order.clientOid} violates the store schema: ${(e as Error).message}`,
        );
      }
      throw new StoreError(`cannot insert order ${order.clientOid}: ${(e as Error).message}`);
    }
  }

  updateOrder(order: Order): void {
    this.writable();
    let changes: number;
    try {
      changes = this.st.updateOrder.run(orderValues(order)).changes;
    } catch (e) {
      throw new StoreError(`cannot update order ${order.clientOid}: ${(e as Error).message}`);
    }
    if (changes === 0) throw new StoreError(`cannot update order ${order.clientOid}: not in the store`);
  }

  getOrder(clientOid: ClientOid): Order | undefined {
    const row = this.st.getOrder.get(clientOid) as OrderRow | undefined;
    return row === undefined ? undefined : orderFromRow(row);
  }

  getOrderByOrderId(orderId: OrderId): Order | undefined {
    const row = (this.st.getOrderByOrderId.get(orderId) ?? this.st.getOrderByPlanOrderId.get(orderId)) as
      OrderRow | undefined;
    return row === undefined ? undefined : orderFromRow(row);
  }

  openOrders(): readonly Order[] {
    return (this.st.openOrders.all() as OrderRow[]).map(orderFromRow);
  }

  ordersUpdatedSince(since: number, keepTerminal?: (o: Order) => boolean): readonly Order[] {
    const all = (this.st.ordersSince.all(since) as OrderRow[]).map(orderFromRow);
    return keepTerminal === undefined ? all : all.filter((o) => !isTerminal(o.status) || keepTerminal(o));
  }

  allOrders(): readonly Order[] {
    return (this.st.allOrders.all() as OrderRow[]).map(orderFromRow);
  }

  countOrdersSince(symbol: SymbolId, since: number): number {
    return this.st.countSince.get(since, since, symbol) as number;
  }

  recordFill(fill: StoredFill): boolean {
    this.writable();
    return this.st.recordFill.run(fillToRow(fill)).changes === 1;
  }

  hasFill(tradeId: TradeId): boolean {
    return this.st.hasFill.get(tradeId) !== undefined;
  }

  allFills(): readonly StoredFill[] {
    return (this.st.allFills.all() as FillRow[]).map(fillFromRow);
  }

  fillsForOrder(orderId: OrderId): readonly StoredFill[] {
    return (this.st.fillsForOrder.all(orderId) as FillRow[]).map(fillFromRow);
  }

  unattributedFills(since = 0): readonly StoredFill[] {
    return (this.st.unattributed.all(since) as FillRow[]).map(fillFromRow);
  }

  attributeFill(tradeId: TradeId, clientOid: ClientOid): boolean {
    this.writable();
    return this.st.attribute.run(clientOid, tradeId).changes === 1;
  }

  appendJournal(entry: JournalEntry): void {
    this.writable();
    this.st.journal.run(
      entry.at,
      entry.strategy,
      intentJson(entry.intent),
      entry.outcome,
      entry.clientOid ?? null,
    );
  }

  getMeta(key: string): string | undefined {
    return this.st.getMeta.get(key) as string | undefined;
  }

  setMeta(key: string, value: string): void {
    this.writable();
    this.st.setMeta.run(key, value);
  }

  deleteMeta(key: string): void {
    this.writable();
    this.st.deleteMeta.run(key);
  }

  recordPlanOrder(report: PlanReport, seenAt: number): void {
    this.writable();
    this.st.upsertPlan.run(planToRow(report, seenAt));
  }

  planOrders(): readonly StoredPlanOrder[] {
    return (this.st.planOrders.all() as PlanRow[]).map(planFromRow);
  }

  planOrderStatus(orderId: string): PlanReport['status'] | undefined {
    const status = this.st.planStatus.get(orderId) as string | undefined;
    return status === undefined ? undefined : planStatusOf(status, orderId);
  }

  prune(rules: PruneRules, options: PruneOptions = {}): PruneResult {
    const dryRun = options.dryRun === true;
    if (dryRun) {
      if (this.closed) throw new StoreError(`store ${this.path} is closed`);
    } else {
      this.writable();
    }
    const run = (): PruneResult => {
      const plan = planPrune(
        { orders: this.allOrders(), fills: this.allFills(), plans: this.planOrders() },
        rules,
      );
      const journal = this.st.countJournal.get(rules.before) as number;
      if (!dryRun) {
        for (const t of plan.removeFills) this.st.deleteFill.run(t);
        for (const oid of plan.removeOrders) this.st.deleteOrder.run(oid);
        for (const id of plan.removePlans) this.st.deletePlan.run(id);
        this.st.deleteJournal.run(rules.before);
        for (const c of plan.carry) {
          if (c.order !== undefined) this.st.insertOrder.run(orderValues(c.order));
          this.st.recordFill.run(fillToRow(c.fill));
        }
      }
      const result = pruneResult(plan, rules.before, dryRun, journal);
      if (!dryRun && options.meta !== undefined) {
        for (const [k, v] of Object.entries(options.meta(result))) this.st.setMeta.run(k, v);
      }
      return result;
    };
    try {
      // A dry run reads one snapshot; a prune takes the write lock before it reads.
      return dryRun ? this.db.transaction(run)() : this.db.transaction(run).immediate();
    } catch (e) {
      if (e instanceof CapibotError) throw e;
      throw new StoreError(`cannot prune store ${this.path}: ${(e as Error).message}`);
    }
  }

  /**
   * Rewrites the file without its free pages (SQLite's VACUUM): after a prune the file keeps its size
   * and reuses the freed pages for new rows; this returns them to the file system. Needs free disk
   * space about the size of the store, and no other connection writing meanwhile.
   */
  vacuum(): void {
    this.writable();
    try {
      this.db.exec('VACUUM');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (e) {
      throw new StoreError(`cannot vacuum store ${this.path}: ${(e as Error).message}`);
    }
  }

  transaction<T>(fn: () => T): T {
    this.writable();
    return this.tx(fn) as T;
  }

  /** Releases the lease and closes the file. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeatTimer !== undefined) clearInterval(this.heartbeatTimer);
    if (this.identity !== undefined) {
      LIVE_TOKENS.delete(this.identity.token);
      if (this.lostReason === undefined && this.db.open) {
        try {
          this.st.releaseLease.run(this.identity.token);
        } catch (e) {
          this.logger?.warn(
            { path: this.path, err: (e as Error).message },
            'store: could not release the lease',
          );
        }
      }
    }
    if (this.db.open) this.db.close();
  }
}
