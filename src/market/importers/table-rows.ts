// Rows of third-party tables, streamed: Parquet (a row group at a time, hyparquet), CSV with a header
// line (plain or gzip) and Freqtrade's JSON candles (`[[ms, open, high, low, close, volume], …]`).
// Values come out as they are stored (text, number, bigint, Date, bytes); `decimalText` and
// `timeMs` turn them into a recording's decimal text and epoch ms, or say why not — the importers
// name the row and the column. Feather is not read: see docs/data.md.
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead, type FileMetaData } from 'hyparquet';
import { isDecimalString } from '../../core/decimal.ts';
import { BadInputError } from '../../core/errors.ts';
import { DECOMPRESSORS } from '../recording/parquet-columns.ts';
import { parseBarTime } from './bars-csv.ts';
import { inputLineBatches } from './input-lines.ts';

export interface TableRow {
  /** 1-based data row (the CSV header not counted). */
  readonly no: number;
  readonly values: Readonly<Record<string, unknown>>;
}

export interface OpenedTable {
  readonly columns: readonly string[];
  /** Parquet key-value metadata (empty for other inputs). */
  readonly kv: ReadonlyMap<string, string>;
  /** The rows, in batches, with the named columns only. */
  batches(columns: readonly string[]): AsyncGenerator<readonly TableRow[], void, undefined>;
}

export function tableKind(path: string): 'parquet' | 'csv' | 'json' {
  const p = path.toLowerCase().replace(/\.gz$/, '');
  if (p.endsWith('.parquet')) return 'parquet';
  if (p.endsWith('.csv')) return 'csv';
  if (p.endsWith('.json')) return 'json';
  if (p.endsWith('.feather'))
    throw new BadInputError(
      'Feather is not read (no maintained JavaScript reader of its compressed Arrow IPC buffers): write the candles as Parquet or JSON instead (Freqtrade: --data-format-ohlcv parquet or json)',
      path,
    );
  throw new BadInputError('unknown table format: name it .parquet, .csv[.gz] or .json[.gz]', path);
}

export async function openTable(path: string): Promise<OpenedTable> {
  switch (tableKind(path)) {
    case 'parquet':
      return openParquet(path);
    case 'csv':
      return openCsv(path);
    case 'json':
      return openJsonCandles(path);
  }
}

async function openParquet(path: string): Promise<OpenedTable> {
  let md: FileMetaData;
  let file: Awaited<ReturnType<typeof asyncBufferFromFile>>;
  try {
    file = await asyncBufferFromFile(path);
    md = await parquetMetadataAsync(file);
  } catch (e) {
    throw new BadInputError(`not a readable Parquet file (${(e as Error).message}); truncated?`, path);
  }
  const columns = md.schema.slice(1).map((s) => s.name);
  const kv = new Map((md.key_value_metadata ?? []).map((e) => [e.key, e.value ?? '']));
  return {
    columns,
    kv,
    async *batches(wanted) {
      let start = 0;
      for (const rg of md.row_groups) {
        const rows = Number(rg.num_rows);
        let got: Record<string, unknown>[] = [];
        try {
          await parquetRead({
            file,
            metadata: md,
            columns: [...wanted],
            rowStart: start,
            rowEnd: start + rows,
            rowFormat: 'object',
            compressors: DECOMPRESSORS,
            onComplete: (r: Record<string, unknown>[]) => {
              got = r;
            },
          });
        } catch (e) {
          throw new BadInputError(
            `rows ${start + 1}–${start + rows} cannot be decoded (${(e as Error).message}): the file is damaged or truncated`,
            path,
          );
        }
        const base = start;
        yield got.map((values, i) => ({ no: base + i + 1, values }));
        start += rows;
      }
    },
  };
}

/** Splits a CSV line (no quoting: market data has none; a quoted field is refused). */
function csvFields(line: string, path: string, no: number): string[] {
  if (line.includes('"')) throw new BadInputError('quoted CSV fields are not supported', `${path}:${no}`);
  return line.split(',').map((f) => f.trim());
}

