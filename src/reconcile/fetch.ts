// The reads of one reconciliation round, each request through the weight budget (`ReadThrough`, the
// executor's read lane: cancels > reads > placements, retried on 429 and transport failures). They
// only fetch: nothing here touches the store, so a round that fails half-way leaves no trace and the
// next one starts from the same committed cursors.
import type { Logger } from 'pino';
import type { EndpointId } from '../core/endpoints.ts';
import type { SymbolId } from '../core/ids.ts';
import type { Order } from '../core/orders.ts';
import type { FillReport, OrderReport, PlanReport } from '../core/reports.ts';
import type { ExchangePort, HistoryQuery, PlanHistoryQuery } from '../exchange/port.ts';
import { mayBeLost } from './kernel.ts';
import {
  afterFillsPage,
  beginFillsPoll,
  fillsQuery,
  type FillsCursor,
  type FillsPagingConfig,
} from './fills-paging.ts';
import {
  combinedCoverage,
  historyCoverage,
  historyQueries,
  type HistoryWindowConfig,
} from './history-window.ts';
import {
  nextPlanPage,
  planHistoryQueries,
  type PlanCursor,
  type PlanWindowConfig,
} from './plan-history-window.ts';

/** Runs one read request through the weight budget (e.g. `engine.executor.read`). */
export type ReadThrough = <T>(endpoint: EndpointId, run: () => Promise<T>) => Promise<T>;

/** A read straight to the port, outside any budget (last reconciliation after the executor stopped). */
export const directRead: ReadThrough = (_endpoint, run) => run();

export type ReconcilePort = Pick<ExchangePort, 'fills' | 'history' | 'planHistory' | 'currentPlans'>;

export interface FetchedFills {
  readonly fills: readonly FillReport[];
  /** The cursor to commit with these fills (never before them). */
  readonly cursor: FillsCursor;
  readonly pages: number;
}

/**
 * Reads the fills of one poll: from the cursor (newest seen − overlap), or, with no cursor yet, far
 * enough back to cover `oldestOpenAt` (the creation of the oldest non-terminal local order: after a
 * crash its fills must be found) — then pages back while `nextFlag` says more.
 */
export async function fetchFills(
  read: ReadThrough,
  port: ReconcilePort,
  cursor: FillsCursor,
  cfg: FillsPagingConfig,
  now: number,
  oldestOpenAt: number | undefined,
  log: Logger,
): Promise<FetchedFills> {
  const lookback =
    oldestOpenAt !== undefined
      ? Math.max(cfg.initialLookbackMs, now - oldestOpenAt + cfg.overlapMs)
      : cfg.initialLookbackMs;
  const pollCfg: FillsPagingConfig = { ...cfg, initialLookbackMs: lookback };
  let paging = beginFillsPoll(cursor, pollCfg, now);
  const fills: FillReport[] = [];
  let pages = 0;
  for (;;) {
    const q = fillsQuery(paging, pollCfg);
    const page = await read('fills', () => port.fills(q));
    pages++;
    fills.push(...page.fills);
    const step = afterFillsPage(paging, page, cursor, pollCfg);
    if (step.warning !== undefined) log.warn({ query: q }, step.warning);
    if (step.kind === 'done') return { fills, cursor: step.cursor, pages };
    paging = step.paging;
  }
}

export interface FetchedHistory {
  readonly reports: readonly OrderReport[];
  /** For the kernel's `historyCoversSince`: from when the rows are known to be complete. */
  readonly coversSince: number;
  /** The same per symbol that holds pending orders (the kernel's `historyCoversSinceBySymbol`). */
  readonly coversSinceBySymbol: ReadonlyMap<SymbolId, number>;
}

/**
 * One history query per symbol (configured symbols and those of non-terminal orders), each reaching
 * back to the oldest non-terminal order of its symbol.
 *
 * Coverage (what the kernel may declare lost on): only orders the exchange never acknowledged can be
 * declared lost (`mayBeLost`), so only the windows of their symbols count — a busy symbol's full page
 * must not stop an unknown order of another symbol from ever being settled. And when a symbol's page
 * comes back full because its window is wider than those orders need (the look-back, or an older
 * order resting in the book), it is asked again for just their span (the oldest one's creation minus
 * the skew margin): fewer rows, so that page may prove what the wide one could not. (Both found by
 * the chaos run, bench/chaos.ts.)
 */
export async function fetchHistory(
  read: ReadThrough,
  port: ReconcilePort,
  openOrders: readonly Order[],
  symbols: readonly SymbolId[],
  cfg: HistoryWindowConfig,
  now: number,
): Promise<FetchedHistory> {
  const queries = historyQueries(openOrders, symbols, cfg, now);
  const pendingSince = new Map<SymbolId, number>();
  for (const o of openOrders) {
    if (!mayBeLost(o)) continue;
    const start = Math.trunc(o.createdAt - cfg.skewMs);
    pendingSince.set(o.symbol, Math.min(pendingSince.get(o.symbol) ?? start, start));
  }
  const reports: OrderReport[] = [];
  const coverages: number[] = [];
  const bySymbol = new Map<SymbolId, number>();
  for (const q of queries) {
    const rows = await read('history', () => port.history(q));
    reports.push(...rows);
    const start = q.symbol !== undefined ? pendingSince.get(q.symbol) : undefined;
    if (q.symbol !== undefined && start === undefined) continue;
    let coverage = historyCoverage(q, rows.length, now);
    if (coverage > now && start !== undefined && q.createDate !== undefined && start > q.createDate) {
      const narrow: HistoryQuery = { ...q, createDate: start };
      const more = await read('history', () => port.history(narrow));
      reports.push(...more);
      coverage = historyCoverage(narrow, more.length, now);
    }
    coverages.push(coverage);
    if (q.symbol !== undefined) bySymbol.set(q.symbol, coverage);
  }
  return { reports, coversSince: combinedCoverage(coverages, now), coversSinceBySymbol: bySymbol };
}

