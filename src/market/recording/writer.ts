// Writes recordings: plain `.ndjson`, or gzip when the name ends in `.gz`.
//
// Durability contract: lines are buffered and reach the file only on `flush()` (or when the buffer
// grows past a bound), always as whole lines. Plain files get one write per flush; gzip output is
// flushed with Z_SYNC_FLUSH, so the bytes on disk always decode to whole lines even when the process
// is killed before `close()` writes the gzip trailer (the reader accepts such a tail). Appending to an
// existing recording continues it: its last `t` is read back, a gzip file gets a new gzip member
// (multi-member gzip is standard and the reader decodes it), and a tail left by a killed writer is
// repaired first (a torn plain line is dropped; a gzip member without trailer is re-encoded).
import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { constants as zc, createGzip, type Gzip } from 'node:zlib';
import type { Logger } from 'pino';
import { BadInputError, InvariantViolation, isCapibotError } from '../../core/errors.ts';
import type { RecordedPoll, RecordingMeta } from '../../core/market.ts';
import { isRecordedPollShape, metaLineText, pollLineText, pollProblem } from './format.ts';
import { openRecording } from './reader.ts';

export type WriteMode =
  /** Continue an existing recording, or create it (default). */
  | 'append'
  /** Create a new file; refuse when it exists. */
  | 'create'
  /** Replace any existing file. */
  | 'overwrite';

export interface RecordingWriterOptions {
  /** Written as the first line when a new file is started (ignored when appending to a file). */
  readonly meta?: RecordingMeta;
  readonly mode?: WriteMode;
  /** gzip instead of plain text; default: the name ends in `.gz`. */
  readonly gzip?: boolean;
  /** gzip level 1..9; default 9 (recordings are written once and read many times). */
  readonly gzipLevel?: number;
  /** Buffered text that triggers a flush on its own; default 1 MiB. */
  readonly maxBufferedChars?: number;
  readonly logger?: Logger;
}

export interface RecordingWriter {
  readonly path: string;
  readonly gzip: boolean;
  /** The meta line of the file (the one written, or the existing one when appending). */
  readonly meta: RecordingMeta | undefined;
  /** `t` of the last poll in the file (including buffered ones), or undefined when there is none. */
  readonly lastT: number | undefined;
  /** Polls written through this writer. */
  readonly written: number;
  /** True when an existing recording is being continued. */
  readonly appended: boolean;
  /** Buffers one poll; throws InvariantViolation when `t` is not an integer ≥ the previous `t`. */
  write(poll: RecordedPoll): void;
  /** Puts every buffered line into the file (as whole lines). */
  flush(): Promise<void>;
  /** Flushes and closes; a gzip member gets its trailer. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BUFFERED = 1 << 20;

/** Opens a recording for writing; see the file comment for the append and durability rules. */
export async function openRecordingWriter(
  path: string,
  opts: RecordingWriterOptions = {},
): Promise<RecordingWriter> {
  const gzip = opts.gzip ?? path.endsWith('.gz');
  const mode = opts.mode ?? 'append';
  const exists = existsSync(path) && statSync(path).size > 0;
  if (exists && mode === 'create')
    throw new BadInputError('file exists (choose another name, or overwrite it explicitly)', path);

  let meta: RecordingMeta | undefined = opts.meta;
  let lastT: number | undefined;
  const appending = exists && mode === 'append';
  if (appending) {
    const found = await prepareAppend(path, gzip, opts.logger);
    meta = found.meta;
    lastT = found.lastT;
  }
  const fd = openSync(path, appending ? 'a' : 'w');
  const w = gzip ? new GzipSink(fd, opts.gzipLevel ?? 9) : new PlainSink(fd);
  const writer = new Writer(
    path,
    gzip,
    w,
    meta,
    lastT,
    appending,
    opts.maxBufferedChars ?? DEFAULT_MAX_BUFFERED,
  );
  if (!appending && opts.meta !== undefined) writer.writeRaw(metaLineText(opts.meta));
  return writer;
}

interface Sink {
  put(text: string): Promise<void>;
  end(): Promise<void>;
}

class PlainSink implements Sink {
  private readonly fd: number;
  constructor(fd: number) {
    this.fd = fd;
  }
  put(text: string): Promise<void> {
    writeAll(this.fd, Buffer.from(text, 'utf8'));
    return Promise.resolve();
  }
  end(): Promise<void> {
    closeSync(this.fd);
    return Promise.resolve();
  }
}

/** One gzip member per writer; compressed bytes go to the file synchronously as zlib produces them. */
class GzipSink implements Sink {
  private readonly fd: number;
  private readonly gz: Gzip;
  private failure: Error | undefined;
  constructor(fd: number, level: number) {
    this.fd = fd;
    this.gz = createGzip({ level });
    this.gz.on('data', (b: Buffer) => {
      try {
        writeAll(this.fd, b);
      } catch (e) {
        this.failure = e as Error;
      }
    });
    this.gz.on('error', (e) => {
      this.failure = e;
    });
  }
  async put(text: string): Promise<void> {
    this.gz.write(text);
    await new Promise<void>((resolve) => this.gz.flush(zc.Z_SYNC_FLUSH, () => resolve()));
    if (this.failure) throw this.failure;
  }
  async end(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.gz.once('end', () => resolve());
      this.gz.end();
      this.gz.resume();
    });
    closeSync(this.fd);
    if (this.failure) throw this.failure;
  }
}

