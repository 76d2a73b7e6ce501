// Writes a recording as Parquet (parquet-schema.ts), a row group at a time: memory holds the rows of
// one row group, never the file. Parquet has its footer at the end, so a file is only readable once
// closed: the writer writes `<path>.partial-<pid>` and renames it on close; abort() (or any failure)
// removes it, so an error never leaves a partial OUT behind.
//
// Every poll is checked as the NDJSON writer checks it (never write what the reader would refuse),
// and each poll's line text — given by the converter, else the writer's own JSON — is compared
// with what the columns rebuild: when they differ the text is kept in the `line` column, so that
// converting back gives the same bytes.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ColumnSource } from 'hyparquet-writer';
import { InvariantViolation } from '../../core/errors.ts';
import type { RecordedPoll, RecordingMeta, WireTicker } from '../../core/market.ts';
import { metaLineText, pollLineText, pollProblem } from './format.ts';
import {
  ALL_COLUMNS,
  layoutOf,
  PARQUET_FORMAT,
  PARQUET_KEYS,
  recordingSchema,
  TICKER_COLUMNS,
} from './parquet-schema.ts';

export interface ParquetWriterOptions {
  readonly meta?: RecordingMeta;
  /** The meta line's exact text (the converter's); default its JSON. */
  readonly metaLine?: string;
  /** Rows per row group (whole polls: a group ends at the first poll boundary past it). */
  readonly rowGroupRows?: number;
}

export interface ParquetRecordingWriter {
  readonly path: string;
  readonly lastT: number | undefined;
  readonly written: number;
  /** Buffers one poll; `line` is its exact text when it came from a file (convert). */
  write(poll: RecordedPoll, line?: string): void;
  /** Whether the NDJSON text the file stands for ends with a newline (default true). */
  finalNewline(yes: boolean): void;
  /** Writes the last row group and the footer, then renames the file into place. */
  close(): Promise<void>;
  /** Removes the partial file. Idempotent; a no-op after close. */
  abort(): void;
}

/**
 * Rows per row group. Small groups keep a replay's memory flat: a group's columns and ticker
 * objects live while its polls are replayed, long enough to be promoted out of V8's young
 * generation, and old-generation garbage grows the peak. Peak RSS of a 4× longer replay (a month
 * of minute bars, a strategy that never trades) over the 1× one: 1.42 at 16 384 rows, about 1.27
 * at 4 096, 1.05–1.06 at 2 048 (NDJSON: 1.0). Reading costs about the same down to 2 048 rows and
 * doubles at 1 024; the file is 2 % larger than with 16 384 (a dictionary per group).
 */
export const DEFAULT_ROW_GROUP_ROWS = 2048;

const GZIP_LEVEL = 6;
const FLUSH_BYTES = 1 << 20;

/** GZIP pages (zlib): read by every Parquet reader, and 2–3× smaller than the default Snappy here. */
const compressors = { GZIP: (input: Uint8Array): Uint8Array => gzipSync(input, { level: GZIP_LEVEL }) };

/** Integer columns are delta-encoded: `poll`, `t` and `timestamp` step by little. */
const DELTA: ReadonlySet<string> = new Set(['poll', 't', 'timestamp']);

/**
 * Columns written without compression: the replay decodes them for every row group (the quiet
 * path), and they are a few bytes per group (delta-encoded integers, dictionary indexes), which
 * gzip does not shrink but costs a decompressor per page to read (a quarter of reading a month of
 * minute bars). `line` joins them in a group where it is all null (`#flushGroup`).
 */
const UNCOMPRESSED: ReadonlySet<string> = new Set(['poll', 't', 'symbol', 'layout']);

/** Whether a column chunk is written without compression (see UNCOMPRESSED). */
function uncompressed(name: string, data: readonly unknown[]): boolean {
  return UNCOMPRESSED.has(name) || (name === 'line' && data.every((v) => v === null));
}

/** ByteWriter that streams to a file and hashes each row group's bytes as they go out. */
class HashingFileWriter extends ByteWriter {
  readonly #fd: number;
  #hash: Hash | undefined;

  constructor(fd: number) {
    super(1 << 16);
    this.#fd = fd;
  }

  override ensure(size: number): void {
    if (this.index > FLUSH_BYTES) this.flush();
    super.ensure(size);
  }

  flush(): void {
    const bytes = new Uint8Array(this.buffer, 0, this.index);
    let off = 0;
    while (off < bytes.length) off += writeSync(this.#fd, bytes, off, bytes.length - off);
    this.#hash?.update(bytes);
    this.index = 0;
  }

  /** Starts hashing: the bytes written from now on belong to one row group. */
  beginGroup(): void {
    this.flush();
    this.#hash = createHash('sha256');
  }

  endGroup(): string {
    this.flush();
    const digest = (this.#hash as Hash).digest('hex');
    this.#hash = undefined;
    return digest;
  }

  override finish(): void {
    this.flush();
  }
}

/** A ticker as the reader will rebuild it: known keys in line order, `timestamp` as int64 text. */
function rebuilt(ticker: WireTicker): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of layoutOf(ticker).split(',')) {
    const v = ticker[k as keyof WireTicker] as string;
    out[k] = k === 'timestamp' ? String(BigInt(v)) : v;
  }
  return out;
}

class Writer implements ParquetRecordingWriter {
  readonly path: string;
  lastT: number | undefined;
  written = 0;
  readonly #partial: string;
  readonly #fd: number;
  readonly #bytes: HashingFileWriter;
  readonly #pw: ParquetWriter;
  readonly #groupRows: number;
  readonly #groupHashes: string[] = [];
  readonly #text = createHash('sha256');
  readonly #kv: { key: string; value: string }[];
  #lines = 0;
  #finalNewline = true;
  #cols: Record<string, unknown[]> = {};
  #rows = 0;
  #done = false;
  #closedFd = false;

