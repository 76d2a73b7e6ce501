// Windows for the order-history endpoint (pure). It takes only `symbol`, `pageSize` and `createDate`
// (a lower bound on creation time, within the last 90 days; weex-facts.md §8) and has no page 2. So
// each poll asks, per symbol, for everything created since the oldest order that still needs settling
// (minus a clock-skew margin), or since a short lookback when nothing is pending; and a page that comes
// back full proves nothing about what it left out: the kernel must not declare orders lost on it.
import type { SymbolId } from '../core/ids.ts';
import { mapToObjects } from '../core/object-lists.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import { byCodeUnits, sortInPlace } from '../core/small-sort.ts';
import type { HistoryQuery } from '../exchange/port.ts';

export const HISTORY_MAX_AGE_MS = 90 * 24 * 60 * 60 * 1000;

export interface HistoryWindowConfig {
  readonly pageSize: number;
  /** When a symbol has no unsettled order: how far back to look (terminal states, adoption). */
  readonly lookbackMs: number;
  /** Margin for the difference between our clock and the exchange's. */
  readonly skewMs: number;
}

/**
 * One query per symbol: the configured symbols and those of every non-terminal local order.
 * `createDate` reaches the oldest non-terminal order of the symbol (capped to the 90-day limit, with
 * an hour to spare).
 */
export function historyQueries(
  orders: readonly Order[],
  symbols: readonly SymbolId[],
  cfg: HistoryWindowConfig,
  now: number,
): HistoryQuery[] {
  const floor = now - HISTORY_MAX_AGE_MS + 3_600_000;
  const since = new Map<SymbolId, number>();
  for (const s of symbols) since.set(s, now - cfg.lookbackMs);
  for (const o of orders) {
    if (isTerminal(o.status)) continue;
    const start = o.createdAt - cfg.skewMs;
    const prev = since.get(o.symbol);
    since.set(o.symbol, prev === undefined ? Math.min(start, now - cfg.lookbackMs) : Math.min(prev, start));
  }
  return mapToObjects(
    sortInPlace([...since.entries()], ([a], [b]) => byCodeUnits(a, b)),
    ([symbol, start]) => ({
      symbol,
      pageSize: cfg.pageSize,
      createDate: Math.max(floor, Math.trunc(start)),
    }),
  );
}

/**
 * The creation time from which the rows of one query are complete: its `createDate` when the page
 * was not full; when it was full nothing is proven (`now + 1`: no order may be declared lost on it).
 */
export function historyCoverage(query: HistoryQuery, rowCount: number, now: number): number {
  const full = query.pageSize !== undefined && rowCount >= query.pageSize;
  if (full || query.createDate === undefined) return now + 1;
  return query.createDate;
}

/**
 * One bound for the kernel's `historyCoversSince` from several queries: the latest of them
 * (conservative — an order is declared lost only if every window reaches back to its creation).
 */
export function combinedCoverage(coverages: readonly number[], now: number): number {
  return coverages.length === 0 ? now + 1 : Math.max(...coverages);
}
