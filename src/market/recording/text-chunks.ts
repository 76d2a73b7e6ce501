// Streaming text out of a file that may be gzip-compressed (detected by its magic bytes), in
// bounded chunks, pulled by the consumer: a few chunks are read ahead of what it asked for, no more,
// so memory stays flat whatever the file size. Shared by the recording reader, the importers and the
// bench.
//
// Why not `for await (const chunk of createReadStream(...).pipe(createGunzip()))`: when zlib fails
// on a truncated file, Node's stream iterator destroys the stream and drops text already decoded but
// not yet read, so a recording cut cleanly after a flush could not be told from one cut mid-line.
// Here the compressed file is fed to zlib one read at a time and every decoded chunk is delivered
// before the failure is reported.
//
// Chunks end on a line end where they can: the bytes after a chunk's last newline are kept (as bytes)
// and decoded with the next chunk, so a line is one slice of one decoded string, not two pieces
// joined into a copy (a poll of hundreds of symbols is a line of tens of KiB: that copy was half of
// what reading allocated). A line longer than CARRY_MAX_BYTES is delivered in pieces, as before.
import { open, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, type Gunzip } from 'node:zlib';
import { BadInputError } from '../../core/errors.ts';

/** Bytes per read of a plain file. */
const READ_BYTES = 256 * 1024;
/**
 * Compressed bytes per write to zlib (a gzip file is read READ_BYTES at a time, and its blocks are
 * handed to zlib this much at a time). Everything one write inflates to is held at once, and deflate
 * can expand ~1000×, so this bounds memory against a gzip bomb at ~16 MiB.
 */
const GZIP_WRITE_BYTES = 16 * 1024;
/** Size of the text chunks zlib hands out. */
const INFLATE_CHUNK_BYTES = 64 * 1024;
/** Characters kept ready ahead of the consumer, about four chunks (see TextChunkReader.readAhead). */
const READ_AHEAD_CHARS = 4 * INFLATE_CHUNK_BYTES;
/**
 * Most bytes decoded into one string where the lines allow. V8 puts a string over 128 KiB in its
 * large-object space, one mapping each, allocated and freed page by page: a plain file decoded 256 KiB
 * at a time cost about ten times the CPU of the same text decoded 64 KiB at a time (0.86 s against
 * 0.07 s for a 196 MB recording of 200 symbols, half of it in the kernel).
 */
const DECODE_PIECE_BYTES = 64 * 1024;
/** Most bytes kept after a chunk's last newline, waiting for the line's end. */
const CARRY_MAX_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/** How a text stream ended. `truncated`: the gzip data stopped before its end (no trailer). */
export type StreamEnd = 'complete' | 'truncated';

function ioError(path: string, e: unknown): BadInputError {
  const code = (e as NodeJS.ErrnoException).code;
  return new BadInputError(code ? `cannot read (${code})` : `cannot read (${(e as Error).message})`, path);
}

/**
 * A pull-based reader of UTF-8 text chunks. `next()` resolves with the next non-empty chunk, or
 * `undefined` at the end; `end` then says whether gzip data was cut short. Corrupt gzip data and I/O
 * failures reject with a BadInputError naming the file.
 */
export class TextChunkReader {
  readonly path: string;
  readonly gzip: boolean;
  private readonly fh: FileHandle;
  private readonly buf = Buffer.allocUnsafe(READ_BYTES);
  private readonly decoder = new StringDecoder('utf8');
  private readonly gunzip: Gunzip | undefined;
  private readonly queue: string[] = [];
  /** Characters in `queue`. */
  private queued = 0;
  /** Bytes after the last newline decoded so far (see the top of this file), and their length. */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private sourceDone = false;
  private finished = false;
  private failure: Error | undefined;
  private endKind: StreamEnd = 'complete';
  private wake: (() => void) | undefined;
  private released = false;
  /** `close()` was called: nothing more is handed out. */
  private closed = false;
  /** The block being read, if any (see `readAhead`). */
  private pumping: Promise<void> | undefined;
  /** A gzip file's bytes read and not yet written to zlib: from `compressedAt` on. */
  private compressed: Buffer = Buffer.alloc(0);
  private compressedAt = 0;

