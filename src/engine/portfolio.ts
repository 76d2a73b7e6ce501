// Positions and PnL as the engine keeps them: a position book (core/positions.ts) folded from every
// fill once, per strategy, symbol and hedge-mode leg. Read by strategies (frozen snapshots), the
// risk gate (account-wide legs per symbol) and the drawdown breaker (equity).
import { ZERO, type Dec } from '../core/decimal.ts';
import { combineFootprints, sumSizes, type Footprint } from '../core/footprint.ts';
import type { StrategyId, SymbolId } from '../core/ids.ts';
import type { OrderSide } from '../core/orders.ts';
import {
  averageEntry,
  movedPosition,
  positionKey,
  summarize,
  type Position,
  type PositionBook,
} from '../core/positions.ts';
import type { FillReport } from '../core/reports.ts';
import type { HedgePosition } from '../risk/exposure.ts';
import type { PnlSnapshot, PositionSnapshot } from '../strategy/types.ts';
import { AccountTotals, type MarkNumbers, type Marks, type NetEstimate } from './account-totals.ts';

export type { Marks } from './account-totals.ts';

export class Portfolio {
  /** Every leg folded so far; a fill replaces its leg's object (never edits one). */
  readonly #book = new Map<string, Position>();
  /**
   * Snapshots per strategy and symbol, each kept until a fill moves one of its legs. Strategies read
   * their position on every ticker; the average entry price is a decimal division.
   */
  readonly #snapshots = new Map<StrategyId, Map<SymbolId, PositionSnapshot>>();
  /** The whole account's PnL terms, kept fill by fill (account-totals.ts). */
  readonly #account = new AccountTotals();
  /** The account's closed net (realised − fees) until the next fill: the same object meanwhile. */
  #closedNet: Dec | undefined;
  /**
   * Account-wide legs per symbol (every strategy's together), kept as fills move legs: a symbol is
   * here once the book holds a leg of it. Exact sums, so the same values as summing the book again.
   */
  readonly #hedge = new Map<SymbolId, HedgePosition>();

  /** The book as it stands (a live view: the next fill replaces a leg in it). */
  get book(): PositionBook {
    return this.#book;
  }

  /**
   * Per strategy, symbol and leg: the book's positions and the cached snapshots; per symbol and leg:
   * the account's terms (footprint.ts). None grows with the orders or the fills.
   */
  footprint(): Footprint {
    return {
      book: this.#book.size,
      hedge: this.#hedge.size,
      snapshots: sumSizes(this.#snapshots),
      ...combineFootprints({ account: this.#account.footprint() }),
    };
  }

  /** Folds one fill in (the caller applies each tradeId once). Returns a reason when it was skipped. */
  applyFill(
    fill: FillReport,
    strategy: StrategyId | undefined,
    side: OrderSide | undefined,
  ): string | undefined {
    const moved = movedPosition(this.#book, {
      fill,
      ...(strategy !== undefined ? { strategy } : {}),
      ...(side !== undefined ? { orderSide: side } : {}),
    });
    this.#closedNet = undefined;
    if (moved.skipped !== undefined) return moved.skipped;
    const before = this.#book.get(moved.key);
    this.#account.replace(before, moved.next);
    this.#book.set(moved.key, moved.next);
    this.#moveHedge(moved.next, before?.qty ?? ZERO);
    if (strategy !== undefined) this.#snapshots.get(strategy)?.delete(fill.symbol);
    return undefined;
  }

  position(strategy: StrategyId, symbol: SymbolId): PositionSnapshot {
    let bySymbol = this.#snapshots.get(strategy);
    const cached = bySymbol?.get(symbol);
    if (cached !== undefined) return cached;
    const long = this.#book.get(positionKey(strategy, symbol, 'long'));
    const short = this.#book.get(positionKey(strategy, symbol, 'short'));
    const longEntry = long !== undefined ? averageEntry(long) : undefined;
    const shortEntry = short !== undefined ? averageEntry(short) : undefined;
    const snapshot: PositionSnapshot = Object.freeze({
      symbol,
      long: long?.qty ?? ZERO,
      short: short?.qty ?? ZERO,
      ...(longEntry !== undefined ? { longEntryPrice: longEntry } : {}),
      ...(shortEntry !== undefined ? { shortEntryPrice: shortEntry } : {}),
    });
    if (bySymbol === undefined)
      this.#snapshots.set(strategy, (bySymbol = new Map<SymbolId, PositionSnapshot>()));
    bySymbol.set(symbol, snapshot);
    return snapshot;
  }

  /** PnL of one strategy, or of the whole account when `strategy` is undefined. */
  pnl(strategy: StrategyId | undefined, marks: Marks): PnlSnapshot {
    if (strategy === undefined) return Object.freeze(this.#account.pnl(marks));
    const s = summarize(this.#book, marks, { strategy });
    return Object.freeze({
      realized: s.realizedPnl,
      unrealized: s.unrealizedPnl,
      fees: s.fees,
      net: s.netPnl,
    });
  }

  /**
   * The whole account's net PnL (realised − fees + unrealised at `marks`), as `pnl(undefined,
   * marks).net` gives it: the drawdown breaker reads it on every ticker. With no leg open it is the
   * same object until the next fill.
   */
  accountNet(marks: Marks): Dec {
    const closed = (this.#closedNet ??= this.#account.closedNet());
    if (!this.#account.hasOpen()) return closed;
    return closed.plus(this.#account.unrealized(marks));
  }

  /** `accountNet(marks)` as a double with its scale (AccountTotals.netEstimate), for screens only. */
  netEstimate(marks: MarkNumbers, out: NetEstimate): void {
    this.#account.netEstimate(marks, out);
  }

  /**
   * Account-wide legs per symbol (every strategy together), for the risk gate: a live view, kept as
   * fills come (each fill moves one leg: O(1), however many strategies hold the symbol).
   */
  hedgePositions(): ReadonlyMap<SymbolId, HedgePosition> {
    return this.#hedge;
  }

  /** `next` replaced a leg that held `before`: its symbol's account-wide leg moves by the difference. */
  #moveHedge(next: Position, before: Dec): void {
    const h = this.#hedge.get(next.symbol) ?? { long: ZERO, short: ZERO };
    const by = next.qty.minus(before);
    this.#hedge.set(
      next.symbol,
      next.leg === 'long'
        ? { long: h.long.plus(by), short: h.short }
        : { long: h.long, short: h.short.plus(by) },
    );
  }
}
