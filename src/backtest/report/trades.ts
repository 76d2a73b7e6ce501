// Round-trip trades from fills: a pure, incremental kernel (fed one fill at a time, in time order, so
// a stream can feed it later). A trade is one position's life per strategy, symbol and hedge leg,
// from flat to flat: the first opening fill on a flat leg starts it, the closing fill that brings the
// leg back to zero ends it. A flip (close_long, then open_short) therefore closes one trade and opens
// the next. Every fill belongs to exactly one trade, so Σ trade.pnl = Σ fill.realizedPnl and
// Σ trade.fees = Σ fill.fee, exactly: the trades' netPnl adds up to the run's realized PnL net of fees.
//
// Anomalies are kept rather than dropped (the identity above must hold): a closing fill on a flat leg
// (a position opened before the run, or a close the venue attributed oddly) makes a trade of its own
// with size 0 and no entry price; a close larger than the open size ends the trade, the excess
// included.
import { ZERO, type Dec } from '../../core/decimal.ts';
import { isOpening } from '../../core/orders.ts';
import type { ReportFill } from './fills.ts';

export type TradeSide = 'long' | 'short';

/**
 * Why a trade ended, when the framework knows:
 * strategy     a closing order placed by the strategy flattened it;
 * unknown      a closing fill that matched no order of the run (e.g. a liquidation, a manual close);
 * end_of_data  still open when the recording ended (exitTime is null).
 * The kill switch cancels orders and never closes positions, so a position open at a kill stays open
 * to the end of the data. Plan (trigger) orders do not exist in backtests yet.
 */
export type ExitReason = 'strategy' | 'unknown' | 'end_of_data';

export interface Trade {
  /** Strategy of the opening fill's order; null when the fill matched no order. */
  readonly strategy: string | null;
  readonly symbol: string;
  readonly side: TradeSide;
  readonly entryTime: number;
  /** Time of the fill that flattened the leg; null while open at the end. */
  readonly exitTime: number | null;
  /** Σ size of the opening fills. */
  readonly size: Dec;
  /** Size still open (0 once closed). */
  readonly openSize: Dec;
  /** Size-weighted average price of the opening fills; null for a close on a flat leg. */
  readonly entryPrice: Dec | null;
  /** Size-weighted average price of the closing fills; null before any close. */
  readonly exitPrice: Dec | null;
  /** Σ realizedPnl of the trade's fills (before fees). */
  readonly pnl: Dec;
  /** Σ fee of the trade's fills (rebates negative). */
  readonly fees: Dec;
  /** pnl − fees. */
  readonly netPnl: Dec;
  /** exitTime − entryTime; for an open trade, the end of the data − entryTime. */
  readonly durationMs: number;
  readonly exitReason: ExitReason;
  /** Number of fills in the trade. */
  readonly fills: number;
}

interface Building {
  readonly strategy: string | null;
  readonly symbol: string;
  readonly side: TradeSide;
  readonly entryTime: number;
  size: Dec;
  open: Dec;
  entryValue: Dec;
  exitSize: Dec;
  exitValue: Dec;
  pnl: Dec;
  fees: Dec;
  fills: number;
}

function legOf(f: ReportFill): TradeSide {
  return f.side === 'open_long' || f.side === 'close_long' ? 'long' : 'short';
}

function finish(b: Building, exitTime: number | null, endTime: number, reason: ExitReason): Trade {
  const end = exitTime ?? Math.max(endTime, b.entryTime);
  return {
    strategy: b.strategy,
    symbol: b.symbol,
    side: b.side,
    entryTime: b.entryTime,
    exitTime,
    size: b.size,
    openSize: exitTime === null ? b.open : ZERO,
    entryPrice: b.size.gt(0) ? b.entryValue.div(b.size) : null,
    exitPrice: b.exitSize.gt(0) ? b.exitValue.div(b.exitSize) : null,
    pnl: b.pnl,
    fees: b.fees,
    netPnl: b.pnl.minus(b.fees),
    durationMs: end - b.entryTime,
    exitReason: reason,
    fills: b.fills,
  };
}

/**
 * Builds trades one fill at a time. `add` returns the trade a fill closed (else undefined);
 * `openTrades(endTime)` gives the trades still open, as they stand at `endTime`. Fills must come in
 * time order (as reportFills sorts them).
 */
export class TradeBuilder {
  readonly #open = new Map<string, Building>();
  /** Keys in the order their trade opened, so open trades are listed deterministically. */
  #sequence = 0;
  readonly #order = new Map<string, number>();

  add(f: ReportFill): Trade | undefined {
    const side = legOf(f);
    const strategy = f.strategy ?? null;
    const key = `${strategy ?? ''}\u0000${f.symbol}\u0000${side}`;
    let b = this.#open.get(key);
    if (b === undefined) {
      b = {
        strategy,
        symbol: f.symbol,
        side,
        entryTime: f.createdTime,
        size: ZERO,
        open: ZERO,
        entryValue: ZERO,
        exitSize: ZERO,
        exitValue: ZERO,
        pnl: ZERO,
        fees: ZERO,
        fills: 0,
      };
      this.#open.set(key, b);
      this.#order.set(key, this.#sequence++);
    }
    b.pnl = b.pnl.plus(f.realizedPnl);
    b.fees = b.fees.plus(f.fee);
    b.fills++;
    if (isOpening(f.side)) {
      b.size = b.size.plus(f.size);
      b.open = b.open.plus(f.size);
      b.entryValue = b.entryValue.plus(f.value);
      return undefined;
    }
    b.exitSize = b.exitSize.plus(f.size);
    b.exitValue = b.exitValue.plus(f.value);
    b.open = b.open.minus(f.size);
    if (b.open.gt(0)) return undefined;
    this.#open.delete(key);
    this.#order.delete(key);
    return finish(b, f.createdTime, f.createdTime, f.strategy !== undefined ? 'strategy' : 'unknown');
  }

  /** The trades still open, in the order they opened, with durations up to `endTime`. */
  openTrades(endTime: number): Trade[] {
    return [...this.#open.entries()]
      .sort(([a], [b]) => this.#order.get(a)! - this.#order.get(b)!)
      .map(([, b]) => finish(b, null, endTime, 'end_of_data'));
  }
}

/**
 * Every trade of a run: closed trades in the order they closed, then the trades still open at
 * `endTime` in the order they opened. Then sorted by entry time (stable), the order a user reads.
 */
export function buildTrades(fills: readonly ReportFill[], endTime: number): Trade[] {
  const builder = new TradeBuilder();
  const out: Trade[] = [];
  for (const f of fills) {
    const t = builder.add(f);
    if (t !== undefined) out.push(t);
  }
  out.push(...builder.openTrades(endTime));
  return out.sort((a, b) => a.entryTime - b.entryTime);
}