  private constructor(path: string, fh: FileHandle, gzip: boolean) {
    this.path = path;
    this.fh = fh;
    this.gzip = gzip;
    if (gzip) {
      const g = createGunzip({ chunkSize: INFLATE_CHUNK_BYTES });
      // Each chunk zlib hands out is a buffer of its own (never written again): kept as it is.
      g.on('data', (b: Buffer) => this.take(b));
      g.on('end', () => {
        this.flush(true);
        this.finish();
      });
      g.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'Z_BUF_ERROR') this.endKind = 'truncated';
        else this.failure = e;
        // The text decoded so far is delivered; an incomplete character at the cut is not.
        this.flush(false);
        this.finish();
      });
      this.gunzip = g;
    }
  }

  /** Opens `path`, detecting gzip by its magic bytes (1f 8b). */
  static async open(path: string): Promise<TextChunkReader> {
    let fh: FileHandle;
    try {
      fh = await open(path, 'r');
    } catch (e) {
      throw ioError(path, e);
    }
    try {
      const head = Buffer.alloc(2);
      const { bytesRead } = await fh.read(head, 0, 2, 0);
      return new TextChunkReader(path, fh, bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b);
    } catch (e) {
      await fh.close();
      throw ioError(path, e);
    }
  }

  /** Characters decoded and waiting to be handed out (a diagnostic: tests watch the read-ahead). */
  get pendingChars(): number {
    return this.queued;
  }

  /** How the stream ended; meaningful once `next()` returned `undefined`. */
  get end(): StreamEnd {
    return this.endKind;
  }

  async next(): Promise<string | undefined> {
    for (;;) {
      // A block still being read when the reader was closed may land in the queue: not handed out.
      if (this.closed) return undefined;
      const chunk = this.queue.shift();
      if (chunk !== undefined) {
        this.queued -= chunk.length;
        if (chunk.length === 0) continue;
        // A block in flight finishes on libuv's threads, but is taken in only when the event loop
        // turns: give it a turn, or a consumer that always finds a chunk waiting never lets it.
        if (this.pumping !== undefined) await new Promise<void>((resolve) => setImmediate(resolve));
        this.readAhead();
        return chunk;
      }
      if (this.finished) {
        await this.release();
        if (this.failure) throw this.translate(this.failure);
        return undefined;
      }
      await (this.pumping ?? this.startPump());
    }
  }

  /**
   * While fewer than READ_AHEAD_CHARS characters wait, the next block is read and inflated (on libuv's
   * threads) as the caller works on the chunks it has, instead of after it asks: a backtest's main
   * thread otherwise sat idle waiting for zlib for about a tenth of its run. Blocks are read one at a
   * time, so memory stays bounded as before (a few chunks more).
   */
  private readAhead(): void {
    if (this.queued < READ_AHEAD_CHARS && !this.finished && this.pumping === undefined) void this.startPump();
  }

  /** Runs `pump` (one at a time: it reuses the read buffer); its failure ends the stream. */
  private startPump(): Promise<void> {
    const p = this.pump().then(
      () => {
        this.pumping = undefined;
        this.readAhead();
      },
      (e: unknown) => {
        this.pumping = undefined;
        this.failure ??= e instanceof Error ? e : new Error(String(e));
        this.finish();
      },
    );
    this.pumping = p;
    return p;
  }

  /** Stops reading and releases the file (safe to call more than once). */
  async close(): Promise<void> {
    this.finished = true;
    this.closed = true;
    this.queue.length = 0;
    this.queued = 0;
    this.gunzip?.destroy();
    await this.release();
  }

  /**
   * Runs the next GZIP_WRITE_BYTES of a gzip file through zlib, reading a block of the file first
   * when none is left; a plain file's next block goes through the UTF-8 decoder.
   */
  private async pump(): Promise<void> {
    if (this.sourceDone) {
      // Only reached with gzip: the input was ended and zlib has not reported its end yet.
      await this.waitForGunzip();
      return;
    }
    const g = this.gunzip;
    if (g !== undefined && this.compressedAt < this.compressed.length) {
      await this.inflateNext(g);
      return;
    }
    let bytesRead: number;
    try {
      ({ bytesRead } = await this.fh.read(this.buf, 0, READ_BYTES, null));
    } catch (e) {
      this.failure = e as Error;
      this.finish();
      return;
    }
    if (bytesRead === 0) {
      this.sourceDone = true;
      if (g) {
        g.end();
        await this.waitForGunzip();
      } else {
        this.flush(true);
        this.finish();
      }
      return;
    }
    if (!g) {
      // The read buffer is reused: what is kept must be copied.
      this.take(this.buf.subarray(0, bytesRead), true);
      return;
    }
    // The read buffer is reused for the next read: the block is copied, then written in slices.
    this.compressed = Buffer.from(this.buf.subarray(0, bytesRead));
    this.compressedAt = 0;
    await this.inflateNext(g);
  }

  /** Writes the next slice of `compressed` to zlib and waits until it has been inflated. */
  private async inflateNext(g: Gunzip): Promise<void> {
    const end = Math.min(this.compressed.length, this.compressedAt + GZIP_WRITE_BYTES);
    const data = this.compressed.subarray(this.compressedAt, end);
    this.compressedAt = end;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      g.write(data, () => this.notify());
    });
  }

  /**
   * Decoded bytes in: the text up to their last newline (with the bytes kept before) goes to the
   * queue as one string; the bytes after it are kept, up to CARRY_MAX_BYTES.
   */
  private take(bytes: Buffer, copyKept = false): void {
    const nl = bytes.lastIndexOf(NEWLINE);
    if (nl === -1) {
      this.keep(copyKept ? Buffer.from(bytes) : bytes);
      return;
    }
    if (this.carry.length === 0) {
      this.decodeLines(bytes.subarray(0, nl + 1));
    } else {
      // Only the line the kept bytes begin is joined to them (copying the whole block with them
      // cost a 256 KiB copy per block of a plain file); the lines after it are decoded in place.
      const first = bytes.indexOf(NEWLINE);
      this.carry.push(bytes.subarray(0, first + 1));
      this.enqueue(this.decoder.write(Buffer.concat(this.carry, this.carryBytes + first + 1)));
      this.carry = [];
      this.carryBytes = 0;
      if (first < nl) this.decodeLines(bytes.subarray(first + 1, nl + 1));
    }
    if (nl + 1 < bytes.length) {
      const rest = bytes.subarray(nl + 1);
      this.keep(copyKept ? Buffer.from(rest) : rest);
    }
  }

  private enqueue(text: string): void {
    this.queue.push(text);
    this.queued += text.length;
  }

  /**
   * Whole lines (`bytes` ends on a newline) to the queue, in strings of at most DECODE_PIECE_BYTES
   * each ending on a newline, or of one line where a line is longer.
   */
  private decodeLines(bytes: Buffer): void {
    let from = 0;
    while (bytes.length - from > DECODE_PIECE_BYTES) {
      let cut = bytes.lastIndexOf(NEWLINE, from + DECODE_PIECE_BYTES - 1);
      if (cut < from) cut = bytes.indexOf(NEWLINE, from + DECODE_PIECE_BYTES);
      this.enqueue(this.decoder.write(bytes.subarray(from, cut + 1)));
      from = cut + 1;
    }
    if (from < bytes.length) this.enqueue(this.decoder.write(bytes.subarray(from)));
  }

  private keep(bytes: Buffer): void {
    this.carry.push(bytes);
    this.carryBytes += bytes.length;
    // A line this long goes on in pieces (the line splitter joins them, and bounds their length).
    if (this.carryBytes > CARRY_MAX_BYTES) this.flush(false);
  }

  /** The bytes kept, decoded to the queue; `end`: the input is over (an incomplete character is then decoded as U+FFFD). */
  private flush(end: boolean): void {
    if (this.carry.length > 0) {
      this.enqueue(this.decoder.write(Buffer.concat(this.carry, this.carryBytes)));
      this.carry = [];
      this.carryBytes = 0;
    }
    if (end) this.enqueue(this.decoder.end());
  }

  private async waitForGunzip(): Promise<void> {
    if (this.finished) return;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }

  private finish(): void {
    this.finished = true;
    this.notify();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.fh.close();
  }

  private translate(e: Error): BadInputError {
    if ((e as NodeJS.ErrnoException).code === 'Z_DATA_ERROR') {
      return new BadInputError(`corrupt gzip data (${e.message})`, this.path);
    }
    return ioError(this.path, e);
  }
}

