// Per-strategy positions and fill rows for the console, folded from stored fills exactly as
// `capibot status` folds them (src/core/positions.ts): the same figures in both places.
import { decToString } from '../core/decimal.ts';
import type { ClientOid } from '../core/ids.ts';
import type { Order } from '../core/orders.ts';
import { averageEntry, positionsFromFills, type PositionBook, type PositionFill } from '../core/positions.ts';
import type { StoredFill } from '../store/port.ts';
import type { ConsoleFill, ConsoleOrder, ConsolePosition } from './types.ts';
import { statusOrder } from '../ops/status-report.ts';

export const MAX_FILLS = 100;

export interface StrategyBook {
  readonly positions: readonly ConsolePosition[];
  readonly realizedPnl: string;
  readonly fees: string;
}

/** Fills attributed through their client_oid, folded into one book (oldest first). */
export function foldFills(
  fills: readonly StoredFill[],
  orderOf: (oid: ClientOid) => Pick<Order, 'strategy' | 'side'> | undefined,
): PositionBook {
  const pfs: PositionFill[] = fills.map((fill) => {
    const o = fill.clientOid !== undefined ? orderOf(fill.clientOid) : undefined;
    return { fill, ...(o !== undefined ? { strategy: o.strategy, orderSide: o.side } : {}) };
  });
  return positionsFromFills(pfs).book;
}

/** The book's positions and totals per strategy id (unattributed fills are left out). */
export function byStrategy(book: PositionBook): ReadonlyMap<string, StrategyBook> {
  const out = new Map<string, { positions: ConsolePosition[]; rows: PositionLike[] }>();
  for (const p of book.values()) {
    if (p.strategy === undefined) continue;
    const e = out.get(p.strategy) ?? { positions: [], rows: [] };
    e.rows.push(p);
    if (p.qty.gt(0)) {
      const entry = averageEntry(p);
      e.positions.push({
        symbol: p.symbol,
        leg: p.leg,
        qty: decToString(p.qty),
        avgEntry: entry !== undefined ? decToString(entry.round(8)) : null,
        realizedPnl: decToString(p.realizedPnl),
        fees: decToString(p.fees),
      });
    }
    out.set(p.strategy, e);
  }
  const result = new Map<string, StrategyBook>();
  for (const [id, e] of out) {
    const [first, ...rest] = e.rows;
    if (first === undefined) continue;
    let realized = first.realizedPnl;
    let fees = first.fees;
    for (const r of rest) {
      realized = realized.plus(r.realizedPnl);
      fees = fees.plus(r.fees);
    }
    result.set(id, {
      positions: e.positions.sort((a, b) => a.symbol.localeCompare(b.symbol) || a.leg.localeCompare(b.leg)),
      realizedPnl: decToString(realized),
      fees: decToString(fees),
    });
  }
  return result;
}

type PositionLike = PositionBook extends ReadonlyMap<string, infer P> ? P : never;

export function fillRow(f: StoredFill, strategy: string | undefined): ConsoleFill {
  return {
    tradeId: f.tradeId,
    at: f.createdTime,
    strategy: strategy ?? null,
    symbol: f.symbol,
    side: f.direction !== '' ? f.direction.toLowerCase() : f.orderSide,
    size: decToString(f.size),
    price: f.size.gt(0) ? decToString(f.value.div(f.size).round(8)) : '0',
    fee: decToString(f.fee),
    realizedPnl: decToString(f.realizedPnl),
  };
}

/** An order row of the console: the one `capibot status` shows. */
export const orderRow: (o: Order) => ConsoleOrder = statusOrder;
