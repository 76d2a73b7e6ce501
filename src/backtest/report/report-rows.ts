// The run's rows as the report writer reads them (./report-writer.ts): its fills, joined to their
// orders and in the report's order (time, then the stored order), read as often as the writer needs
// (twice), and a spool that gives the trades back by entry time. MemoryRows holds a RunRecord's
// arrays (tests, strategy harnesses, the console); ./spooled-rows.ts keeps a long backtest's rows in
// a temporary database instead, so the report never holds the run in memory (issue #24).
import { reportFills, type ReportFill } from './fills.ts';
import type { Trade } from './trades.ts';
import type { RunRecord } from './types.ts';

/** Trades added in any order, read back by entry time, then the order they were added in. */
export interface TradeSpool {
  add(t: Trade): void;
  forEach(each: (t: Trade) => void): void;
}

export interface ReportRows {
  /** Every fill, joined (reportFills), in the report's order; may be called again (same fills). */
  forEachFill(each: (f: ReportFill) => void): void;
  /** A new, empty trade spool. */
  tradeSpool(): TradeSpool;
}

/** Trades in an array, sorted (stably) by entry time when read. */
export class MemoryTradeSpool implements TradeSpool {
  readonly #trades: Trade[] = [];
  #sorted = true;

  add(t: Trade): void {
    this.#trades.push(t);
    this.#sorted = false;
  }

  forEach(each: (t: Trade) => void): void {
    if (!this.#sorted) this.#trades.sort((a, b) => a.entryTime - b.entryTime); // stable
    this.#sorted = true;
    for (const t of this.#trades) each(t);
  }
}

/** A RunRecord's fills, joined and sorted once, in memory. */
export class MemoryRows implements ReportRows {
  readonly #fills: readonly ReportFill[];

  constructor(record: Pick<RunRecord, 'fills' | 'orders'>) {
    this.#fills = reportFills(record.fills, record.orders);
  }

  forEachFill(each: (f: ReportFill) => void): void {
    for (const f of this.#fills) each(f);
  }

  tradeSpool(): TradeSpool {
    return new MemoryTradeSpool();
  }
}
