// The tickers of one poll read row by row: each row's symbol and `last` text without making its
// ticker object, the object only for the rows someone needs. A poll may carry hundreds of symbols
// (the tickers endpoint lists every contract) while strategies trade a few: the simulator and the
// backtest driver look at every row through this, the engine gets the objects of its symbols only.
//
// A recording line read by the recording reader is such a poll (src/market/recording/fast-line.ts:
// its ticker objects are made on first read); any other poll is read through its `tickers` array.
import type { RecordedPoll, WireTicker } from './market.ts';

export interface TickerRows {
  /** Number of rows (tickers). */
  readonly size: number;
  /**
   * The rows' symbols in order, as a frozen array that rows listing the same symbols in the same
   * order share (a recording's consecutive lines: fast-line.ts), so that a reader tells an unchanged
   * list by identity, without reading a row (MarketState.install); undefined when not known. The
   * same array always means the same symbols in the same order; different arrays may too.
   */
  readonly layout: readonly string[] | undefined;
  symbolAt(i: number): string;
  /** The `last` price text of row i. */
  lastAt(i: number): string;
  /**
   * Copies row i's `last` text (decimal text: ASCII) into `into` from byte `at`, without making a
   * string of it; returns the byte after it, or -1 when it does not fit (then nothing is written).
   */
  copyLast(i: number, into: Uint8Array, at: number): number;
  /** The ticker object of row i (the same object every call). */
  tickerAt(i: number): WireTicker;
  /**
   * Whether row i's ticker object exists yet: those of a recording line are made when first read.
   * A diagnostic (tests check that a backtest makes those of its strategies' symbols only).
   */
  made(i: number): boolean;
  /** Every ticker object, in order (the poll's `tickers`). */
  all(): readonly WireTicker[];
}

/** copyLast of `text` from `start` to `end`: ASCII text (decimal text is) byte by byte. */
export function copyAscii(text: string, start: number, end: number, into: Uint8Array, at: number): number {
  if (at + end - start > into.length) return -1;
  let k = at;
  for (let j = start; j < end; j++) into[k++] = text.charCodeAt(j);
  return k;
}

/** Rows over an array of ticker objects. */
class ArrayRows implements TickerRows {
  readonly #tickers: readonly WireTicker[];

  constructor(tickers: readonly WireTicker[]) {
    this.#tickers = tickers;
  }

  get size(): number {
    return this.#tickers.length;
  }

  get layout(): undefined {
    return undefined;
  }

  symbolAt(i: number): string {
    return (this.#tickers[i] as WireTicker).symbol;
  }

  lastAt(i: number): string {
    return (this.#tickers[i] as WireTicker).last;
  }

  copyLast(i: number, into: Uint8Array, at: number): number {
    const last = (this.#tickers[i] as WireTicker).last;
    return copyAscii(last, 0, last.length, into, at);
  }

  tickerAt(i: number): WireTicker {
    return this.#tickers[i] as WireTicker;
  }

  made(i: number): boolean {
    return i >= 0 && i < this.#tickers.length;
  }

  all(): readonly WireTicker[] {
    return this.#tickers;
  }
}

/** A poll that reads its own rows (a recording line: fast-line.ts). */
interface RowsPoll extends RecordedPoll {
  tickerRows(): TickerRows;
}

function hasRows(poll: RecordedPoll): poll is RowsPoll {
  return typeof (poll as Partial<RowsPoll>).tickerRows === 'function';
}

/** The rows of a poll: its own when it reads them lazily, else over its `tickers`. */
export function tickerRows(poll: RecordedPoll): TickerRows {
  return hasRows(poll) ? poll.tickerRows() : new ArrayRows(poll.tickers);
}

/** Rows over ticker objects. */
export function rowsOf(tickers: readonly WireTicker[]): TickerRows {
  return new ArrayRows(tickers);
}