function writeAll(fd: number, buf: Buffer, position?: number): void {
  let off = 0;
  while (off < buf.length) {
    off += writeSync(fd, buf, off, buf.length - off, position === undefined ? null : position + off);
  }
}

class Writer implements RecordingWriter {
  readonly path: string;
  readonly gzip: boolean;
  readonly meta: RecordingMeta | undefined;
  lastT: number | undefined;
  written = 0;
  readonly appended: boolean;
  private readonly sink: Sink;
  private readonly maxBuffered: number;
  private buffer: string[] = [];
  private bufferedChars = 0;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    path: string,
    gzip: boolean,
    sink: Sink,
    meta: RecordingMeta | undefined,
    lastT: number | undefined,
    appended: boolean,
    maxBuffered: number,
  ) {
    this.path = path;
    this.appended = appended;
    this.gzip = gzip;
    this.sink = sink;
    this.meta = meta;
    this.lastT = lastT;
    this.maxBuffered = maxBuffered;
  }

  writeRaw(line: string): void {
    this.buffer.push(line, '\n');
    this.bufferedChars += line.length + 1;
  }

  write(poll: RecordedPoll): void {
    if (this.closed) throw new InvariantViolation(`recording ${this.path} is closed`);
    const t = poll.t;
    if (!Number.isSafeInteger(t) || t < 0)
      throw new InvariantViolation(`poll t must be a non-negative integer, got ${t}`);
    if (this.lastT !== undefined && t < this.lastT) {
      throw new InvariantViolation(`poll t ${t} is before the previous t ${this.lastT} in ${this.path}`);
    }
    // Never write what the reader would refuse: every producer checks its input, this is the net.
    const problem = pollProblem(poll);
    if (problem !== undefined)
      throw new InvariantViolation(`refusing to write a poll the reader would refuse (t ${t}: ${problem}) to ${this.path}`);
    this.writeRaw(pollLineText(poll));
    this.lastT = t;
    this.written++;
    if (this.bufferedChars >= this.maxBuffered) void this.flush().catch(() => undefined);
  }

  flush(): Promise<void> {
    if (this.bufferedChars === 0) return this.chain;
    const text = this.buffer.join('');
    this.buffer = [];
    this.bufferedChars = 0;
    // Flushes run one after another, so lines reach the file in order; a failure is kept and
    // surfaces on every later flush and on close.
    this.chain = this.chain.then(() => this.sink.put(text));
    return this.chain;
  }

  close(): Promise<void> {
    if (this.closed) return this.chain;
    const flushed = this.flush();
    this.closed = true;
    // The file is closed even when the last flush failed; that failure is what close reports.
    this.chain = flushed.then(
      () => this.sink.end(),
      (e: unknown) => this.sink.end().then(() => Promise.reject(e as Error)),
    );
    return this.chain;
  }
}

