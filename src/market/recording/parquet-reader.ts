// Reads a Parquet recording (parquet-schema.ts) a row group at a time: memory holds one row group's
// bytes and columns, never the file. Each row group's bytes are read once and checked against the
// sha256 the writer recorded for them; a group that matches was checked value by value when it was
// written, so only the columns the quiet path reads are decoded up front (and checked again), the
// others when a ticker object is first asked for. A group without a matching hash (a file another
// tool wrote or changed) has every column decoded and checked when it is read.
//
// Errors are BadInputError naming the file, and for a bad value its row (1-based) and column.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parquetMetadataAsync, type AsyncBuffer, type DecodedArray, type FileMetaData } from 'hyparquet';
import { BadInputError } from '../../core/errors.ts';
import type { RecordedPoll, RecordingMeta } from '../../core/market.ts';
import { parseRecordingLine } from './format.ts';
import { chunkRange, decodeChunk, schemaTreeOf, type ChunkRef } from './parquet-columns.ts';
import {
  badRow,
  checkColumn,
  ColumnPoll,
  LAZY_COLUMNS,
  readLayouts,
  RowGroupColumns,
} from './parquet-rows.ts';
import { ALL_COLUMNS, PARQUET_FORMAT, PARQUET_KEYS } from './parquet-schema.ts';
import type { OpenedRecording } from './reader.ts';

/** A file's metadata, checked: its recording meta and how to read its row groups. */
export interface ParquetRecordingInfo {
  readonly meta: RecordingMeta | undefined;
  /** The exact meta line (for the NDJSON form). */
  readonly metaLine: string | undefined;
  readonly polls: number;
  readonly ndjsonSha256: string | undefined;
  readonly finalNewline: boolean;
}

/** The exact line of each poll read from a `line` value (the columns could not rebuild it). */
const rawLines = new WeakMap<RecordedPoll, string>();

/** The exact NDJSON line of a poll this reader made from a `line` value; undefined for the others. */
export function rawLineOf(poll: RecordedPoll): string | undefined {
  return rawLines.get(poll);
}

const PHYSICAL: Record<string, string> = { poll: 'INT32', t: 'INT64', timestamp: 'INT64' };

function fileBuffer(fd: number, size: number): AsyncBuffer {
  return {
    byteLength: size,
    slice(start: number, end?: number): ArrayBuffer {
      const stop = Math.min(end ?? size, size);
      const buf = new Uint8Array(Math.max(0, stop - start));
      readSync(fd, buf, 0, buf.length, start);
      return buf.buffer;
    },
  };
}

/**
 * An INT64 column as numbers, without a BigInt per value: each value's two 32-bit halves. A value
 * outside 0 … 2^53 comes out as NaN (refused by the caller).
 */
function epochs(values: DecodedArray): Float64Array {
  const out = new Float64Array(values.length);
  if (!(values instanceof BigInt64Array)) {
    // Another writer's layout (dictionary pages, a plain array of BigInts): value by value.
    for (let i = 0; i < values.length; i++) {
      const v: unknown = values[i];
      out[i] =
        typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : Number.NaN;
    }
    return out;
  }
  const words = new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
  for (let i = 0; i < values.length; i++) {
    const lo = words[2 * i] as number;
    const hi = words[2 * i + 1] as number;
    out[i] = hi < 0x200000 ? hi * 4294967296 + lo : Number.NaN;
  }
  return out;
}

