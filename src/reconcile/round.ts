// The synchronous half of a reconciliation round: what was fetched → the pure kernel → one store
// transaction (orders, fills, attributions, events, cursors) → a summary for the engine, logs and
// metrics. Runs without awaiting anything, so the store snapshot the kernel reads is the one it
// writes over: no executor event can slip in between.
import type { Logger } from 'pino';
import type { ClientOid, StrategyId, SymbolId, TradeId } from '../core/ids.ts';
import { NO_OBJECTS } from '../core/object-lists.ts';
import type { Order } from '../core/orders.ts';
import type { FillReport, OrderReport } from '../core/reports.ts';
import type { OrderStore, StoredFill } from '../store/port.ts';
import { commitReconcile, type CommittedReconcile } from './commit.ts';
import { reconcile, type ReconcileOutput, type ReconcileWarning } from './kernel.ts';
import { keepForRound, namedByRound, unsettledRows } from './round-orders.ts';
import { storedFill } from '../store/stored-fill.ts';

export interface RoundInput {
  readonly fills: readonly FillReport[];
  readonly reports: readonly OrderReport[];
  /** Kernel `historyCoversSince`; `now + 1` when no history was read (nothing may be declared lost). */
  readonly coversSince: number;
  /** Kernel `historyCoversSinceBySymbol`, when the history was read per symbol. */
  readonly coversSinceBySymbol?: ReadonlyMap<SymbolId, number>;
  /** Meta values committed with the result (cursors). */
  readonly meta: Readonly<Record<string, string>>;
}

export interface RoundSettings {
  readonly now: number;
  readonly graceMs: number;
  readonly prefix: string;
  readonly strategies: readonly StrategyId[];
  /** Terminal orders updated this recently stay in the kernel's input (late fills, terminal mismatches). */
  readonly recentMs: number;
  /** False when the round read no history: the "no trace outside the window" warning means nothing. */
  readonly readHistory: boolean;
  /** Which unconfirmed orders the reports can prove lost (kernel `lostScope`). Default `orders`. */
  readonly lostScope?: 'orders' | 'plans';
}

/** What a committed round changed, for the engine (positions, strategies), logs and metrics. */
export interface RoundResult {
  readonly at: number;
  /** The round read order history (a complete picture), not only fills. */
  readonly full: boolean;
  readonly committed: CommittedReconcile;
  readonly output: ReconcileOutput;
  /** Newly stored fills whose order is known, plus earlier fills attributed now (each tradeId once). */
  readonly fillsForEngine: readonly StoredFill[];
  /** Warnings worth showing (see `shownWarnings`). */
  readonly warnings: readonly ReconcileWarning[];
  /** What the round corrected, by kind (`capibot_reconcile_corrections_total`). */
  readonly corrections: Readonly<Record<string, number>>;
}

const NO_ORDERS: ReadonlyMap<ClientOid, Order> = new Map();

export function runRound(store: OrderStore, input: RoundInput, s: RoundSettings): RoundResult {
  const unattributed = store.unattributedFills?.(s.now - s.recentMs) ?? NO_OBJECTS;
  const fillLists = [input.fills, unattributed];
  const named = namedByRound(input.reports, fillLists);
  // A store may ignore `named` (it is optional): filtered again, which changes nothing when it did not.
  const window = keepForRound(
    store.ordersUpdatedSince?.(s.now - s.recentMs, named) ?? store.openOrders(),
    named,
  );
  // Rows that say what their order already holds change nothing: they stay out, and so do ended
  // orders only they named.
  const reports = unsettledRows(input.reports, window, fillLists);
  const orders = reports === input.reports ? window : keepForRound(window, namedByRound(reports, fillLists));
  const out = reconcile({
    orders,
    reports,
    fills: input.fills,
    knownTradeIds: (id) => store.hasFill(id),
    now: s.now,
    graceMs: s.graceMs,
    prefix: s.prefix,
    strategies: s.strategies,
    isKnownOrder: (oid) => store.getOrder(oid) !== undefined,
    historyCoversSince: input.coversSince,
    ...(input.coversSinceBySymbol !== undefined
      ? { historyCoversSinceBySymbol: input.coversSinceBySymbol }
      : {}),
    unattributedFills: unattributed,
    orderOf: (id) => store.getOrderByOrderId(id),
    ...(s.lostScope !== undefined ? { lostScope: s.lostScope } : {}),
  });
  const committed = commitReconcile(store, out, { prefix: s.prefix, meta: input.meta });
  return {
    at: s.now,
    full: s.readHistory,
    committed,
    output: out,
    fillsForEngine: fillsForEngine(out, unattributed),
    warnings: shownWarnings(out.warnings, s.readHistory),
    // Most rounds correct nothing: the orders are mapped only for a round with events.
    corrections: correctionsOf(
      out,
      out.events.length === 0 ? NO_ORDERS : new Map(orders.map((o) => [o.clientOid, o])),
    ),
  };
}

/** Fills the engine has not seen yet and can attribute: new ones with a client_oid, and attributions. */
function fillsForEngine(out: ReconcileOutput, unattributed: readonly StoredFill[]): StoredFill[] {
  const byTrade = new Map<TradeId, StoredFill>(unattributed.map((f) => [f.tradeId, f]));
  const result: StoredFill[] = out.newFills.filter((f) => f.clientOid !== undefined);
  for (const a of out.attributed) {
    const f = byTrade.get(a.tradeId);
    if (f !== undefined) result.push(storedFill(f, a.clientOid));
  }
  return result;
}

/** A fills-only round cannot settle unknown orders; its "outside history" warnings are noise. */
function shownWarnings(ws: readonly ReconcileWarning[], readHistory: boolean): ReconcileWarning[] {
  return readHistory ? [...ws] : ws.filter((w) => w.code !== 'unsettled-outside-history');
}

/** Counts of what a round corrected, named like the `capibot_reconcile_corrections_total` kinds. */
export function correctionsOf(
  out: ReconcileOutput,
  before: ReadonlyMap<ClientOid, Order>,
): Record<string, number> {
  const c: Record<string, number> = {};
  const add = (k: string, n = 1): void => {
    if (n > 0) c[k] = (c[k] ?? 0) + n;
  };
  add('adopted', out.adopted.length);
  for (const e of out.events) {
    const prev = before.get(e.clientOid);
    if (e.kind === 'OrderLost') add('declared_lost');
    else if (e.kind === 'OrderAccepted' && prev !== undefined && prev.orderId === undefined)
      add('settled_unknown');
    else if (e.kind === 'OrderFilled' && prev !== undefined && prev.status === 'canceled') add('late_fill');
    else if ((e.kind === 'OrderCanceled' || e.kind === 'OrderCompleted') && prev !== undefined)
      add('terminal_from_exchange');
  }
  add('attributed_fill', out.attributed.length);
  return c;
}

/** One log line per warning; losing an order or finding a lost one is an error, loudly. */
export function logWarnings(log: Logger, ws: readonly ReconcileWarning[]): void {
  for (const w of ws) {
    const fields = {
      code: w.code,
      ...(w.clientOid !== undefined ? { clientOid: w.clientOid } : {}),
      ...(w.orderId !== undefined ? { orderId: w.orderId } : {}),
    };
    if (w.code === 'order-lost' || w.code === 'lost-order-found' || w.code === 'duplicate-client-oid')
      log.error(fields, w.message);
    else log.warn(fields, w.message);
  }
}
