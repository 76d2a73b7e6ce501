// The backtest's store: the OrderStore port in memory, with the SQLite store's semantics (the same
// orderings, the same refusals, transactions that roll back as a whole) and an index behind every
// query a round makes, so no query reads every order of the run. A backtest needs no durability (its
// record is the report) and was spending a tenth of its time in SQLite (issue #24).
//
// Orderings, as the SQLite queries give them: orders by (created_at, client_oid); fills by
// (created_at, insertion); plan orders by (created_at, order_id). The intent journal is counted, not
// kept: nothing reads it back in a backtest, and it would grow with every intent.
import { StoreError } from '../core/errors.ts';
import { combineFootprints, sumSizes, type Footprint } from '../core/footprint.ts';
import type { ClientOid, OrderId, StrategyId, SymbolId, TradeId } from '../core/ids.ts';
import { mapToObjects, objectList } from '../core/object-lists.ts';
import { byCreation, isTerminal, type Order } from '../core/orders.ts';
import type { PlanReport } from '../core/reports.ts';
import { sortInPlace } from '../core/small-sort.ts';
import type {
  JournalEntry,
  OrderStore,
  PruneOptions,
  PruneResult,
  PruneRules,
  StoredFill,
  StoredPlanOrder,
} from './port.ts';
import { ColdRows } from './cold-rows.ts';
import { fillValues, orderValues } from './rows.ts';
import { planPrune, pruneResult } from './prune-plan.ts';
import { storedFill } from './stored-fill.ts';

/** First index in `xs` (ascending by `key`) whose key is ≥ `value`. */
function lowerBound<T>(xs: readonly T[], value: number, key: (x: T) => number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(xs[mid] as T) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts keeping `xs` ascending by `key`, after equal keys: O(1) when it goes last, as most do. */
function insertSorted<T>(xs: T[], x: T, key: (x: T) => number): void {
  const k = key(x);
  const last = xs[xs.length - 1];
  if (last === undefined || key(last) <= k) {
    xs.push(x);
    return;
  }
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(xs[mid] as T) <= k) lo = mid + 1;
    else hi = mid;
  }
  xs.splice(lo, 0, x);
}

/**
 * Replaces the contents of `xs` by `items`, in place (not `splice(0, n, ...items)`: spreading an array
 * into arguments throws a RangeError past about 120 000 items).
 */
function refillArray<T>(xs: T[], items: readonly T[]): void {
  xs.length = 0;
  for (const x of items) xs.push(x);
}

/** Removes `x` from `xs` (the last occurrence), if there. */
/**
 * Where `order` is in `list` (ascending by creation time): a binary search to its creation time, then
 * the orders created at that same time (a batch), by identity. -1 when it is not there.
 */
function indexOfOrder(list: readonly Order[], order: Order): number {
  for (let i = lowerBound(list, order.createdAt, (o) => o.createdAt); i < list.length; i++) {
    const o = list[i] as Order;
    if (o === order) return i;
    if (o.createdAt !== order.createdAt) break;
  }
  return -1;
}

function remove<T>(xs: T[], x: T): void {
  const i = xs.lastIndexOf(x);
  if (i >= 0) xs.splice(i, 1);
}

/** Every row the indexes are built from (a prune rebuilds them from the rows that stay). */
interface Rows {
  readonly orders: readonly Order[];
  /** In insertion order, as they are now (attributed ones with their order). */
  readonly fills: readonly StoredFill[];
  readonly plans: readonly StoredPlanOrder[];
}

interface TerminalMark {
  readonly updatedAt: number;
  readonly clientOid: ClientOid;
}