interface AppendPoint {
  readonly meta: RecordingMeta | undefined;
  readonly lastT: number | undefined;
}

/**
 * Reads an existing recording to the end, validating it, then repairs a tail left by a killed
 * writer: nothing is changed unless every line before the tail is valid.
 */
async function prepareAppend(path: string, gzip: boolean, logger: Logger | undefined): Promise<AppendPoint> {
  if (fileIsGzip(path) !== gzip) {
    throw new BadInputError(
      `cannot continue this recording: it is ${gzip ? 'plain text' : 'gzip'} but would be continued as ${gzip ? 'gzip' : 'plain text'} (check the .gz suffix)`,
      path,
    );
  }
  let truncated = false;
  let tail: string | undefined;
  let meta: RecordingMeta | undefined;
  let lastT: number | undefined;
  try {
    const rec = await openRecording(path, {
      incompleteLastLine: 'ignore',
      onIgnoredTail: (info) => {
        tail = info.text;
      },
      onTruncated: () => {
        truncated = true;
      },
    });
    meta = rec.meta;
    for await (const batch of rec.batches) lastT = batch[batch.length - 1]?.t ?? lastT;
  } catch (e) {
    if (isCapibotError(e)) throw new BadInputError(`cannot continue this recording: ${e.message}`, path);
    throw e;
  }
  if (gzip) {
    if (truncated || tail !== undefined) {
      logger?.warn(
        { file: path, tornLine: tail !== undefined },
        'recording: gzip tail without trailer (writer was killed); re-encoding before appending',
      );
      await reencodeGzip(path);
    }
    return { meta, lastT };
  }
  if (tail !== undefined) lastT = repairPlainTail(path, tail, lastT, logger);
  return { meta, lastT };
}

/**
 * A plain recording whose last line has no newline (a killed writer, or an edit by hand): a complete
 * poll line gets its newline, a torn one is dropped, so that appended lines start clean. Returns the
 * last `t` of the file afterwards.
 */
function repairPlainTail(
  path: string,
  tail: string,
  lastT: number | undefined,
  logger: Logger | undefined,
): number | undefined {
  let poll: unknown;
  try {
    poll = JSON.parse(tail);
  } catch {
    poll = undefined;
  }
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    if (isRecordedPollShape(poll) && (lastT === undefined || poll.t >= lastT)) {
      writeAll(fd, Buffer.from('\n'), size);
      return poll.t;
    }
    const keep = lastLineStart(fd, size);
    logger?.warn(
      { file: path, droppedBytes: size - keep },
      'recording: dropped a torn last line before appending',
    );
    ftruncateSync(fd, keep);
    return lastT;
  } finally {
    closeSync(fd);
  }
}

/** True when the file starts with the gzip magic bytes. */
function fileIsGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** Offset just after the last newline before `size` (0 when there is none). */
function lastLineStart(fd: number, size: number): number {
  const window = Buffer.alloc(Math.min(size, 1 << 16));
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - window.length);
    const n = readSync(fd, window, 0, end - start, start);
    const idx = window.subarray(0, n).lastIndexOf(0x0a);
    if (idx !== -1) return start + idx + 1;
    end = start;
  }
  return 0;
}

/** Rewrites a gzip recording whose last member lacks its trailer as one complete gzip member. */
async function reencodeGzip(path: string): Promise<void> {
  const tmp = `${path}.repair-${process.pid}`;
  // Whole lines only: a torn last line is dropped.
  const rec = await openRecording(path, { incompleteLastLine: 'ignore' });
  const out = await openRecordingWriter(tmp, {
    mode: 'overwrite',
    gzip: true,
    ...(rec.meta !== undefined ? { meta: rec.meta } : {}),
  });
  for await (const batch of rec.batches) {
    for (const p of batch) out.write(p);
    await out.flush();
  }
  await out.close();
  renameSync(tmp, path);
}
