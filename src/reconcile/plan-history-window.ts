// Windows for the plan-order history endpoint (pure). It takes a symbol (required), a time window,
// an optional `delegateType` (1 open long, 2 open short, 3 close long, 4 close short; the older doc
// page marks it required) and `pageSize` ≤ 100, and answers `{list, nextPage}` with no page index
// (weex-facts.md §7.6, §8). So a poll walks each symbol forward from its cursor in windows of at most
// `maxWindowMs`, a bounded number of windows per poll, and pages inside a window by moving `endTime`
// down to the oldest row (+1 ms, the same boundary rule as fills).
import type { SymbolId } from '../core/ids.ts';
import { objectList } from '../core/object-lists.ts';
import type { PlanPage } from '../core/reports.ts';
import { byCodeUnits, sortInPlace } from '../core/small-sort.ts';
import type { PlanHistoryQuery } from '../exchange/port.ts';

export type DelegateType = 1 | 2 | 3 | 4;

export interface PlanWindowConfig {
  readonly overlapMs: number;
  readonly initialLookbackMs: number;
  /** Longest window per request. */
  readonly maxWindowMs: number;
  /** Windows per symbol per poll. */
  readonly maxWindows: number;
  /** 1..100. */
  readonly pageSize: number;
  /** Empty: one query per window without delegateType; else one query per listed type. */
  readonly delegateTypes: readonly DelegateType[];
}

/** Per symbol: the end of the last window fully read. */
export type PlanCursor = Readonly<Record<string, number>>;

export interface PlanPollPlan {
  readonly queries: readonly PlanHistoryQuery[];
  /** The cursor to commit once every query (and its pages) has been read. */
  readonly cursorAfter: PlanCursor;
}

export function planHistoryQueries(
  symbols: readonly SymbolId[],
  cursor: PlanCursor,
  cfg: PlanWindowConfig,
  now: number,
): PlanPollPlan {
  const queries = objectList<PlanHistoryQuery>();
  const after: Record<string, number> = { ...cursor };
  const pageSize = Math.min(100, Math.max(1, Math.trunc(cfg.pageSize)));
  const span = Math.max(1, cfg.maxWindowMs);
  for (const symbol of sortInPlace([...symbols], byCodeUnits)) {
    const last = cursor[symbol];
    let start =
      last !== undefined ? Math.max(0, last - cfg.overlapMs) : Math.max(0, now - cfg.initialLookbackMs);
    let windows = 0;
    while (start < now && windows < cfg.maxWindows) {
      const end = Math.min(now, start + span);
      const types: readonly (DelegateType | undefined)[] =
        cfg.delegateTypes.length === 0 ? [undefined] : cfg.delegateTypes;
      for (const t of types) {
        queries.push({
          symbol,
          startTime: start,
          endTime: end,
          pageSize,
          ...(t !== undefined ? { delegateType: t } : {}),
        });
      }
      after[symbol] = end;
      start = end;
      windows++;
    }
  }
  return { queries, cursorAfter: after };
}

/** The next page of `query` after `page`, or undefined when the window is exhausted. */
export function nextPlanPage(query: PlanHistoryQuery, page: PlanPage): PlanHistoryQuery | undefined {
  if (!page.nextPage || page.plans.length === 0) return undefined;
  const oldest = Math.min(...page.plans.map((p) => p.createTime));
  let endTime = oldest + 1;
  if (endTime >= query.endTime) endTime = oldest - 1; // no progress possible at the boundary: step past it
  if (endTime <= query.startTime) return undefined;
  return { ...query, endTime };
}