export class MemoryStore implements OrderStore {
  readonly #orders = new Map<ClientOid, Order>();
  readonly #open = new Map<ClientOid, Order>();
  /** Terminal orders by the time of their terminal write (a later write adds a newer mark). */
  readonly #terminal: TerminalMark[] = [];
  readonly #byOrderId = new Map<OrderId, ClientOid>();
  /** Per symbol: the orders by creation time (countOrdersSince). */
  readonly #bySymbol = new Map<SymbolId, Order[]>();
  readonly #fills = new Map<TradeId, StoredFill>();
  readonly #fillList: StoredFill[] = [];
  readonly #fillsByOrder = new Map<OrderId, StoredFill[]>();
  readonly #unattributed = new Set<TradeId>();
  /** Insertion number of each fill (SQLite's rowid): the tie-break of equal creation times. */
  readonly #rowid = new Map<TradeId, number>();
  /** The next fill's insertion number (never reused: retired fills keep theirs). */
  #nextRowid = 0;
  readonly #meta = new Map<string, string>();
  readonly #sequences = new Map<StrategyId, number>();
  readonly #plans = new Map<string, StoredPlanOrder>();
  /**
   * Retired rows (`retire`): terminal orders last updated before the watermark and their fills, in a
   * spill file out of the heap (their ids in compact sets).
   * Every query below answers from them too, so retiring changes no answer.
   */
  readonly #cold = new ColdRows();
  /** Retired orders brought back inside the open transaction (#restoreOrderId); emptied when it ends. */
  readonly #thawedInTx = new Set<ClientOid>();
  /** Undo steps of the transactions in progress; `#marks` holds where each nested one began. */
  readonly #undo: (() => void)[] = [];
  readonly #marks: number[] = [];
  #journalLines = 0;
  #closed = false;

  /** Intent journal lines written (they are counted, not kept). */
  get journalLines(): number {
    return this.#journalLines;
  }

  /**
   * Every index's entries (core/footprint.ts). The live indexes (`orders` … `rowid`, `byOrderId`)
   * hold the open orders and what was not retired yet; `sequences` and `meta` a few values per
   * strategy. The retired rows (`cold.retiredOrders`, `cold.retiredFills`: lines of the spill file,
   * on disk), their ids (`cold.idSlots`, 4 bytes each) and `plans` are the run's record and grow with
   * it (TESTING.md, "Bounded memory").
   */
  footprint(): Footprint {
    return {
      orders: this.#orders.size,
      open: this.#open.size,
      terminal: this.#terminal.length,
      bySymbol: sumSizes(this.#bySymbol),
      fills: this.#fills.size,
      fillList: this.#fillList.length,
      fillsByOrder: this.#fillsByOrder.size,
      unattributed: this.#unattributed.size,
      rowid: this.#rowid.size,
      sequences: this.#sequences.size,
      undo: this.#undo.length,
      marks: this.#marks.length,
      byOrderId: this.#byOrderId.size,
      meta: this.#meta.size,
      plans: this.#plans.size,
      ...combineFootprints({ cold: this.#cold.footprint() }),
    };
  }

  #writable(): void {
    if (this.#closed) throw new StoreError('store :memory: is closed');
  }

  /** Records how to undo a write, when inside a transaction. */
  #onUndo(step: () => void): void {
    if (this.#marks.length > 0) this.#undo.push(step);
  }

  nextSequence(strategy: StrategyId): number {
    this.#writable();
    const before = this.#sequences.get(strategy);
    const next = (before ?? 0) + 1;
    this.#sequences.set(strategy, next);
    this.#onUndo(() =>
      before === undefined ? this.#sequences.delete(strategy) : this.#sequences.set(strategy, before),
    );
    return next;
  }

  bumpSequence(strategy: StrategyId, atLeast: number): void {
    this.#writable();
    if (!Number.isSafeInteger(atLeast) || atLeast < 0) {
      throw new StoreError(`bad sequence ${atLeast} for strategy ${strategy}`);
    }
    const before = this.#sequences.get(strategy);
    this.#sequences.set(strategy, Math.max(before ?? 0, atLeast));
    this.#onUndo(() =>
      before === undefined ? this.#sequences.delete(strategy) : this.#sequences.set(strategy, before),
    );
  }

  insertOrder(order: Order): void {
    this.#writable();
    if (this.#orders.has(order.clientOid) || this.#cold.hasOrder(order.clientOid)) {
      throw new StoreError(
        `order ${order.clientOid} already exists in the store (a client_oid is never reused)`,
      );
    }
    const bySymbol = this.#bySymbol.get(order.symbol) ?? [];
    this.#bySymbol.set(order.symbol, bySymbol);
    insertSorted(bySymbol, order, (o) => o.createdAt);
    const idBefore = order.orderId !== undefined ? this.#byOrderId.get(order.orderId) : undefined;
    const mark = this.#put(order);
    this.#onUndo(() => {
      this.#orders.delete(order.clientOid);
      this.#open.delete(order.clientOid);
      if (mark !== undefined) remove(this.#terminal, mark);
      if (order.orderId !== undefined) this.#restoreOrderId(order.orderId, idBefore);
      remove(bySymbol, order);
    });
  }