/** Longest line accepted by default: far above any real poll line (a few hundred KiB at most). */
export const DEFAULT_MAX_LINE_CHARS = 4 * 1024 * 1024;

/**
 * Splits text chunks into lines (without the `\n`; a trailing `\r` removed), carrying partial lines
 * across chunks. Linear in the text: a long line is collected in parts, never rescanned. A line longer
 * than `maxLineChars` is refused with a BadInputError naming `file:line` before it is assembled.
 */
export class LineSplitter {
  private readonly file: string;
  private readonly maxLineChars: number;
  /** The parts of the current, unfinished line. */
  private parts: string[] = [];
  private partsLength = 0;
  /** Lines completed so far. */
  private count = 0;

  constructor(file: string, maxLineChars = DEFAULT_MAX_LINE_CHARS) {
    this.file = file;
    this.maxLineChars = maxLineChars;
  }

  /** The complete lines of `chunk` (with what was carried from earlier chunks). */
  push(chunk: string): string[] {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl === -1) break;
      let line = chunk.slice(start, nl);
      if (this.partsLength > 0) {
        this.checkLength(this.partsLength + line.length);
        this.parts.push(line);
        line = this.parts.join('');
        this.parts = [];
        this.partsLength = 0;
      } else if (line.length > this.maxLineChars) {
        this.checkLength(line.length);
      }
      lines.push(line.length > 0 && line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line);
      this.count++;
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.slice(start);
      this.checkLength(this.partsLength + rest.length);
      this.parts.push(rest);
      this.partsLength += rest.length;
    }
    return lines;
  }

  /** The text after the last newline: a final line without its `\n`, or '' when the text ended on one. */
  get pending(): string {
    if (this.parts.length > 1) this.parts = [this.parts.join('')];
    return this.parts[0] ?? '';
  }

  private checkLength(n: number): void {
    if (n > this.maxLineChars) {
      throw new BadInputError(
        `line longer than ${this.maxLineChars} characters`,
        `${this.file}:${this.count + 1}`,
      );
    }
  }
}
