// Reads a Parquet recording (parquet-schema.ts) a row group at a time: memory holds one row group's
// bytes and columns, never the file. Each row group's bytes are read once and checked against the
// sha256 the writer recorded for them; a group that matches was checked value by value when it was
// written, so it is not checked again: only the columns the quiet path reads are decoded up front,
// the others when a ticker object is first asked for. A group without a matching hash (a file
// another tool wrote or changed) has every column decoded and checked when it is read. The poll
// structure (poll numbers, t non-decreasing, one t per poll) is checked in every group.
//
// Errors are BadInputError naming the file, and for a bad value its row (1-based) and column.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, readSync } from 'node:fs';
import type { DecodedArray, FileMetaData } from 'hyparquet';
import { BadInputError } from '../../core/errors.ts';
import type { RecordedPoll } from '../../core/market.ts';
import { parseRecordingLine } from './format.ts';
import { BYTES_PARSERS, chunkRange, decodeChunk, schemaTreeOf, type ChunkRef } from './parquet-columns.ts';
import { openFile } from './parquet-file.ts';
import {
  badRow,
  checkColumn,
  ColumnPoll,
  LAZY_COLUMNS,
  readLayouts,
  type LastValues,
  RowGroupColumns,
} from './parquet-rows.ts';

export { isParquetPath, readParquetInfo, type ParquetRecordingInfo } from './parquet-file.ts';

/** The exact line of each poll read from a `line` value (the columns could not rebuild it). */
const rawLines = new WeakMap<RecordedPoll, string>();

/** The exact NDJSON line of a poll this reader made from a `line` value; undefined for the others. */
export function rawLineOf(poll: RecordedPoll): string | undefined {
  return rawLines.get(poll);
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

/** Reads a row group's polls; keeps the file-wide invariants (poll numbers, non-decreasing t). */
export class GroupReader {
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
    const decode = (name: string, asBytes = false): DecodedArray => {
      const chunk = chunks.get(name);
      if (chunk === undefined) throw new BadInputError(`missing column ${name}`, this.file);
      return decodeChunk(
        this.file,
        this.#tree,
        bytes,
        start,
        chunk,
        rows,
        asBytes ? BYTES_PARSERS : undefined,
      );
    };
    const layouts = readLayouts(this.file, rowBase, decode('layout'));
    const symbol = decode('symbol');
    // A verified group's `last` holds decimal text (ASCII, checked when written): kept as its bytes,
    // which the quiet path copies (copyLast) without a string made per row. Any other is checked
    // as text, whole.
    const last = decode('last', verified);
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
      last as LastValues,
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
