// Streaming reader of recordings (plain or gzip, multi-member gzip included), constant memory.
// Every line is validated (format.ts); the first bad line stops the read with a BadInputError naming
// `file:line`. Ticker objects are handed out exactly as JSON.parse produced them from the file.
//
// A gzip recording whose data stops early (a recorder killed without closing: its output was flushed
// line by line with Z_SYNC_FLUSH) is accepted when the decoded text ends exactly on a line end; cut
// anywhere else it is refused. `truncatedGzip: 'error'` refuses every early end.
import { BadInputError, InvariantViolation } from '../../core/errors.ts';
import type { RecordedPoll, RecordingMeta } from '../../core/market.ts';
import { lineWhere, parseRecordingLine } from './format.ts';
import { openParquetRecording } from './parquet-open.ts';
import { isParquetPath, parquetPollBatches } from './parquet-reader.ts';
import { pollOfLine } from './poll-line.ts';
import { LineSplitter, TextChunkReader } from './text-chunks.ts';

export interface ReadRecordingOptions {
  /** What to do when gzip data ends before its trailer. Default `accept-complete-lines`. */
  readonly truncatedGzip?: 'accept-complete-lines' | 'error';
  /** Longest line accepted (a longer one is refused before it is assembled); default 4 Mi characters. */
  readonly maxLineChars?: number;
  /**
   * The text after the last newline, when there is some: `parse` it as the last line (default; a
   * torn line is then an error), or `ignore` it (what the writer does before continuing a file a
   * killed writer left) and tell `onIgnoredTail`.
   */
  readonly incompleteLastLine?: 'parse' | 'ignore';
  readonly onIgnoredTail?: (info: {
    readonly file: string;
    readonly line: number;
    readonly text: string;
  }) => void;
  /** Told once when a truncated gzip tail was accepted; `lines` is the number of lines read. */
  readonly onTruncated?: (info: { readonly file: string; readonly lines: number }) => void;
}

/** An open recording: its meta line (when there is one) and its polls, which can be iterated once. */
export interface OpenedRecording {
  readonly path: string;
  readonly meta: RecordingMeta | undefined;
  /** One poll at a time. Breaking out of the loop closes the file. */
  readonly polls: AsyncIterable<RecordedPoll>;
  /** The same polls in batches (one per chunk read); cheaper per poll for bulk consumers. */
  readonly batches: AsyncIterable<readonly RecordedPoll[]>;
  close(): Promise<void>;
}

/** Reads lines, validates them and keeps the ordering invariant. One instance per read. */
class RecordingCursor {
  readonly path: string;
  meta: RecordingMeta | undefined;
  private readonly text: TextChunkReader;
  private readonly opts: ReadRecordingOptions;
  private readonly splitter: LineSplitter;
  private line = 0;
  private lastT = -1;
  private ended = false;

  constructor(path: string, text: TextChunkReader, opts: ReadRecordingOptions) {
    this.path = path;
    this.text = text;
    this.opts = opts;
    this.splitter = new LineSplitter(path, opts.maxLineChars);
  }

  /** The next non-empty batch of polls, or undefined at the end (the file is then closed). */
  async nextBatch(): Promise<RecordedPoll[] | undefined> {
    while (!this.ended) {
      let chunk: string | undefined;
      try {
        chunk = await this.text.next();
      } catch (e) {
        this.ended = true;
        throw e;
      }
      if (chunk === undefined) {
        this.ended = true;
        return this.finalLine();
      }
      const polls = this.parseLines(this.splitter.push(chunk));
      if (polls.length > 0) return polls;
    }
    return undefined;
  }

  async close(): Promise<void> {
    this.ended = true;
    await this.text.close();
  }