export interface FetchedPlans {
  readonly plans: readonly PlanReport[];
  readonly cursor: PlanCursor;
  /**
   * The earliest plan creation time these windows list completely, up to now (every symbol caught
   * up, no window cut short by the page cap); `now + 1` when they do not reach now.
   */
  readonly coversSince: number;
}

/** Walks each symbol's plan-order history forward from its cursor, paging inside each window. */
export async function fetchPlans(
  read: ReadThrough,
  port: ReconcilePort,
  symbols: readonly SymbolId[],
  cursor: PlanCursor,
  cfg: PlanWindowConfig,
  now: number,
  maxPagesPerQuery = 10,
): Promise<FetchedPlans> {
  const plan = planHistoryQueries(symbols, cursor, cfg, now);
  const plans: PlanReport[] = [];
  let complete = symbols.every((s) => plan.cursorAfter[s] === now);
  let coversSince = now + 1;
  for (const first of plan.queries) {
    coversSince = Math.min(coversSince, first.startTime);
    let q: typeof first | undefined = first;
    let pages = 0;
    for (; q !== undefined && pages < maxPagesPerQuery; pages++) {
      const query: typeof first = q;
      const page = await read('historyPlan', () => port.planHistory(query));
      plans.push(...page.plans);
      q = nextPlanPage(query, page);
    }
    if (q !== undefined) complete = false;
  }
  return { plans, cursor: plan.cursorAfter, coversSince: complete ? coversSince : now + 1 };
}

/** Rows per currentPlan page (the venue's maximum). */
export const CURRENT_PLAN_PAGE = 100;

export interface FetchedCurrentPlans {
  readonly plans: readonly PlanReport[];
  /** Every page was read: a plan of ours that is not here has not been resting at the venue. */
  readonly complete: boolean;
}

/** Every untriggered plan (currentPlan, all symbols, page by page up to `maxPages`). */
export async function fetchCurrentPlans(
  read: ReadThrough,
  port: ReconcilePort,
  maxPages = 10,
): Promise<FetchedCurrentPlans> {
  const plans: PlanReport[] = [];
  for (let page = 0; page < maxPages; page++) {
    const got = await read('currentPlan', () => port.currentPlans({ page, limit: CURRENT_PLAN_PAGE }));
    plans.push(...got.plans);
    if (!got.nextPage || got.plans.length === 0) return { plans, complete: true };
  }
  return { plans, complete: false };
}

/** How far around a plan's local creation time its venue row is looked for (the venue stamps it later). */
export const PLAN_LOOKUP_BEFORE_MS = 60_000;
export const PLAN_LOOKUP_AFTER_MS = 10 * 60_000;

export interface FetchedPlansOf {
  readonly plans: readonly PlanReport[];
  /** Every window was read to its end. */
  readonly complete: boolean;
  /** The earliest creation time the windows cover (each plan's window covers its own). */
  readonly coversSince: number;
}

/**
 * The historyPlan rows of plans that left currentPlan: one window per plan around its creation
 * (windows of one symbol that overlap are read once), paging inside each.
 */
export async function fetchPlansOf(
  read: ReadThrough,
  port: ReconcilePort,
  orders: readonly Order[],
  now: number,
  maxPagesPerQuery = 10,
): Promise<FetchedPlansOf> {
  const plans: PlanReport[] = [];
  let complete = true;
  let coversSince = now + 1;
  const windows = new Map<string, { symbol: SymbolId; startTime: number; endTime: number }>();
  for (const o of [...orders].sort((a, b) => a.createdAt - b.createdAt)) {
    const startTime = Math.max(0, o.createdAt - PLAN_LOOKUP_BEFORE_MS);
    const endTime = Math.min(now, o.createdAt + PLAN_LOOKUP_AFTER_MS);
    const prev = windows.get(o.symbol);
    if (prev !== undefined && startTime <= prev.endTime) prev.endTime = Math.max(prev.endTime, endTime);
    else {
      if (prev !== undefined) windows.set(`${o.symbol}@${prev.startTime}`, prev);
      windows.set(o.symbol, { symbol: o.symbol, startTime, endTime });
    }
  }
  for (const w of windows.values()) {
    coversSince = Math.min(coversSince, w.startTime);
    let q: PlanHistoryQuery | undefined = { ...w, pageSize: CURRENT_PLAN_PAGE };
    let pages = 0;
    for (; q !== undefined && pages < maxPagesPerQuery; pages++) {
      const query: PlanHistoryQuery = q;
      const page = await read('historyPlan', () => port.planHistory(query));
      plans.push(...page.plans);
      q = nextPlanPage(query, page);
    }
    if (q !== undefined) complete = false;
  }
  return { plans, complete, coversSince };
}
