// The polls of one Parquet row group, read from its columns (TickerRows): the replay reads each
// row's symbol and `last` text straight from the column arrays, and a ticker object is made only
// for a row someone asks for (the strategies' symbols) — the quiet path makes no object per ticker.
// A poll is a small view (its row group, first row, row count and `t`); the columns nobody needs
// on the quiet path are decoded when a ticker object is first made from this row group.
import type { DecodedArray } from 'hyparquet';
import { BadInputError } from '../../core/errors.ts';
import type { RecordedPoll, WireTicker } from '../../core/market.ts';
import { copyAscii, type TickerRows } from '../../core/ticker-rows.ts';
import { isDecimalText, isPositiveText } from './format.ts';
import { COLUMN_KIND, parseLayout, TICKER_COLUMNS, type Layout } from './parquet-schema.ts';

/**
 * A row group's `last` values: text, or in a group its hash vouches for, each value's UTF-8 bytes
 * (decimal text, so ASCII: checked when the file was written; parquet-columns.ts BYTES_PARSERS).
 */
export type LastValues = readonly (string | Uint8Array | null | undefined)[];

const utf8 = new TextDecoder();

/** The columns of one row group: the quiet path's decoded up front, the others on first use. */
export class RowGroupColumns {
  readonly file: string;
  /** File row index (0-based) of the group's first row. */
  readonly rowBase: number;
  readonly symbol: readonly (string | null | undefined)[];
  readonly #last: LastValues;
  readonly layout: readonly (Layout | undefined)[];
  readonly #decode: (column: string) => DecodedArray;
  readonly #other = new Map<string, DecodedArray>();
  #made: (WireTicker | undefined)[] | undefined;

  constructor(
    file: string,
    rowBase: number,
    symbol: readonly (string | null | undefined)[],
    last: LastValues,
    layout: readonly (Layout | undefined)[],
    decode: (column: string) => DecodedArray,
  ) {
    this.file = file;
    this.rowBase = rowBase;
    this.symbol = symbol;
    this.#last = last;
    this.layout = layout;
    this.#decode = decode;
  }

  /** Row `r`'s `last` text ('' on a row without a ticker). */
  lastAt(r: number): string {
    const v = this.#last[r];
    return typeof v === 'string' ? v : v instanceof Uint8Array ? utf8.decode(v) : '';
  }

  /** TickerRows.copyLast of row `r`: its bytes copied as they are, or its text's. */
  copyLast(r: number, into: Uint8Array, at: number): number {
    const v = this.#last[r];
    if (typeof v === 'string') return copyAscii(v, 0, v.length, into, at);
    if (!(v instanceof Uint8Array)) return at;
    const n = v.length;
    if (at + n > into.length) return -1;
    for (let j = 0; j < n; j++) into[at + j] = v[j] as number;
    return at + n;
  }

  /** A column's values, decoded and checked on first use. */
  column(name: string): DecodedArray {
    let c = this.#other.get(name);
    if (c === undefined) {
      c = this.#decode(name);
      this.#other.set(name, c);
    }
    return c;
  }

  /** The ticker of row `r` (of the group), made once. */
  ticker(r: number): WireTicker {
    const made = (this.#made ??= []);
    return (made[r] ??= this.#make(r));
  }

  made(r: number): boolean {
    return this.#made?.[r] !== undefined;
  }

  #make(r: number): WireTicker {
    const layout = this.layout[r] as Layout;
    const out: Record<string, string> = {};
    for (const k of layout.keys) {
      if (k === 'symbol') out[k] = this.symbol[r] as string;
      else if (k === 'last') out[k] = this.lastAt(r);
      else out[k] = String(this.column(k)[r]);
    }
    return out as unknown as WireTicker;
  }
}

/**
 * One poll: rows `start` .. `start + size` of a row group. `tickers` is a getter of the class (an
 * own property per poll, as fast-line.ts makes, costs a defineProperty per poll: a quarter of the
 * read); `toJSON` gives the poll's JSON as a plain poll's.
 */
export class ColumnPoll implements RecordedPoll, TickerRows {
  readonly t: number;
  readonly #g: RowGroupColumns;
  readonly #start: number;
  readonly size: number;
  #all: readonly WireTicker[] | undefined;

  constructor(t: number, g: RowGroupColumns, start: number, size: number) {
    this.t = t;
    this.#g = g;
    this.#start = start;
    this.size = size;
  }

