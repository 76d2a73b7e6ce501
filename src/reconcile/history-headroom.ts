// Keeping unknown orders settleable (pure). Order history has no page 2 (weex-facts.md §8): it shows
// the newest `pageSize` orders of a symbol created since `createDate`. An order whose placement reply
// was lost can be found there, or proven absent, only while fewer than one page of orders of its
// symbol were created since it (minus the clock-skew margin the history window takes). Past that it
// can never be settled and stays `unknown` for good. So while a symbol holds such an order, capibot
// refuses new placements on it once `pageSize − reserve` orders exist in that window: trading on the
// symbol pauses for the few seconds reconciliation needs, instead of burying the order. The reserve
// leaves room for orders capibot does not place (another bot or a person on the same account).
// An order still unknown `holdMs` after its creation no longer holds the symbol back: it was buried
// before the pause could help (say, a page of orders in the skew margin before it), and the kernel
// keeps warning about it (`unsettled-outside-history`). Found by the chaos run (bench/chaos.ts).
import type { SymbolId } from '../core/ids.ts';
import type { Order } from '../core/orders.ts';
import { mayBeLost } from './kernel.ts';

export interface HistoryHeadroomConfig {
  /** Rows of one order-history page (the history window's pageSize). */
  readonly pageSize: number;
  /** The history window's clock-skew margin: it reaches this far before the order's creation. */
  readonly skewMs: number;
  /** Rows left for orders placed by others on the same account. */
  readonly reserve: number;
  /** How long after its creation an unknown order may hold placements on its symbol back. */
  readonly holdMs: number;
}

export const DEFAULT_HISTORY_HEADROOM: HistoryHeadroomConfig = Object.freeze({
  pageSize: 100,
  skewMs: 5_000,
  reserve: 10,
  holdMs: 120_000,
});

/**
 * An order whose placement outcome is unknown: its reply was lost (`unknown`), or it was canceled
 * before the outcome was known (`canceling` without an exchange id). Orders simply in flight
 * (`submitted`) do not count: their reply is on its way.
 */
export function awaitsOutcome(o: Pick<Order, 'orderId' | 'status'>): boolean {
  return (o.status === 'unknown' || o.status === 'canceling') && mayBeLost(o);
}

/**
 * The creation time from which the orders of `symbol` must fit one history page: that of its oldest
 * order with an unknown outcome, minus the skew margin; undefined when it has none.
 */
export function unsettledWindowStart(
  liveOrders: Iterable<Order>,
  symbol: SymbolId,
  now: number,
  cfg: HistoryHeadroomConfig,
): number | undefined {
  let oldest: number | undefined;
  for (const o of liveOrders) {
    if (o.symbol !== symbol || !awaitsOutcome(o)) continue;
    if (now - o.createdAt >= cfg.holdMs) continue;
    if (oldest === undefined || o.createdAt < oldest) oldest = o.createdAt;
  }
  return oldest === undefined ? undefined : oldest - cfg.skewMs;
}

/** How many orders the window may hold before placements on the symbol are refused. */
export function headroomLimit(cfg: HistoryHeadroomConfig): number {
  return Math.max(1, cfg.pageSize - cfg.reserve);
}

/**
 * Why a new placement on `symbol` must wait, or undefined when it may go. `countSince(t)` counts the
 * orders of the symbol created at or after `t` (the store knows every one, terminal ones too).
 */
export function historyBacklog(
  liveOrders: Iterable<Order>,
  symbol: SymbolId,
  countSince: (t: number) => number,
  now: number,
  cfg: HistoryHeadroomConfig,
): string | undefined {
  const since = unsettledWindowStart(liveOrders, symbol, now, cfg);
  if (since === undefined) return undefined;
  const count = countSince(since);
  const limit = headroomLimit(cfg);
  if (count < limit) return undefined;
  return `${symbol} has an order with an unknown outcome and ${count} orders since (limit ${limit}, one order-history page is ${cfg.pageSize}); placements wait until reconciliation settles it`;
}