  constructor(path: string, opts: ParquetWriterOptions) {
    this.path = path;
    this.#partial = `${path}.partial-${process.pid}`;
    this.#fd = openSync(this.#partial, 'w');
    this.#bytes = new HashingFileWriter(this.#fd);
    this.#groupRows = opts.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
    this.#kv = [{ key: PARQUET_KEYS.format, value: PARQUET_FORMAT }];
    if (opts.meta !== undefined) {
      const json = JSON.stringify(opts.meta);
      const canonical = metaLineText(opts.meta);
      const line = opts.metaLine ?? canonical;
      this.#kv.push({ key: PARQUET_KEYS.meta, value: json });
      if (line !== canonical) this.#kv.push({ key: PARQUET_KEYS.metaLine, value: line });
      this.#hashLine(line);
    }
    this.#pw = new ParquetWriter({
      writer: this.#bytes,
      schema: recordingSchema(),
      codec: 'GZIP',
      compressors,
      createdBy: 'capibot (hyparquet-writer)',
    });
    this.#reset();
  }

  #reset(): void {
    // In schema order: column chunks are written in this order, and other readers (DuckDB, pyarrow)
    // match chunks to the schema by position.
    this.#cols = {};
    for (const k of ALL_COLUMNS) this.#cols[k] = [];
    this.#rows = 0;
  }

  #hashLine(line: string): void {
    if (this.#lines > 0) this.#text.update('\n');
    this.#text.update(line);
    this.#lines++;
  }

  write(poll: RecordedPoll, line?: string): void {
    if (this.#done) throw new InvariantViolation(`recording ${this.path} is closed`);
    const t = poll.t;
    if (this.lastT !== undefined && t < this.lastT)
      throw new InvariantViolation(`poll t ${t} is before the previous t ${this.lastT} in ${this.path}`);
    const problem = pollProblem(poll);
    if (problem !== undefined)
      throw new InvariantViolation(
        `refusing to write a poll the reader would refuse (t ${t}: ${problem}) to ${this.path}`,
      );
    const text = line ?? pollLineText(poll);
    const tickers = poll.tickers;
    const exact = pollLineText({ t, tickers: tickers.map(rebuilt) as unknown as WireTicker[] }) === text;
    const c = this.#cols;
    const n = this.written;
    const push = (i: number, tk: WireTicker | undefined): void => {
      (c['poll'] as unknown[]).push(n);
      (c['t'] as unknown[]).push(BigInt(t));
      (c['layout'] as unknown[]).push(tk === undefined ? '' : layoutOf(tk));
      (c['line'] as unknown[]).push(i === 0 && !exact ? text : null);
      for (const k of TICKER_COLUMNS) {
        const v = tk?.[k];
        const none = k === 'symbol' || k === 'last' ? '' : null;
        (c[k] as unknown[]).push(v === undefined ? none : k === 'timestamp' ? BigInt(v) : v);
      }
      this.#rows++;
    };
    if (tickers.length === 0) push(0, undefined);
    for (let i = 0; i < tickers.length; i++) push(i, tickers[i]);
    this.#hashLine(text);
    this.lastT = t;
    this.written++;
    if (this.#rows >= this.#groupRows) this.#flushGroup();
  }

  finalNewline(yes: boolean): void {
    this.#finalNewline = yes;
  }

  #flushGroup(): void {
    if (this.#rows === 0) return;
    const columnData: ColumnSource[] = Object.entries(this.#cols).map(([name, data]) => ({
      name,
      data: name === 't' ? BigInt64Array.from(data as bigint[]) : data,
      ...(DELTA.has(name) ? { encoding: 'DELTA_BINARY_PACKED' as const } : {}),
      ...(uncompressed(name, data) ? { codec: 'UNCOMPRESSED' as const } : {}),
    }));
    this.#bytes.beginGroup();
    // One write per row group (rowGroupSize = its rows): the group's bytes are hashed as one.
    void this.#pw.write({ columnData, rowGroupSize: this.#rows });
    this.#groupHashes.push(this.#bytes.endGroup());
    this.#reset();
  }

  close(): Promise<void> {
    if (this.#done) return Promise.resolve();
    try {
      this.#flushGroup();
      if (this.#finalNewline && this.#lines > 0) this.#text.update('\n');
      this.#pw.kvMetadata = [
        ...this.#kv,
        { key: PARQUET_KEYS.polls, value: String(this.written) },
        { key: PARQUET_KEYS.ndjsonSha256, value: this.#text.digest('hex') },
        { key: PARQUET_KEYS.finalNewline, value: String(this.#finalNewline) },
        { key: PARQUET_KEYS.rowGroupSha256, value: JSON.stringify(this.#groupHashes) },
      ];
      void this.#pw.finish();
      this.#done = true;
      this.#closedFd = true;
      closeSync(this.#fd);
      renameSync(this.#partial, this.path);
    } catch (e) {
      this.abort();
      throw e;
    }
    return Promise.resolve();
  }

  abort(): void {
    if (this.#closedFd) return;
    this.#done = true;
    this.#closedFd = true;
    closeSync(this.#fd);
    rmSync(this.#partial, { force: true });
  }
}

/** Opens a Parquet recording for writing (a new file: `path` is replaced on close). */
export function openParquetRecordingWriter(
  path: string,
  opts: ParquetWriterOptions = {},
): ParquetRecordingWriter {
  return new Writer(path, opts);
}
