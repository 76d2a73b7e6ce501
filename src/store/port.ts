// The write-ahead store as the engine sees it. Synchronous on purpose: every state change is
// committed before the engine acts on it (an order is `created` in the store before its request
// leaves). Implemented by ./sqlite-store.ts (a file path, or ':memory:' for tests) and
// ./memory-store.ts (backtests).
import type { ClientOid, OrderId, StrategyId, SymbolId, TradeId } from '../core/ids.ts';
import type { Intent } from '../core/intents.ts';
import type { Order } from '../core/orders.ts';
import type { FillReport, PlanReport } from '../core/reports.ts';
import type { PruneCounts, PruneRules } from './prune-plan.ts';

export type { PruneRules } from './prune-plan.ts';

/** A fill as stored: the exchange's report plus the client_oid it was matched to (when known). */
export interface StoredFill extends FillReport {
  readonly clientOid?: ClientOid;
}

/** One line of the intent journal: what a strategy asked for and what became of it. */
export interface JournalEntry {
  readonly at: number;
  readonly strategy: StrategyId;
  /** The intent; a store that keeps the journal writes it as core/intent-json.ts's text. */
  readonly intent: Intent;
  readonly outcome: string;
  readonly clientOid?: ClientOid;
}

/** A plan (trigger) order as last seen in historyPlan. */
export interface StoredPlanOrder extends PlanReport {
  readonly firstSeenAt: number;
  readonly lastSeenAt: number;
}

export interface OrderStore {
  /** Next value of the persisted client_oid sequence for a strategy (never returns a value twice). */
  nextSequence(strategy: StrategyId): number;
  /** Writes a new order (status `created`); throws StoreError if the client_oid already exists. */
  insertOrder(order: Order): void;
  /** Replaces the stored record of an existing order. */
  updateOrder(order: Order): void;
  getOrder(clientOid: ClientOid): Order | undefined;
  getOrderByOrderId(orderId: OrderId): Order | undefined;
  /** Orders whose status is not terminal. */
  openOrders(): readonly Order[];
  allOrders(): readonly Order[];
  /** Records a fill once; returns false (and changes nothing) when the tradeId is already stored. */
  recordFill(fill: StoredFill): boolean;
  hasFill(tradeId: TradeId): boolean;
  allFills(): readonly StoredFill[];
  appendJournal(entry: JournalEntry): void;
  /** Small named values: poller cursors, trading state, last reconciliation time. */
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  /** Removes a meta value (a key nobody will read again: an attachment done). */
  deleteMeta(key: string): void;
  // --- Additive (issue #6). Optional so that test doubles written against the first version of this
  // port still compile; SqliteStore implements all of them.
  /** Raises a strategy's sequence to at least `atLeast` (adopted orders carry sequences we must skip). */
  bumpSequence?(strategy: StrategyId, atLeast: number): void;
  /**
   * Terminal orders updated at or after `since` plus every non-terminal order (reconcile input), in
   * creation order; with `keepTerminal`, only the terminal ones it accepts (a round asks for those
   * its rows and fills name: src/reconcile/round-orders.ts).
   */
  ordersUpdatedSince?(since: number, keepTerminal?: (o: Order) => boolean): readonly Order[];
  /** How many orders of `symbol` were created at or after `since` (terminal ones too). */
  countOrdersSince?(symbol: SymbolId, since: number): number;
  /** Fills stored before their order was known (no client_oid yet), created at or after `since`. */
  unattributedFills?(since?: number): readonly StoredFill[];
  /** Attaches a stored fill to its order once the order id → client_oid link is learned. */
  attributeFill?(tradeId: TradeId, clientOid: ClientOid): boolean;
  fillsForOrder?(orderId: OrderId): readonly StoredFill[];
  /** Records (or refreshes) a plan order seen in historyPlan; plan orders are shown, never acted on. */
  recordPlanOrder?(report: PlanReport, seenAt: number): void;
  planOrders?(): readonly StoredPlanOrder[];
  /**
   * The status a plan order was last recorded with, or undefined when it was never seen: one row by
   * its id (a plan round asks it of each row it reads, never of every plan of the run). A store that
   * records plan orders answers it.
   */
  planOrderStatus?(orderId: string): PlanReport['status'] | undefined;
  /**
   * Removes terminal history older than `rules.before` in one transaction (./prune-plan.ts: never a
   * non-terminal order nor its fills; positions and PnL folded from the fills stay exactly what they
   * were, through carry rows). With `dryRun` nothing changes: the counts say what would go. `meta`
   * values are written in the same transaction. The caller checks that no runner holds the store.
   */
  prune?(rules: PruneRules, options?: PruneOptions): PruneResult;
  /** Runs `fn` in one transaction. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export interface PruneOptions {
  readonly dryRun?: boolean;
  /** Meta values written in the prune's transaction, from its result (not in a dry run). */
  readonly meta?: (result: PruneResult) => Readonly<Record<string, string>>;
}

export interface PruneResult extends PruneCounts {
  readonly dryRun: boolean;
  readonly before: number;
  /** Fills created before this could go (≤ before: the reconciler may read later ones again). */
  readonly fillsBefore: number;
  /** Intent-journal lines written before the cutoff (the memory store keeps none: always 0). */
  readonly journal: number;
}
