// The Parquet form of a recording (docs/data.md): one file per recording, one row per ticker.
//
//   poll     INT32   REQUIRED  the poll's number, 0, 1, 2, … (the rows of one poll are consecutive)
//   t        INT64   REQUIRED  the poll's receive time, epoch ms (the NDJSON line's `t`)
//   symbol … base_volume, markPrice, indexPrice: the wire ticker's fields, decimal text exactly as
//            recorded (STRING; `timestamp` as INT64 epoch ms); null where the ticker lacks the field
//            (`symbol` and `last` are REQUIRED: '' on the row of a poll without tickers)
//   layout   STRING    REQUIRED: the ticker's keys in the order the line wrote them (comma-separated)
//   line     STRING    on a poll's first row only: the exact line text, when the columns cannot
//                      rebuild it byte for byte (whitespace, escapes, extra keys…); null otherwise
//
// A poll without tickers is one row with layout, symbol and last '' and the other ticker columns
// null. capibot's row groups hold whole polls (the reader also joins a poll another writer split).
// Key-value metadata (PARQUET_KEYS): the format, the meta line, the poll count, the sha256 of the
// NDJSON text the file converts back to, and a sha256 per row group of its bytes as written.
//
// Prices stay decimal text rather than scaled integers: a recording's 24 h volumes carry more
// digits than an int64 holds (FTX: 1955912503.72735000005), and text keeps `63960` and `63960.0`
// apart, which the byte-identical round trip needs. SQL users CAST(last AS DECIMAL(38,10)).
import type { SchemaElement } from 'hyparquet';
import type { WireTicker } from '../../core/market.ts';
import { TICKER_KEYS } from './fast-line.ts';

/** The `capibot.format` value of every Parquet recording. */
export const PARQUET_FORMAT = 'capibot-recording-parquet/1';

/** Key-value metadata keys. */
export const PARQUET_KEYS = {
  format: 'capibot.format',
  /** JSON of the meta line's object (absent when the recording has no meta line). */
  meta: 'capibot.meta',
  /** The exact meta line, only when it is not `{"meta":` + meta + `}`. */
  metaLine: 'capibot.meta_line',
  polls: 'capibot.polls',
  /** sha256 (hex) of the NDJSON text (decompressed) that the file converts back to. */
  ndjsonSha256: 'capibot.ndjson_sha256',
  /** `true` when that text ends with a newline (every file capibot writes does). */
  finalNewline: 'capibot.final_newline',
  /** JSON array: per row group, the sha256 (hex) of its bytes as written. */
  rowGroupSha256: 'capibot.row_group_sha256',
} as const;

/** The ticker fields, in file column order (that of the venue's tickers). */
export const TICKER_COLUMNS: readonly (keyof WireTicker)[] = TICKER_KEYS;

/** How a column's values are checked (format.ts's rules for the same fields). */
export type ColumnKind = 'symbol' | 'price' | 'decimal' | 'epoch';

export const COLUMN_KIND: Readonly<Record<keyof WireTicker, ColumnKind>> = {
  symbol: 'symbol',
  last: 'price',
  best_ask: 'price',
  best_bid: 'price',
  high_24h: 'decimal',
  low_24h: 'decimal',
  volume_24h: 'decimal',
  timestamp: 'epoch',
  priceChangePercent: 'decimal',
  base_volume: 'decimal',
  markPrice: 'price',
  indexPrice: 'price',
};

/** Every ticker has these keys (markPrice and indexPrice are optional). */
export const REQUIRED_TICKER_KEYS: ReadonlySet<string> = new Set(TICKER_KEYS.slice(0, 10));

export const ALL_COLUMNS = ['poll', 't', ...TICKER_COLUMNS, 'layout', 'line'] as const;

/** Columns every row has: the quiet path reads them, and required columns decode faster. */
const REQUIRED_COLUMNS: ReadonlySet<string> = new Set(['symbol', 'last', 'layout']);

function stringColumn(name: string): SchemaElement {
  const repetition_type = REQUIRED_COLUMNS.has(name) ? 'REQUIRED' : 'OPTIONAL';
  return { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type };
}

/** The file schema (the root first, as Parquet lists it). */
export function recordingSchema(): SchemaElement[] {
  const columns: SchemaElement[] = [
    { name: 'poll', type: 'INT32', repetition_type: 'REQUIRED' },
    { name: 't', type: 'INT64', repetition_type: 'REQUIRED' },
    ...TICKER_COLUMNS.map((k) =>
      k === 'timestamp'
        ? ({ name: k, type: 'INT64', repetition_type: 'OPTIONAL' } satisfies SchemaElement)
        : stringColumn(k),
    ),
    stringColumn('layout'),
    stringColumn('line'),
  ];
  return [{ name: 'root', num_children: columns.length }, ...columns];
}

/** A ticker's keys in line order, parsed from a `layout` value (cached: a file repeats a few). */
export interface Layout {
  readonly text: string;
  readonly keys: readonly (keyof WireTicker)[];
}

const layouts = new Map<string, Layout | null>();

/**
 * The layout of `text`, or undefined when it is not one: known keys only, none twice, every
 * required key present.
 */
export function parseLayout(text: string): Layout | undefined {
  const known = layouts.get(text);
  if (known !== undefined) return known ?? undefined;
  const keys = text.split(',');
  const seen = new Set<string>();
  let ok = true;
  for (const k of keys) {
    if (!(TICKER_KEYS as readonly string[]).includes(k) || seen.has(k)) ok = false;
    seen.add(k);
  }
  for (const k of REQUIRED_TICKER_KEYS) if (!seen.has(k)) ok = false;
  const layout = ok ? { text, keys: keys as (keyof WireTicker)[] } : null;
  if (layouts.size < 1024) layouts.set(text, layout);
  return layout ?? undefined;
}

/** The layout text of a ticker object: its known keys in order (extra keys are left out). */
export function layoutOf(ticker: WireTicker): string {
  const keys: string[] = [];
  for (const k in ticker)
    if ((TICKER_KEYS as readonly string[]).includes(k) && ticker[k as keyof WireTicker] !== undefined)
      keys.push(k);
  return keys.join(',');
}