  private parseLines(lines: readonly string[]): RecordedPoll[] {
    const polls: RecordedPoll[] = [];
    let lastT = this.lastT;
    let n = this.line;
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i] as string;
      n++;
      // Hot path (poll-line.ts); anything that is not a valid poll (meta, errors) goes to
      // parseRecordingLine, which names the problem.
      const poll = pollOfLine(text);
      if (poll !== undefined) {
        if (poll.t < lastT) throw this.backwards(poll.t, lastT, n);
        lastT = poll.t;
        polls.push(poll);
        continue;
      }
      const parsed = parseRecordingLine(text, this.path, n);
      if (parsed.kind === 'meta') {
        this.meta = parsed.meta;
        continue;
      }
      // parseRecordingLine accepted what the fast check refused: the two disagree.
      throw new InvariantViolation(`recording line check mismatch at ${lineWhere(this.path, n)}`);
    }
    this.line = n;
    this.lastT = lastT;
    return polls;
  }

  private backwards(t: number, lastT: number, n: number): BadInputError {
    this.line = n;
    return new BadInputError(
      `t goes backwards (${t} after ${lastT}); polls must be in non-decreasing t`,
      lineWhere(this.path, n),
    );
  }

  /** Handles the text after the last newline once the data ended. */
  private finalLine(): RecordedPoll[] | undefined {
    const rest = this.splitter.pending;
    const ignoreTail = this.opts.incompleteLastLine === 'ignore';
    if (rest.length > 0 && ignoreTail)
      this.opts.onIgnoredTail?.({ file: this.path, line: this.line + 1, text: rest });
    if (this.text.end === 'truncated') {
      const mode = this.opts.truncatedGzip ?? 'accept-complete-lines';
      // Not one line came out: nothing of the file is usable, say so rather than "no polls". (A
      // writer continuing its own file after a kill ignores torn tails: it starts that file afresh.)
      if (this.line === 0 && rest.length === 0 && !ignoreTail)
        throw new BadInputError(
          'corrupt or truncated gzip data: nothing could be decoded from it',
          this.path,
        );
      if ((rest.length > 0 && !ignoreTail) || mode === 'error') {
        const where = lineWhere(this.path, this.line + 1);
        throw new BadInputError(
          rest.length > 0
            ? 'gzip data ends early, in the middle of this line (the file is truncated)'
            : 'gzip data ends early (no gzip trailer: the file is truncated)',
          where,
        );
      }
      this.opts.onTruncated?.({ file: this.path, lines: this.line });
      return undefined;
    }
    if (rest.length === 0 || ignoreTail) return undefined;
    // A last line without its newline: accepted when complete; a torn one fails to parse.
    const polls = this.parseLines([rest.endsWith('\r') ? rest.slice(0, -1) : rest]);
    return polls.length > 0 ? polls : undefined;
  }
}

/** Iterates polls out of batches without an async generator's per-item overhead. */
class PollIterator implements AsyncIterableIterator<RecordedPoll> {
  private batch: readonly RecordedPoll[] = [];
  private i = 0;
  private readonly nextBatch: () => Promise<readonly RecordedPoll[] | undefined>;
  private readonly onReturn: () => Promise<void>;

  constructor(nextBatch: () => Promise<readonly RecordedPoll[] | undefined>, onReturn: () => Promise<void>) {
    this.nextBatch = nextBatch;
    this.onReturn = onReturn;
  }

  next(): Promise<IteratorResult<RecordedPoll>> {
    if (this.i < this.batch.length) {
      return Promise.resolve({ done: false, value: this.batch[this.i++] as RecordedPoll });
    }
    return this.refill();
  }

  private async refill(): Promise<IteratorResult<RecordedPoll>> {
    for (;;) {
      const b = await this.nextBatch();
      if (b === undefined) return { done: true, value: undefined };
      if (b.length === 0) continue;
      this.batch = b;
      this.i = 1;
      return { done: false, value: b[0] as RecordedPoll };
    }
  }

