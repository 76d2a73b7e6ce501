// Positions and PnL as the engine keeps them: a position book (core/positions.ts) folded from every
// fill once, per strategy, symbol and hedge-mode leg. Read by strategies (frozen snapshots), the
// risk gate (account-wide legs per symbol) and the drawdown breaker (equity).
import { ZERO, type Dec } from '../core/decimal.ts';
import type { StrategyId, SymbolId } from '../core/ids.ts';
import type { OrderSide } from '../core/orders.ts';
import {
  averageEntry,
  applyFill,
  EMPTY_BOOK,
  positionKey,
  summarize,
  type PositionBook,
} from '../core/positions.ts';
import type { FillReport } from '../core/reports.ts';
import type { HedgePosition } from '../risk/exposure.ts';
import type { PnlSnapshot, PositionSnapshot } from '../strategy/types.ts';

export type Marks = (symbol: SymbolId) => Dec | undefined;

export class Portfolio {
  #book: PositionBook = EMPTY_BOOK;

  get book(): PositionBook {
    return this.#book;
  }

  /** Folds one fill in (the caller applies each tradeId once). Returns a reason when it was skipped. */
  applyFill(
    fill: FillReport,
    strategy: StrategyId | undefined,
    side: OrderSide | undefined,
  ): string | undefined {
    const u = applyFill(this.#book, {
      fill,
      ...(strategy !== undefined ? { strategy } : {}),
      ...(side !== undefined ? { orderSide: side } : {}),
    });
    this.#book = u.book;
    return u.skipped;
  }

  position(strategy: StrategyId, symbol: SymbolId): PositionSnapshot {
    const long = this.#book.get(positionKey(strategy, symbol, 'long'));
    const short = this.#book.get(positionKey(strategy, symbol, 'short'));
    const longEntry = long !== undefined ? averageEntry(long) : undefined;
    const shortEntry = short !== undefined ? averageEntry(short) : undefined;
    return Object.freeze({
      symbol,
      long: long?.qty ?? ZERO,
      short: short?.qty ?? ZERO,
      ...(longEntry !== undefined ? { longEntryPrice: longEntry } : {}),
      ...(shortEntry !== undefined ? { shortEntryPrice: shortEntry } : {}),
    });
  }

  /** PnL of one strategy, or of the whole account when `strategy` is undefined. */
  pnl(strategy: StrategyId | undefined, marks: Marks): PnlSnapshot {
    const s = summarize(this.#book, marks, strategy !== undefined ? { strategy } : {});
    return Object.freeze({
      realized: s.realizedPnl,
      unrealized: s.unrealizedPnl,
      fees: s.fees,
      net: s.netPnl,
    });
  }

  /** Account-wide legs per symbol (every strategy together), for the risk gate. */
  hedgePositions(): Map<SymbolId, HedgePosition> {
    const out = new Map<SymbolId, HedgePosition>();
    for (const p of this.#book.values()) {
      const h = out.get(p.symbol) ?? { long: ZERO, short: ZERO };
      out.set(
        p.symbol,
        p.leg === 'long' ? { ...h, long: h.long.plus(p.qty) } : { ...h, short: h.short.plus(p.qty) },
      );
    }
    return out;
  }
}