  updateOrder(order: Order): void {
    this.#writable();
    this.#thaw(order.clientOid);
    const before = this.#orders.get(order.clientOid);
    if (before === undefined)
      throw new StoreError(`cannot update order ${order.clientOid}: not in the store`);
    const list = this.#bySymbol.get(before.symbol);
    const at = list !== undefined ? indexOfOrder(list, before) : -1;
    // A stored order's symbol and creation time do not change: it keeps its place in the list.
    if (list !== undefined && at >= 0) list[at] = order;
    const idBefore = order.orderId !== undefined ? this.#byOrderId.get(order.orderId) : undefined;
    const mark = this.#put(order);
    this.#onUndo(() => {
      // Found again rather than by `at`: a prune in the same transaction may have brought retired
      // orders back into this list (#thawAll), moving the order from where it was written.
      const now = list !== undefined ? indexOfOrder(list, order) : -1;
      if (list !== undefined && now >= 0) list[now] = before;
      if (mark !== undefined) remove(this.#terminal, mark);
      if (order.orderId !== undefined) this.#restoreOrderId(order.orderId, idBefore);
      this.#put(before, false);
    });
  }

  /**
   * Writes `order` into every index; a terminal write also gets a mark for ordersUpdatedSince (not
   * when `mark` is false: an undo), which it returns.
   */
  #put(order: Order, mark = true): TerminalMark | undefined {
    this.#orders.set(order.clientOid, order);
    let written: TerminalMark | undefined;
    if (isTerminal(order.status)) {
      this.#open.delete(order.clientOid);
      if (mark) {
        written = { updatedAt: order.updatedAt, clientOid: order.clientOid };
        insertSorted(this.#terminal, written, (m) => m.updatedAt);
      }
    } else {
      this.#open.set(order.clientOid, order);
    }
    if (order.orderId !== undefined) {
      const held = this.#byOrderId.get(order.orderId);
      const other = held !== undefined && held !== order.clientOid ? this.getOrder(held) : undefined;
      // The earliest created order with the id, as `ORDER BY created_at, client_oid LIMIT 1` picks.
      if (other === undefined || byCreation(order, other) < 0)
        this.#byOrderId.set(order.orderId, order.clientOid);
    }
    return written;
  }

  getOrder(clientOid: ClientOid): Order | undefined {
    return this.#orders.get(clientOid) ?? this.#cold.order(clientOid);
  }

  getOrderByOrderId(orderId: OrderId): Order | undefined {
    const oid = this.#byOrderId.get(orderId);
    const hot = oid === undefined ? undefined : this.getOrder(oid);
    // Retired orders left #byOrderId; the cold rows answer for them (a file scan, only when one of
    // them holds the id).
    const cold = this.#cold.orderByOrderId(orderId);
    if (cold === undefined) return hot;
    return hot === undefined || byCreation(cold, hot) < 0 ? cold : hot;
  }

  openOrders(): readonly Order[] {
    return sortInPlace([...this.#open.values()], byCreation);
  }

  ordersUpdatedSince(since: number, keepTerminal?: (o: Order) => boolean): readonly Order[] {
    const out: Order[] = [...this.#open.values()];
    // Terminal orders only: a mark left by a terminal write that was undone names an open order,
    // listed above. `taken` keeps an order marked twice (ended, then updated again) from being listed twice.
    const taken = new Set<ClientOid>();
    const take = (o: Order): void => {
      if (o.updatedAt < since || !isTerminal(o.status) || taken.has(o.clientOid)) return;
      if (keepTerminal !== undefined && !keepTerminal(o)) return;
      taken.add(o.clientOid);
      out.push(o);
    };
    for (let i = lowerBound(this.#terminal, since, (m) => m.updatedAt); i < this.#terminal.length; i++) {
      const o = this.#orders.get((this.#terminal[i] as TerminalMark).clientOid);
      if (o !== undefined) take(o);
    }
    // Retired orders were last updated before the watermark: only an older `since` reaches them.
    if (since < this.#cold.watermark) this.#cold.forEachOrder(take);
    return sortInPlace(out, byCreation);
  }

  allOrders(): readonly Order[] {
    return [...this.#orders.values(), ...this.#cold.orders()].sort(byCreation);
  }

  /**
   * Calls `each` with every order, in no particular order, without gathering them: the retired ones
   * are read back one at a time (a long backtest's end counts its orders so).
   */
  forEachOrder(each: (o: Order) => void): void {
    for (const o of this.#orders.values()) each(o);
    this.#cold.forEachOrder(each);
  }

  /**
   * `forEachOrder` with each order as `orderValues` lists it: the retired ones parsed from their
   * lines without decoding them (the report's spool copies them on: src/backtest/report/spooled-rows.ts).
   */
  forEachOrderValues(each: (values: readonly unknown[]) => void): void {
    for (const o of this.#orders.values()) each(orderValues(o));
    this.#cold.forEachOrderValues(each);
  }

  countOrdersSince(symbol: SymbolId, since: number): number {
    const list = this.#bySymbol.get(symbol) ?? [];
    let n = 0;
    for (let i = lowerBound(list, since, (o) => o.createdAt); i < list.length; i++) {
      if ((list[i] as Order).updatedAt >= since) n++;
    }
    if (since < this.#cold.watermark) {
      for (const o of this.#cold.orders()) {
        if (o.symbol === symbol && o.createdAt >= since && o.updatedAt >= since) n++;
      }
    }
    return n;
  }

  recordFill(fill: StoredFill): boolean {
    this.#writable();
    if (this.#fills.has(fill.tradeId) || this.#cold.hasFill(fill.tradeId)) return false;
    this.#fills.set(fill.tradeId, fill);
    this.#rowid.set(fill.tradeId, this.#nextRowid++);
    this.#fillList.push(fill);
    const byOrder = this.#fillsByOrder.get(fill.orderId) ?? [];
    this.#fillsByOrder.set(fill.orderId, byOrder);
    byOrder.push(fill);
    if (fill.clientOid === undefined) this.#unattributed.add(fill.tradeId);
    this.#onUndo(() => {
      this.#fills.delete(fill.tradeId);
      this.#rowid.delete(fill.tradeId);
      this.#fillList.splice(this.#fillList.lastIndexOf(fill), 1);
      byOrder.splice(byOrder.lastIndexOf(fill), 1);
      this.#unattributed.delete(fill.tradeId);
    });
    return true;
  }

  hasFill(tradeId: TradeId): boolean {
    return this.#fills.has(tradeId) || this.#cold.hasFill(tradeId);
  }

  /** Fills by (created_at, insertion order), as they are now (attributed ones with their order). */
  #sorted(fills: readonly StoredFill[]): StoredFill[] {
    const rowid = (f: StoredFill): number => this.#rowid.get(f.tradeId) ?? 0;
    return sortInPlace(
      mapToObjects(fills, (f) => this.#fills.get(f.tradeId) ?? f),
      (a, b) => a.createdTime - b.createdTime || rowid(a) - rowid(b),
    );
  }

  /**
   * Calls `each` with every fill as it is now (attributed ones with their client_oid), as its values
   * in FILL_COLUMNS order, and its insertion number, in no particular order, without gathering them
   * (a long backtest's report spools them so: src/backtest/report/spooled-rows.ts). The retired ones
   * are read back one at a time, parsed but not decoded, with the JSON text of exactly those values
   * (their values carry the rowid after them); a live fill's text is undefined and its values are
   * exactly FILL_COLUMNS. Sorting by (created_at, rowid) gives allFills()'s order.
   */
  forEachFillValues(
    each: (values: readonly unknown[], text: string | undefined, rowid: number) => void,
  ): void {
    for (const f of this.#fillList)
      each(fillValues(this.#fills.get(f.tradeId) ?? f), undefined, this.#rowid.get(f.tradeId) ?? 0);
    this.#cold.forEachFillValues(each);
  }

  allFills(): readonly StoredFill[] {
    return this.#withCold(this.#sorted(this.#fillList), () => true);
  }

  fillsForOrder(orderId: OrderId): readonly StoredFill[] {
    return this.#withCold(this.#sorted(this.#fillsByOrder.get(orderId) ?? []), (f) => f.orderId === orderId);
  }

  /** `hot` (sorted) with the retired fills that pass `keep`, in the same order (time, then rowid). */
  #withCold(hot: StoredFill[], keep: (f: StoredFill) => boolean): StoredFill[] {
    if (this.#cold.fillCount === 0) return hot;
    const all = this.#cold.fills().filter((c) => keep(c.fill));
    if (all.length === 0) return hot;
    for (const f of hot) all.push({ fill: f, rowid: this.#rowid.get(f.tradeId) ?? 0 });
    all.sort((a, b) => a.fill.createdTime - b.fill.createdTime || a.rowid - b.rowid);
    return all.map((c) => c.fill);
  }

  unattributedFills(since = 0): readonly StoredFill[] {
    // Only the fills still without their order (few): the set keeps them in insertion order.
    const out = objectList<StoredFill>();
    for (const t of this.#unattributed) {
      const f = this.#fills.get(t);
      if (f !== undefined && f.createdTime >= since) out.push(f);
    }
    return this.#sorted(out);
  }

  attributeFill(tradeId: TradeId, clientOid: ClientOid): boolean {
    this.#writable();
    // A retired fill has its client_oid (only attributed fills of retired orders retire).
    const before = this.#fills.get(tradeId);
    if (before === undefined || before.clientOid !== undefined) return false;
    this.#fills.set(tradeId, storedFill(before, clientOid));
    this.#unattributed.delete(tradeId);
    this.#onUndo(() => {
      this.#fills.set(tradeId, before);
      this.#unattributed.add(tradeId);
    });
    return true;
  }

  appendJournal(_entry: JournalEntry): void {
    this.#writable();
    this.#journalLines++;
    this.#onUndo(() => this.#journalLines--);
  }

  getMeta(key: string): string | undefined {
    return this.#meta.get(key);
  }

  setMeta(key: string, value: string): void {
    this.#writable();
    const before = this.#meta.get(key);
    this.#meta.set(key, value);
    this.#onUndo(() => (before === undefined ? this.#meta.delete(key) : this.#meta.set(key, before)));
  }

  deleteMeta(key: string): void {
    this.#writable();
    const before = this.#meta.get(key);
    if (before === undefined) return;
    this.#meta.delete(key);
    this.#onUndo(() => this.#meta.set(key, before));
  }

  recordPlanOrder(report: PlanReport, seenAt: number): void {
    this.#writable();
    const before = this.#plans.get(report.orderId);
    // As the SQL upsert: symbol, type, order type, creation and first sighting stay as first seen.
    this.#plans.set(report.orderId, {
      ...report,
      ...(before !== undefined
        ? {
            symbol: before.symbol,
            type: before.type,
            orderType: before.orderType,
            createTime: before.createTime,
          }
        : {}),
      firstSeenAt: before?.firstSeenAt ?? seenAt,
      lastSeenAt: seenAt,
    });
    this.#onUndo(() =>
      before === undefined ? this.#plans.delete(report.orderId) : this.#plans.set(report.orderId, before),
    );
  }

  planOrderStatus(orderId: string): PlanReport['status'] | undefined {
    return this.#plans.get(orderId)?.status;
  }

  planOrders(): readonly StoredPlanOrder[] {
    return [...this.#plans.values()].sort(
      (a, b) => a.createTime - b.createTime || (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0),
    );
  }

  /**
   * The same plan as the SQLite store's (./prune-plan.ts), applied by rebuilding the indexes from the
   * rows that stay plus the carry rows (an operator's action, not a backtest's: O(rows) is fine). The
   * intent journal is not kept here, so `journal` is always 0.
   */
  prune(rules: PruneRules, options: PruneOptions = {}): PruneResult {
    const dryRun = options.dryRun === true;
    if (this.#closed) throw new StoreError('store :memory: is closed');
    this.#thawAll();
    const rows = this.#rows();
    const plan = planPrune(
      { orders: this.allOrders(), fills: this.allFills(), plans: this.planOrders() },
      rules,
    );
    if (dryRun) return pruneResult(plan, rules.before, true, 0);
    // Undone by putting the very containers' contents back (the undo steps of earlier writes in the
    // transaction hold the arrays and marks they changed).
    const restore = this.#snapshot();
    const orders = new Set<string>(plan.removeOrders);
    const fills = new Set<string>(plan.removeFills);
    const plans = new Set<string>(plan.removePlans);
    this.#rebuild({
      orders: [
        ...rows.orders.filter((o) => !orders.has(o.clientOid)),
        ...plan.carry.flatMap((c) => (c.order !== undefined ? [c.order] : [])),
      ],
      fills: [...rows.fills.filter((f) => !fills.has(f.tradeId)), ...plan.carry.map((c) => c.fill)],
      plans: rows.plans.filter((p) => !plans.has(p.orderId)),
    });
    this.#onUndo(restore);
    const result = pruneResult(plan, rules.before, false, 0);
    if (options.meta !== undefined) {
      for (const [k, v] of Object.entries(options.meta(result))) this.setMeta(k, v);
    }
    return result;
  }

  #snapshot(): () => void {
    const orders = [...this.#orders];
    const open = [...this.#open];
    const terminal = [...this.#terminal];
    const byOrderId = [...this.#byOrderId];
    const bySymbol = [...this.#bySymbol];
    const fills = [...this.#fills];
    const fillList = [...this.#fillList];
    const fillsByOrder = [...this.#fillsByOrder];
    const unattributed = [...this.#unattributed];
    const rowid = [...this.#rowid];
    const plans = [...this.#plans];
    const nextRowid = this.#nextRowid;
    const refill = <K, V>(m: Map<K, V>, entries: readonly (readonly [K, V])[]): void => {
      m.clear();
      for (const [k, v] of entries) m.set(k, v);
    };
    return () => {
      refill(this.#orders, orders);
      refill(this.#open, open);
      refillArray(this.#terminal, terminal);
      refill(this.#byOrderId, byOrderId);
      refill(this.#bySymbol, bySymbol);
      refill(this.#fills, fills);
      refillArray(this.#fillList, fillList);
      refill(this.#fillsByOrder, fillsByOrder);
      this.#unattributed.clear();
      for (const t of unattributed) this.#unattributed.add(t);
      refill(this.#rowid, rowid);
      refill(this.#plans, plans);
      // The rebuild renumbered the rowids: a later fill must still sort after every restored one.
      this.#nextRowid = nextRowid;
    };
  }

  #rows(): Rows {
    return {
      orders: [...this.#orders.values()],
      fills: this.#fillList.map((f) => this.#fills.get(f.tradeId) ?? f),
      plans: [...this.#plans.values()],
    };
  }

  /**
   * Clears every index and fills it from `rows` (fills keep their order: it is their rowid), in new
   * per-symbol and per-order arrays: the old ones stay as they were, for an undo.
   */
  #rebuild(rows: Rows): void {
    this.#orders.clear();
    this.#open.clear();
    this.#terminal.length = 0;
    this.#byOrderId.clear();
    this.#bySymbol.clear();
    for (const o of [...rows.orders].sort(byCreation)) {
      const bySymbol = this.#bySymbol.get(o.symbol) ?? [];
      this.#bySymbol.set(o.symbol, bySymbol);
      insertSorted(bySymbol, o, (x) => x.createdAt);
      this.#put(o);
    }
    this.#fills.clear();
    this.#fillList.length = 0;
    this.#fillsByOrder.clear();
    this.#unattributed.clear();
    this.#rowid.clear();
    for (const f of rows.fills) {
      this.#fills.set(f.tradeId, f);
      this.#rowid.set(f.tradeId, this.#fillList.length);
      this.#fillList.push(f);
      this.#nextRowid = this.#fillList.length;
      const byOrder = this.#fillsByOrder.get(f.orderId) ?? [];
      this.#fillsByOrder.set(f.orderId, byOrder);
      byOrder.push(f);
      if (f.clientOid === undefined) this.#unattributed.add(f.tradeId);
    }
    this.#plans.clear();
    for (const p of rows.plans) this.#plans.set(p.orderId, p);
  }

  /**
   * Retires terminal orders last updated before `before`, and their attributed fills, from the live
   * indexes to the spill file (ColdRows): a long backtest's store then holds its live working set as
   * objects and its history on disk. Every query answers exactly as before (from the file when it
   * reaches that far back); a retired order that is updated again comes back first. Outside any
   * transaction only (it is not undone). Returns how many orders were retired.
   */
  retire(before: number): number {
    this.#writable();
    if (this.#marks.length > 0)
      throw new StoreError('store :memory: cannot retire rows inside a transaction');
    this.#cold.retiredBefore(before);
    const k = lowerBound(this.#terminal, before, (m) => m.updatedAt);
    if (k === 0) return 0;
    const retired = new Set<ClientOid>();
    for (const m of this.#terminal.slice(0, k)) {
      const o = this.#orders.get(m.clientOid);
      if (o === undefined || !isTerminal(o.status) || o.updatedAt >= before || retired.has(o.clientOid))
        continue;
      retired.add(o.clientOid);
      this.#cold.addOrder(o);
      this.#orders.delete(o.clientOid);
      if (o.orderId !== undefined && this.#byOrderId.get(o.orderId) === o.clientOid)
        this.#byOrderId.delete(o.orderId);
    }
    this.#terminal.splice(0, k);
    if (retired.size === 0) return 0;
    for (const [symbol, list] of this.#bySymbol) {
      this.#bySymbol.set(
        symbol,
        list.filter((o) => !retired.has(o.clientOid)),
      );
    }
    // A fill retires with the order it is attributed to (its client_oid), which need not be the order
    // its exchange order id names: it leaves the per-order index under its own order id.
    const keptFills: StoredFill[] = [];
    const leftOrderIds = new Set<OrderId>();
    for (const f of this.#fillList) {
      const now = this.#fills.get(f.tradeId) ?? f;
      if (now.clientOid !== undefined && retired.has(now.clientOid)) {
        this.#cold.addFill(now, this.#rowid.get(f.tradeId) ?? 0);
        this.#fills.delete(f.tradeId);
        this.#rowid.delete(f.tradeId);
        leftOrderIds.add(f.orderId);
      } else {
        keptFills.push(f);
      }
    }
    refillArray(this.#fillList, keptFills);
    for (const id of leftOrderIds) {
      const stay = (this.#fillsByOrder.get(id) ?? []).filter((f) => this.#fills.has(f.tradeId));
      if (stay.length === 0) this.#fillsByOrder.delete(id);
      else this.#fillsByOrder.set(id, stay);
    }
    return retired.size;
  }

  /**
   * Undoes a write of `id`'s entry in #byOrderId (`held`: what it named before). A retired order
   * brought back inside the transaction was not in the index when that write was recorded, so the
   * entry goes to the earliest created of `held` and those orders that hold the id.
   */
  #restoreOrderId(id: OrderId, held: ClientOid | undefined): void {
    const heldOrder = held !== undefined ? this.getOrder(held) : undefined;
    if (held !== undefined && heldOrder === undefined) {
      this.#byOrderId.set(id, held); // not readable (an undone insert): as it was
      return;
    }
    let earliest = heldOrder;
    for (const oid of this.#thawedInTx) {
      const o = this.#orders.get(oid);
      if (o?.orderId === id && (earliest === undefined || byCreation(o, earliest) < 0)) earliest = o;
    }
    if (earliest === undefined) this.#byOrderId.delete(id);
    else this.#byOrderId.set(id, earliest.clientOid);
  }

  /** Brings a retired order back to the live indexes (it is being updated). */
  #thaw(oid: ClientOid): void {
    const o = this.#cold.takeOrder(oid);
    if (o === undefined) return;
    if (this.#marks.length > 0) this.#thawedInTx.add(oid);
    const bySymbol = this.#bySymbol.get(o.symbol) ?? [];
    this.#bySymbol.set(o.symbol, bySymbol);
    insertSorted(bySymbol, o, (x) => x.createdAt);
    // With its terminal mark: ordersUpdatedSince finds live terminal orders by their marks.
    this.#put(o);
  }

  /** Brings every retired row back (a prune plans over every row). */
  #thawAll(): void {
    if (this.#cold.orderCount === 0 && this.#cold.fillCount === 0) return;
    const orders = this.#cold.orders();
    const fills = this.#cold.fills();
    this.#cold.clear();
    for (const o of orders) {
      if (this.#marks.length > 0) this.#thawedInTx.add(o.clientOid);
      const bySymbol = this.#bySymbol.get(o.symbol) ?? [];
      this.#bySymbol.set(o.symbol, bySymbol);
      insertSorted(bySymbol, o, (x) => x.createdAt);
      this.#put(o);
    }
    const all = [
      ...fills,
      ...this.#fillList.map((f) => ({
        fill: this.#fills.get(f.tradeId) ?? f,
        rowid: this.#rowid.get(f.tradeId) ?? 0,
      })),
    ].sort((a, b) => a.rowid - b.rowid);
    refillArray(
      this.#fillList,
      all.map((c) => c.fill),
    );
    for (const { fill, rowid } of fills) {
      this.#fills.set(fill.tradeId, fill);
      this.#rowid.set(fill.tradeId, rowid);
      const byOrder = this.#fillsByOrder.get(fill.orderId) ?? [];
      this.#fillsByOrder.set(fill.orderId, byOrder);
      byOrder.push(fill);
    }
  }

  /** Runs `fn` as one transaction: a throw undoes every write it made (nested ones too), then rethrows. */
  transaction<T>(fn: () => T): T {
    this.#writable();
    this.#marks.push(this.#undo.length);
    try {
      const out = fn();
      this.#marks.pop();
      if (this.#marks.length === 0) {
        this.#undo.length = 0;
        this.#thawedInTx.clear();
      }
      return out;
    } catch (e) {
      const mark = this.#marks.pop() ?? 0;
      while (this.#undo.length > mark) this.#undo.pop()?.();
      if (this.#marks.length === 0) this.#thawedInTx.clear();
      throw e;
    }
  }

  close(): void {
    this.#closed = true;
    this.#cold.close();
  }
}