/** The checked key-value metadata of a capibot Parquet recording. */
function recordingInfo(
  file: string,
  md: FileMetaData,
): ParquetRecordingInfo & { groupHashes: readonly string[] } {
  const kv = new Map((md.key_value_metadata ?? []).map((e) => [e.key, e.value]));
  if (kv.get(PARQUET_KEYS.format) !== PARQUET_FORMAT)
    throw new BadInputError(
      `not a capibot Parquet recording (its key-value metadata has no ${PARQUET_KEYS.format} = ${PARQUET_FORMAT}); to bring in other Parquet data use capibot import --from parquet-quotes or parquet-bars`,
      file,
    );
  const schema = md.schema;
  for (const name of ALL_COLUMNS) {
    const el = schema.find((s) => s.name === name);
    if (el === undefined) throw new BadInputError(`missing column ${name}`, file);
    const want = PHYSICAL[name] ?? 'BYTE_ARRAY';
    if (el.type !== want)
      throw new BadInputError(`column ${name} is ${String(el.type)}, expected ${want}`, file);
  }
  let meta: RecordingMeta | undefined;
  const metaText = kv.get(PARQUET_KEYS.meta);
  if (metaText !== undefined) {
    let v: unknown;
    try {
      v = JSON.parse(metaText);
    } catch {
      v = undefined;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new BadInputError(`${PARQUET_KEYS.meta} is not a JSON object`, file);
    meta = v as RecordingMeta;
  }
  let groupHashes: unknown;
  try {
    groupHashes = JSON.parse(kv.get(PARQUET_KEYS.rowGroupSha256) ?? '[]');
  } catch {
    groupHashes = [];
  }
  const polls = Number(kv.get(PARQUET_KEYS.polls) ?? Number.NaN);
  return {
    meta,
    metaLine: kv.get(PARQUET_KEYS.metaLine) ?? (metaText !== undefined ? `{"meta":${metaText}}` : undefined),
    polls: Number.isSafeInteger(polls) && polls >= 0 ? polls : -1,
    ndjsonSha256: kv.get(PARQUET_KEYS.ndjsonSha256),
    finalNewline: kv.get(PARQUET_KEYS.finalNewline) !== 'false',
    groupHashes: Array.isArray(groupHashes)
      ? groupHashes.filter((h): h is string => typeof h === 'string')
      : [],
  };
}

/** Reads a row group's polls; keeps the file-wide invariants (poll numbers, non-decreasing t). */
class GroupReader {
  readonly file: string;
  readonly #fd: number;
  readonly #md: FileMetaData;
  readonly #tree: ReturnType<typeof schemaTreeOf>;
  readonly #hashes: readonly string[];
  #group = 0;
  #rowBase = 0;
  /** The last poll read, held until the next row group shows whether it goes on there. */
  #pending: { readonly poll: RecordedPoll; readonly n: number; readonly empty: boolean } | undefined;
  #nextPoll = 0;
  #lastT = -1;

  constructor(file: string, fd: number, md: FileMetaData, hashes: readonly string[]) {
    this.file = file;
    this.#fd = fd;
    this.#md = md;
    this.#tree = schemaTreeOf(md);
    this.#hashes = hashes;
  }

  /** The next row group's polls, or undefined after the last. */
  next(): RecordedPoll[] | undefined {
    const rg = this.#md.row_groups[this.#group];
    if (rg === undefined) {
      const last = this.#pending;
      this.#pending = undefined;
      return last === undefined ? undefined : [last.poll];
    }
    const rows = Number(rg.num_rows);
    const chunks = new Map<string, ChunkRef>();
    let start = Number.POSITIVE_INFINITY;
    let end = 0;
    for (const c of rg.columns) {
      const meta = c.meta_data;
      if (meta === undefined)
        throw new BadInputError(`row group ${this.#group + 1} has no column metadata`, this.file);
      const r = chunkRange(meta);
      chunks.set(meta.path_in_schema.join('.'), { name: meta.path_in_schema.join('.'), meta, ...r });
      start = Math.min(start, r.start);
      end = Math.max(end, r.end);
    }
    const size = fstatSync(this.#fd).size;
    if (!(end <= size && start < end))
      throw new BadInputError(`row group ${this.#group + 1} lies outside the file (truncated?)`, this.file);
    const bytes = new Uint8Array(end - start);
    if (readSync(this.#fd, bytes, 0, bytes.length, start) !== bytes.length)
      throw new BadInputError(`row group ${this.#group + 1} cannot be read whole (truncated?)`, this.file);
    const verified = createHash('sha256').update(bytes).digest('hex') === this.#hashes[this.#group];
    const rowBase = this.#rowBase;
    const decode = (name: string): DecodedArray => {
      const chunk = chunks.get(name);
      if (chunk === undefined) throw new BadInputError(`missing column ${name}`, this.file);
      return decodeChunk(this.file, this.#tree, bytes, start, chunk, rows);
    };
    const layouts = readLayouts(this.file, rowBase, decode('layout'));
    const symbol = decode('symbol');
    const last = decode('last');
    // A verified group holds what the writer checked; any other is checked value by value, whole.
    const checked = (name: string): DecodedArray => {
      const v = decode(name);
      if (!verified) checkColumn(this.file, rowBase, name as (typeof LAZY_COLUMNS)[number], v, layouts);
      return v;
    };
    if (!verified) {
      checkColumn(this.file, rowBase, 'symbol', symbol, layouts);
      checkColumn(this.file, rowBase, 'last', last, layouts);
    }
    const g = new RowGroupColumns(
      this.file,
      rowBase,
      symbol as (string | null)[],
      last as (string | null)[],
      layouts,
      checked,
    );
    // A group no hash vouches for is checked whole now, not in the middle of a replay.
    if (!verified) for (const k of LAZY_COLUMNS) g.column(k);
    const polls = this.#polls(g, decode('poll'), epochs(decode('t')), decode('line'), layouts, rows);
    this.#group++;
    this.#rowBase += rows;
    return polls;
  }

  #polls(
    g: RowGroupColumns,
    pollNo: DecodedArray,
    tCol: Float64Array,
    line: DecodedArray,
    layouts: readonly unknown[],
    rows: number,
  ): RecordedPoll[] {
    const out: RecordedPoll[] = [];
    const row = (r: number): number => this.#rowBase + r + 1;
    let r = 0;
    // The previous group's last poll: it may go on here (another writer's row groups split polls).
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending !== undefined) {
      while (r < rows && pollNo[r] === pending.n) {
        if (tCol[r] !== pending.poll.t)
          throw badRow(this.file, row(r), 't', 'differs from the t of its poll’s first row');
        if (line[r] !== null && line[r] !== undefined)
          throw badRow(this.file, row(r), 'line', 'set on a row that is not its poll’s first');
        if (layouts[r] === undefined || pending.empty)
          throw badRow(
            this.file,
            row(r),
            'layout',
            'empty (a poll without tickers) in a poll with several rows',
          );
        r++;
      }
      // Rare: the poll's tickers are made, those of both groups, into a plain poll.
      const whole =
        r === 0 || rawLines.has(pending.poll)
          ? pending.poll
          : {
              t: pending.poll.t,
              tickers: [...pending.poll.tickers, ...new ColumnPoll(pending.poll.t, g, 0, r).all()],
            };
      out.push(whole);
    }
    while (r < rows) {
      const n = pollNo[r] as number;
      if (n !== this.#nextPoll)
        throw badRow(
          this.file,
          row(r),
          'poll',
          `poll number ${n} where ${this.#nextPoll} was expected (rows of a poll are consecutive, polls numbered 0, 1, 2, …)`,
        );
      const t = tCol[r] as number;
      if (!(t >= 0 && Number.isSafeInteger(t)))
        throw badRow(this.file, row(r), 't', `not an epoch-ms time (0 … 2^53): ${t}`);
      if (t < this.#lastT)
        throw badRow(
          this.file,
          row(r),
          't',
          `t goes backwards (${t} after ${this.#lastT}); polls must be in non-decreasing t`,
        );
      let e = r + 1;
      while (e < rows && pollNo[e] === n) {
        if (tCol[e] !== t) throw badRow(this.file, row(e), 't', 'differs from the t of its poll’s first row');
        if (line[e] !== null && line[e] !== undefined)
          throw badRow(this.file, row(e), 'line', 'set on a row that is not its poll’s first');
        e++;
      }
      if (layouts[r] === undefined && e - r !== 1)
        throw badRow(
          this.file,
          row(r),
          'layout',
          'empty (a poll without tickers) in a poll with several rows',
        );
      const text: unknown = line[r];
      let poll: RecordedPoll;
      if (text !== null && text !== undefined) {
        const p =
          typeof text === 'string' && !text.includes('\n')
            ? parseRecordingLine(text, `${this.file} (row ${row(r)}, column line)`, 1)
            : undefined;
        if (p?.kind !== 'poll' || p.poll.t !== t)
          throw badRow(this.file, row(r), 'line', 'not the poll line of this row’s t');
        rawLines.set(p.poll, text as string);
        poll = p.poll;
      } else {
        poll = new ColumnPoll(t, g, r, layouts[r] === undefined ? 0 : e - r);
      }
      // The group's last poll waits for the next group, which may hold more of its rows.
      if (e === rows) this.#pending = { poll, n, empty: layouts[r] === undefined };
      else out.push(poll);
      this.#lastT = t;
      this.#nextPoll++;
      r = e;
    }
    return out;
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** Opens the file and reads its footer; BadInputError when it is not a readable capibot recording. */
async function openFile(
  path: string,
): Promise<{ fd: number; md: FileMetaData; info: ReturnType<typeof recordingInfo> }> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new BadInputError(
      `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      path,
    );
  }
  try {
    const size = fstatSync(fd).size;
    const head = new Uint8Array(4);
    readSync(fd, head, 0, 4, 0);
    if (size < 12 || String.fromCharCode(...head) !== 'PAR1')
      throw new BadInputError('not a Parquet file (no PAR1 magic at its start)', path);
    let md: FileMetaData;
    try {
      md = await parquetMetadataAsync(fileBuffer(fd, size));
    } catch (e) {
      throw new BadInputError(`not a readable Parquet file (${(e as Error).message}); truncated?`, path);
    }
    return { fd, md, info: recordingInfo(path, md) };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** The metadata of a Parquet recording (meta line, poll count, content hash). */
export async function readParquetInfo(path: string): Promise<ParquetRecordingInfo> {
  const { fd, info } = await openFile(path);
  closeSync(fd);
  return info;
}

/** The polls of a Parquet recording, one row group per batch. */
export async function* parquetPollBatches(
  path: string,
): AsyncGenerator<readonly RecordedPoll[], void, undefined> {
  const { fd, md, info } = await openFile(path);
  const reader = new GroupReader(path, fd, md, info.groupHashes);
  try {
    for (let b = reader.next(); b !== undefined; b = reader.next()) if (b.length > 0) yield b;
  } finally {
    reader.close();
  }
}

/** openRecording for a `.parquet` file (reader.ts dispatches here). */
export async function openParquetRecording(path: string): Promise<OpenedRecording> {
  const { fd, md, info } = await openFile(path);
  const reader = new GroupReader(path, fd, md, info.groupHashes);
  let closed = false;
  let taken = false;
  const close = (): Promise<void> => {
    if (!closed) reader.close();
    closed = true;
    return Promise.resolve();
  };
  const nextBatch = (): RecordedPoll[] | undefined => {
    if (closed) return undefined;
    try {
      for (;;) {
        const b = reader.next();
        if (b === undefined) {
          void close();
          return undefined;
        }
        if (b.length > 0) return b;
      }
    } catch (e) {
      void close();
      throw e;
    }
  };
  const once = (what: string): void => {
    if (taken)
      throw new BadInputError(`the polls of an opened recording can be iterated only once (${what})`, path);
    taken = true;
  };
  return {
    path,
    meta: info.meta,
    polls: {
      [Symbol.asyncIterator]: () => {
        once('polls');
        let batch: readonly RecordedPoll[] = [];
        let i = 0;
        return {
          next: (): Promise<IteratorResult<RecordedPoll>> => {
            try {
              while (i >= batch.length) {
                const b = nextBatch();
                if (b === undefined) return Promise.resolve({ done: true, value: undefined });
                batch = b;
                i = 0;
              }
              return Promise.resolve({ done: false, value: batch[i++] as RecordedPoll });
            } catch (e) {
              return Promise.reject(e instanceof Error ? e : new Error(String(e)));
            }
          },
          return: async (): Promise<IteratorResult<RecordedPoll>> => {
            await close();
            return { done: true, value: undefined };
          },
        };
      },
    },
    batches: {
      [Symbol.asyncIterator]: () => {
        once('batches');
        return {
          next: (): Promise<IteratorResult<readonly RecordedPoll[]>> => {
            try {
              const b = nextBatch();
              return Promise.resolve(
                b === undefined ? { done: true, value: undefined } : { done: false, value: b },
              );
            } catch (e) {
              return Promise.reject(e instanceof Error ? e : new Error(String(e)));
            }
          },
          return: async (): Promise<IteratorResult<readonly RecordedPoll[]>> => {
            await close();
            return { done: true, value: undefined };
          },
        };
      },
    },
    close,
  };
}

/** True for a path the Parquet reader and writer handle. */
export function isParquetPath(path: string): boolean {
  return path.toLowerCase().endsWith('.parquet');
}