async function openCsv(path: string): Promise<OpenedTable> {
  let header: string[] | undefined;
  for await (const batch of inputLineBatches(path)) {
    const first = batch.find((l) => l.text.trim() !== '');
    if (first !== undefined) {
      header = csvFields(first.text, path, first.no);
      break;
    }
  }
  if (header === undefined) throw new BadInputError('empty CSV file (a header line is needed)', path);
  const columns = header;
  return {
    columns,
    kv: new Map(),
    async *batches(wanted) {
      const at = wanted.map((c) => columns.indexOf(c));
      let seenHeader = false;
      for await (const batch of inputLineBatches(path)) {
        const out: TableRow[] = [];
        for (const line of batch) {
          if (line.text.trim() === '') continue;
          if (!seenHeader) {
            seenHeader = true;
            continue;
          }
          const fields = csvFields(line.text, path, line.no);
          if (fields.length !== columns.length)
            throw new BadInputError(
              `row ${line.no - 1}: ${fields.length} fields where the header has ${columns.length} (torn or truncated line?)`,
              path,
            );
          const values: Record<string, unknown> = {};
          wanted.forEach((c, i) => (values[c] = fields[at[i] as number]));
          out.push({ no: line.no - 1, values });
        }
        if (out.length > 0) yield out;
      }
    },
  };
}

const CANDLE_COLUMNS = ['date', 'open', 'high', 'low', 'close', 'volume'] as const;

/** Freqtrade's JSON candles: the whole file is one array (Freqtrade writes a pair and timeframe per file). */
async function openJsonCandles(path: string): Promise<OpenedTable> {
  let value: unknown;
  try {
    const raw = await readFile(path);
    const text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8');
    value = JSON.parse(text);
  } catch (e) {
    throw new BadInputError(`not JSON candles (${(e as Error).message}); truncated?`, path);
  }
  if (!Array.isArray(value))
    throw new BadInputError(
      'not JSON candles: expected an array of [time, open, high, low, close, volume]',
      path,
    );
  const rows = value as unknown[];
  return {
    columns: CANDLE_COLUMNS,
    kv: new Map(),
    async *batches(wanted) {
      const out: TableRow[] = [];
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i];
        if (!Array.isArray(r) || r.length < CANDLE_COLUMNS.length)
          throw new BadInputError(`row ${i + 1}: not a candle [time, open, high, low, close, volume]`, path);
        const values: Record<string, unknown> = {};
        for (const c of wanted)
          values[c] = (r as unknown[])[CANDLE_COLUMNS.indexOf(c as (typeof CANDLE_COLUMNS)[number])];
        out.push({ no: i + 1, values });
      }
      await Promise.resolve();
      yield out;
    },
  };
}

/** A little-endian signed integer of 8 or 16 bytes (NautilusTrader's fixed-size binary prices). */
function leInteger(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i] as number);
  const bits = BigInt(bytes.length * 8);
  return v >= 1n << (bits - 1n) ? v - (1n << bits) : v;
}

/** `raw` × 10^-scale as decimal text. */
function scaled(raw: bigint, scale: number): string {
  if (scale === 0) return raw.toString();
  const neg = raw < 0n;
  const digits = (neg ? -raw : raw).toString().padStart(scale + 1, '0');
  const int = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

/**
 * A stored value as decimal text, or why it is not one. Integers (and 8/16-byte binaries) are
 * fixed-point raw values: value × 10^-intScale. Floats are written as their shortest exact text.
 */
export function decimalText(v: unknown, intScale: number): { text: string } | { why: string } {
  if (v === null || v === undefined || v === '') return { why: 'no value' };
  if (typeof v === 'string') {
    const s = v.trim();
    return isDecimalString(s) ? { text: s } : { why: `not a decimal: ${JSON.stringify(v)}` };
  }
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return { why: `not a decimal: ${String(v)}` };
    return Number.isInteger(v) && intScale > 0 ? { text: scaled(BigInt(v), intScale) } : { text: String(v) };
  }
  if (typeof v === 'bigint') return { text: scaled(v, intScale) };
  if (v instanceof Uint8Array && (v.length === 8 || v.length === 16))
    return { text: scaled(leInteger(v), intScale) };
  return { why: `not a decimal (a ${typeof v})` };
}

/** A stored time as epoch ms: a Date, epoch s/ms/µs/ns by its digits, or a UTC date-time text. */
export function timeMs(v: unknown): number | undefined {
  if (v instanceof Date) return Number.isFinite(v.getTime()) ? v.getTime() : undefined;
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? parseBarTime(String(v)) : undefined;
  if (typeof v === 'bigint') return v >= 0n ? parseBarTime(v.toString()) : undefined;
  if (typeof v === 'string') return parseBarTime(v.trim());
  return undefined;
}