  get tickers(): readonly WireTicker[] {
    return this.all();
  }

  toJSON(): RecordedPoll {
    return { t: this.t, tickers: this.all() };
  }

  tickerRows(): TickerRows {
    return this;
  }

  get layout(): undefined {
    return undefined;
  }

  symbolAt(i: number): string {
    return this.#g.symbol[this.#start + i] as string;
  }

  lastAt(i: number): string {
    return this.#g.lastAt(this.#start + i);
  }

  copyLast(i: number, into: Uint8Array, at: number): number {
    return this.#g.copyLast(this.#start + i, into, at);
  }

  tickerAt(i: number): WireTicker {
    return this.#g.ticker(this.#start + i);
  }

  made(i: number): boolean {
    return this.#g.made(this.#start + i);
  }

  all(): readonly WireTicker[] {
    if (this.#all === undefined) {
      const out: WireTicker[] = [];
      for (let i = 0; i < this.size; i++) out.push(this.tickerAt(i));
      this.#all = out;
    }
    return this.#all;
  }
}

/** The error for a bad value: the file, the row (1-based, in the file) and the column. */
export function badRow(file: string, row: number, column: string, why: string): BadInputError {
  return new BadInputError(`row ${row}, column ${column}: ${why}`, file);
}

function isSymbolText(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 32) return false;
  return true;
}

const EPOCH_MAX = 9_999_999_999_999_999n;

/** Why `v` is not a valid value of column `k` for a row whose layout has (or lacks) `k`. */
export function valueProblem(k: keyof WireTicker, v: unknown, present: boolean): string | undefined {
  // symbol and last are required columns: '' where the row has no ticker.
  const none = k === 'symbol' || k === 'last' ? '' : null;
  if (!present) return v === none || v === undefined ? undefined : 'a value where the layout has none';
  if (v === null || v === undefined) return 'missing (null) but the row’s layout has it';
  switch (COLUMN_KIND[k]) {
    case 'symbol':
      return typeof v === 'string' && isSymbolText(v) ? undefined : 'not a symbol';
    case 'epoch':
      return typeof v === 'bigint' && v >= 0n && v <= EPOCH_MAX
        ? undefined
        : `not an epoch-ms timestamp: ${typeof v === 'bigint' ? String(v) : JSON.stringify(v)}`;
    case 'price':
      if (typeof v !== 'string' || !isDecimalText(v)) return `not a decimal: ${JSON.stringify(v)}`;
      return isPositiveText(v) ? undefined : `a price must be above 0, got ${v}`;
    case 'decimal':
      return typeof v === 'string' && isDecimalText(v) ? undefined : `not a decimal: ${JSON.stringify(v)}`;
  }
}

/** Checks column `k` of a row group against the rows' layouts; throws at the first bad row. */
export function checkColumn(
  file: string,
  rowBase: number,
  k: keyof WireTicker,
  values: DecodedArray,
  layouts: readonly (Layout | undefined)[],
): void {
  let previous: unknown = undefined;
  for (let r = 0; r < values.length; r++) {
    const v: unknown = values[r];
    const layout = layouts[r];
    const present = layout !== undefined && layout.keys.includes(k);
    // Columns repeat values (dictionary pages): a value equal to the previous one passed already.
    if (present && v === previous && typeof v === 'string') continue;
    const why = valueProblem(k, v, present);
    if (why !== undefined) throw badRow(file, rowBase + r + 1, k, why);
    previous = v;
  }
}

/** The layouts of a row group's rows (undefined, from '': a poll without tickers). */
export function readLayouts(file: string, rowBase: number, values: DecodedArray): (Layout | undefined)[] {
  const out: (Layout | undefined)[] = new Array<Layout | undefined>(values.length);
  let previous: unknown = undefined;
  let layout: Layout | undefined;
  for (let r = 0; r < values.length; r++) {
    const v: unknown = values[r];
    if (v !== previous) {
      previous = v;
      layout = v === '' ? undefined : typeof v === 'string' ? parseLayout(v) : undefined;
      if (layout === undefined && v !== '')
        throw badRow(file, rowBase + r + 1, 'layout', `not a ticker key list: ${JSON.stringify(v)}`);
    }
    out[r] = layout;
  }
  return out;
}

/** The ticker columns that the quiet path does not read. */
export const LAZY_COLUMNS: readonly (keyof WireTicker)[] = TICKER_COLUMNS.filter(
  (k) => k !== 'symbol' && k !== 'last',
);
