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
  positionsOf,
  positionUnrealized,
  summarize,
  type Position,
  type PositionBook,
} from '../core/positions.ts';
import type { FillReport } from '../core/reports.ts';
import type { HedgePosition } from '../risk/exposure.ts';
import type { PnlSnapshot, PositionSnapshot } from '../strategy/types.ts';

export type Marks = (symbol: SymbolId) => Dec | undefined;

/** The last snapshot of one strategy's symbol, with the legs it was made from. */
interface CachedSnapshot {
  readonly long: Position | undefined;
  readonly short: Position | undefined;
  readonly snapshot: PositionSnapshot;
  /** The book's version it was last checked against. */
  version: number;
}

export class Portfolio {
  #book: PositionBook = EMPTY_BOOK;
  /**
   * Snapshots per strategy and symbol, reused while their legs are the same objects (the book is
   * immutable: a fill replaces the legs it touches). Strategies read their position on every ticker;
   * the average entry price is a decimal division.
   */
  readonly #snapshots = new Map<StrategyId, Map<SymbolId, CachedSnapshot>>();
  /** Bumped by every fill folded in: a snapshot checked at this version is current without a lookup. */
  #version = 0;
  /**
   * What the account's net PnL needs between fills: realised − fees of every leg, and the open legs
   * (marked to market per ticker). Dropped by every fill.
   */
  #account: { readonly closedNet: Dec; readonly open: readonly Position[] } | undefined;

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
    this.#version++;
    this.#account = undefined;
    return u.skipped;
  }

  position(strategy: StrategyId, symbol: SymbolId): PositionSnapshot {
    let bySymbol = this.#snapshots.get(strategy);
    const cached = bySymbol?.get(symbol);
    if (cached !== undefined && cached.version === this.#version) return cached.snapshot;
    const long = this.#book.get(positionKey(strategy, symbol, 'long'));
    const short = this.#book.get(positionKey(strategy, symbol, 'short'));
    if (cached !== undefined && cached.long === long && cached.short === short) {
      cached.version = this.#version;
      return cached.snapshot;
    }
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
      this.#snapshots.set(strategy, (bySymbol = new Map<SymbolId, CachedSnapshot>()));
    bySymbol.set(symbol, { long, short, snapshot, version: this.#version });
    return snapshot;
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

  /**
   * The whole account's net PnL (realised − fees + unrealised at `marks`), as `pnl(undefined,
   * marks).net` gives it, in the work of the open legs alone: the drawdown breaker reads it on every
   * ticker. With no leg open it is the same object until the next fill.
   */
  accountNet(marks: Marks): Dec {
    let a = this.#account;
    if (a === undefined) {
      // Unmarked, `summarize` leaves the open legs out: its net is realised − fees.
      const closedNet = summarize(this.#book, () => undefined).netPnl;
      a = this.#account = { closedNet, open: positionsOf(this.#book).filter((p) => !p.qty.eq(0)) };
    }
    if (a.open.length === 0) return a.closedNet;
    let unrealized = ZERO;
    for (const p of a.open) {
      const m = marks(p.symbol);
      if (m !== undefined) unrealized = unrealized.plus(positionUnrealized(p, m));
    }
    return a.closedNet.plus(unrealized);
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
