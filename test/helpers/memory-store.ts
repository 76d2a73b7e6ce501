// An in-memory OrderStore for engine and executor tests (the SQLite store implements the same port).
// Orders are deep-frozen on the way in and copied out, like a real store that serialises them.
import { StoreError } from '../../src/core/errors.ts';
import type { ClientOid, OrderId, StrategyId, SymbolId, TradeId } from '../../src/core/ids.ts';
import { isTerminal, type Order } from '../../src/core/orders.ts';
import type { JournalEntry, OrderStore, StoredFill } from '../../src/store/port.ts';

export class MemoryStore implements OrderStore {
  readonly orders = new Map<ClientOid, Order>();
  readonly fills = new Map<TradeId, StoredFill>();
  readonly journal: JournalEntry[] = [];
  readonly meta = new Map<string, string>();
  readonly sequences = new Map<StrategyId, number>();
  /** Every write, in order, for write-ahead assertions: [kind, clientOid, status]. */
  readonly writes: [string, ClientOid, string][] = [];
  closed = false;

  nextSequence(strategy: StrategyId): number {
    const next = (this.sequences.get(strategy) ?? 0) + 1;
    this.sequences.set(strategy, next);
    return next;
  }
  insertOrder(order: Order): void {
    if (this.orders.has(order.clientOid)) throw new StoreError(`duplicate client_oid ${order.clientOid}`);
    this.orders.set(order.clientOid, Object.freeze({ ...order }));
    this.writes.push(['insert', order.clientOid, order.status]);
  }
  updateOrder(order: Order): void {
    if (!this.orders.has(order.clientOid)) throw new StoreError(`no order ${order.clientOid}`);
    this.orders.set(order.clientOid, Object.freeze({ ...order }));
    this.writes.push(['update', order.clientOid, order.status]);
  }
  getOrder(clientOid: ClientOid): Order | undefined {
    return this.orders.get(clientOid);
  }
  getOrderByOrderId(orderId: OrderId): Order | undefined {
    for (const o of this.orders.values()) if (o.orderId === orderId) return o;
    return undefined;
  }
  openOrders(): readonly Order[] {
    return [...this.orders.values()].filter((o) => !isTerminal(o.status));
  }
  allOrders(): readonly Order[] {
    return [...this.orders.values()];
  }
  countOrdersSince(symbol: SymbolId, since: number): number {
    let n = 0;
    for (const o of this.orders.values()) if (o.symbol === symbol && o.createdAt >= since) n++;
    return n;
  }
  recordFill(fill: StoredFill): boolean {
    if (this.fills.has(fill.tradeId)) return false;
    this.fills.set(fill.tradeId, fill);
    return true;
  }
  hasFill(tradeId: TradeId): boolean {
    return this.fills.has(tradeId);
  }
  allFills(): readonly StoredFill[] {
    return [...this.fills.values()];
  }
  appendJournal(entry: JournalEntry): void {
    this.journal.push(entry);
  }
  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }
  setMeta(key: string, value: string): void {
    this.meta.set(key, value);
  }
  deleteMeta(key: string): void {
    this.meta.delete(key);
  }
  transaction<T>(fn: () => T): T {
    return fn();
  }
  close(): void {
    this.closed = true;
  }
}
