// Importer of quote ticks (best bid and ask over time: NautilusTrader's catalog QuoteTick files,
// or any Parquet/CSV table with a time, a bid and an ask column; `--map` names them) into one ticker
// snapshot per quote:
//
//   best_bid / best_ask = the quote;  last = the mid (bid + ask) / 2: SYNTHETIC, quotes have no trades
//   high_24h / low_24h  = the highest / lowest mid since the first quote (SESSION-RELATIVE)
//   priceChangePercent  = mid / first mid − 1, 6 decimals (SESSION-RELATIVE);  volumes '0' (absent)
//   t = timestamp = the quote's time in ms (time columns in s, ms, µs or ns are told by their digits)
//
// A bad row is refused with its row number and column: a missing value, a price that is not a
// decimal above 0, a bid above the ask, time going backwards.
import { basename } from 'node:path';
import { dec, decToString, type Dec } from '../../core/decimal.ts';
import { BadInputError } from '../../core/errors.ts';
import type { RecordedPoll, RecordingMeta } from '../../core/market.ts';
import { RECORDING_FORMAT } from '../recording/format.ts';
import { parseColumnMap, resolveColumns, type Field } from './column-map.ts';
import { fileSha256 } from './input-lines.ts';
import { decimalText, openTable, tableKind, timeMs } from './table-rows.ts';

export interface TableImportOptions {
  readonly symbol: string;
  /** `--map` text. */
  readonly map?: string;
  /** Integer prices are value × 10^-intScale; default 9 for NautilusTrader files, else 0. */
  readonly intScale?: number;
}

const FIELDS: readonly Field[] = ['time', 'bid', 'ask'];
const CHANGE_DP = 6;

export function badCell(path: string, row: number, column: string, why: string): BadInputError {
  return new BadInputError(`row ${row}, column ${column}: ${why}`, path);
}

/** NautilusTrader writes `price_precision` into its files' metadata, and prices as raw integers ×10^9. */
/** A row's time cell in epoch ms; refused naming the row and column when it is not a time. */
export function timeCell(path: string, row: number, column: string, value: unknown): number {
  const t = timeMs(value);
  if (t === undefined)
    throw badCell(path, row, column, `not a time (epoch s/ms/µs/ns or a UTC date-time): ${String(value)}`);
  return t;
}

export function defaultIntScale(kv: ReadonlyMap<string, string>): number {
  return kv.has('price_precision') ? 9 : 0;
}

/** A positive price of a row, as Dec and its text. */
export function priceOf(
  path: string,
  row: number,
  column: string,
  v: unknown,
  intScale: number,
): { d: Dec; text: string } {
  const r = decimalText(v, intScale);
  if ('why' in r) throw badCell(path, row, column, r.why);
  const d = dec(r.text);
  if (d.lte(0)) throw badCell(path, row, column, `a price must be above 0, got ${r.text}`);
  return { d, text: decToString(d) };
}

export async function* importQuotes(
  path: string,
  opts: TableImportOptions,
): AsyncGenerator<RecordedPoll, void, undefined> {
  const table = await openTable(path);
  const cols = resolveColumns(path, table.columns, FIELDS, parseColumnMap(opts.map, FIELDS));
  const intScale = opts.intScale ?? defaultIntScale(table.kv);
  let lastT = -1;
  let first: Dec | undefined;
  let high: Dec | undefined;
  let low: Dec | undefined;
  for await (const batch of table.batches([cols.time, cols.bid, cols.ask])) {
    const out: RecordedPoll[] = [];
    for (const { no, values } of batch) {
      const t = timeCell(path, no, cols.time, values[cols.time]);
      if (t < lastT) throw badCell(path, no, cols.time, `time goes backwards (${t} ms after ${lastT} ms)`);
      lastT = t;
      const bid = priceOf(path, no, cols.bid, values[cols.bid], intScale);
      const ask = priceOf(path, no, cols.ask, values[cols.ask], intScale);
      if (bid.d.gt(ask.d))
        throw badCell(path, no, cols.ask, `the ask ${ask.text} is below the bid ${bid.text}`);
      const mid = bid.d.plus(ask.d).div(2);
      first ??= mid;
      high = high === undefined || mid.gt(high) ? mid : high;
      low = low === undefined || mid.lt(low) ? mid : low;
      out.push({
        t,
        tickers: [
          {
            symbol: opts.symbol,
            last: decToString(mid),
            best_ask: ask.text,
            best_bid: bid.text,
            high_24h: decToString(high),
            low_24h: decToString(low),
            volume_24h: '0',
            timestamp: String(t),
            priceChangePercent: decToString(mid.div(first).minus(1).round(CHANGE_DP)),
            base_volume: '0',
          },
        ],
      });
    }
    yield* out;
  }
}

export async function quotesMeta(path: string, opts: TableImportOptions): Promise<RecordingMeta> {
  const table = await openTable(path);
  const cols = resolveColumns(path, table.columns, FIELDS, parseColumnMap(opts.map, FIELDS));
  const instrument = table.kv.get('instrument_id');
  return {
    format: RECORDING_FORMAT,
    source: {
      kind: `quotes-${tableKind(path)}`,
      file: basename(path),
      sha256: await fileSha256(path),
      columns: cols,
      intScale: opts.intScale ?? defaultIntScale(table.kv),
      ...(instrument !== undefined ? { instrumentId: instrument } : {}),
    },
    symbols: [opts.symbol],
    sampling: { kind: 'quotes', rule: 'one snapshot per quote row' },
    time: 'the quote time column, to whole ms',
    fields24h: 'session-relative',
    fields: {
      best_bid: 'the quote bid',
      best_ask: 'the quote ask',
      last: 'SYNTHETIC: the mid (bid + ask) / 2; quotes have no trades',
      high_24h: 'SESSION-RELATIVE: highest mid since the first quote',
      low_24h: 'SESSION-RELATIVE: lowest mid since the first quote',
      priceChangePercent: 'SESSION-RELATIVE: mid / first mid − 1, 6 decimals',
      volume_24h: 'ABSENT: 0 (quotes carry no traded volume)',
      base_volume: 'ABSENT: 0',
      timestamp: 'the quote time (ms)',
    },
    synthetic: ['last'],
    absent: ['volume_24h', 'base_volume', 'markPrice', 'indexPrice'],
  };
}