  async return(): Promise<IteratorResult<RecordedPoll>> {
    this.batch = [];
    await this.onReturn();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<RecordedPoll> {
    return this;
  }
}

/**
 * Opens a recording and reads up to its first poll, so that `meta` is known. Throws BadInputError
 * when the file cannot be read or its first lines are bad.
 */
export async function openRecording(path: string, opts: ReadRecordingOptions = {}): Promise<OpenedRecording> {
  // A `.parquet` recording is read from its columns (parquet-reader.ts); the options are NDJSON's.
  if (isParquetPath(path)) return openParquetRecording(path);
  const cursor = new RecordingCursor(path, await TextChunkReader.open(path), opts);
  let first: RecordedPoll[] | undefined;
  try {
    first = await cursor.nextBatch();
  } catch (e) {
    await cursor.close();
    throw e;
  }
  let pending = first;
  let taken = false;
  const takeBatch = async (): Promise<RecordedPoll[] | undefined> => {
    if (pending !== undefined) {
      const b = pending;
      pending = undefined;
      return b;
    }
    try {
      return await cursor.nextBatch();
    } catch (e) {
      await cursor.close();
      throw e;
    }
  };
  const once = (what: string): void => {
    if (taken)
      throw new BadInputError(`the polls of an opened recording can be iterated only once (${what})`, path);
    taken = true;
  };
  const close = async (): Promise<void> => {
    pending = undefined;
    await cursor.close();
  };
  return {
    path,
    meta: cursor.meta,
    polls: {
      [Symbol.asyncIterator]: () => {
        once('polls');
        return new PollIterator(takeBatch, close);
      },
    },
    batches: {
      [Symbol.asyncIterator]: () => {
        once('batches');
        return {
          next: async (): Promise<IteratorResult<readonly RecordedPoll[]>> => {
            const b = await takeBatch();
            return b === undefined ? { done: true, value: undefined } : { done: false, value: b };
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

/**
 * The polls of a recording, in order, streamed. The file is opened when iteration starts; breaking
 * out of the loop closes it. Bad lines throw BadInputError naming `file:line`.
 */
export function readRecording(path: string, opts: ReadRecordingOptions = {}): AsyncIterable<RecordedPoll> {
  if (isParquetPath(path))
    return {
      [Symbol.asyncIterator]: () => {
        let rec: Promise<OpenedRecording> | undefined;
        let it: AsyncIterator<RecordedPoll> | undefined;
        return {
          next: async () => {
            rec ??= openParquetRecording(path);
            it ??= (await rec).polls[Symbol.asyncIterator]();
            return it.next();
          },
          return: async () => {
            await (await rec)?.close();
            return { done: true, value: undefined };
          },
        };
      },
    };
  return {
    [Symbol.asyncIterator]: () => {
      let cursor: RecordingCursor | undefined;
      const nextBatch = async (): Promise<RecordedPoll[] | undefined> => {
        cursor ??= new RecordingCursor(path, await TextChunkReader.open(path), opts);
        try {
          return await cursor.nextBatch();
        } catch (e) {
          await cursor.close();
          throw e;
        }
      };
      return new PollIterator(nextBatch, async () => {
        await cursor?.close();
      });
    },
  };
}

/** The polls of a recording in batches (one per chunk of the file); see readRecording. */
export async function* readRecordingBatches(
  path: string,
  opts: ReadRecordingOptions = {},
): AsyncGenerator<readonly RecordedPoll[], void, undefined> {
  if (isParquetPath(path)) {
    yield* parquetPollBatches(path);
    return;
  }
  const cursor = new RecordingCursor(path, await TextChunkReader.open(path), opts);
  try {
    for (;;) {
      const b = await cursor.nextBatch();
      if (b === undefined) return;
      yield b;
    }
  } finally {
    await cursor.close();
  }
}

/** The meta line of a recording, or undefined when it has none; reads only the first chunk. */
export async function readRecordingMeta(path: string): Promise<RecordingMeta | undefined> {
  const rec = await openRecording(path);
  await rec.close();
  return rec.meta;
}
