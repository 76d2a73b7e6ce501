// `capibot convert IN OUT`: NDJSON (plain or gzip) ↔ Parquet, losslessly. NDJSON → Parquet →
// NDJSON gives back the same text byte for byte (decompressed: gzip bytes depend on the compressor):
// every line's exact text is either rebuilt by the columns or kept whole in the `line` column,
// the meta line is kept exactly, and whether the text ended with a newline is recorded. The
// Parquet file carries the sha256 of that text, and converting back checks it.
//
// Input is read as the reader reads it (every line checked; the first bad one stops the convert
// with its `file:line`); output goes to a temporary file renamed at the end: nothing is written
// on error.
import { createHash } from 'node:crypto';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { createGzip } from 'node:zlib';
import { BadInputError } from '../../core/errors.ts';
import { lineWhere, parseRecordingLine, pollLineText } from './format.ts';
import { pollOfLine } from './poll-line.ts';
import { isParquetPath, parquetPollBatches, rawLineOf, readParquetInfo } from './parquet-reader.ts';
import { openParquetRecordingWriter, type ParquetRecordingWriter } from './parquet-writer.ts';
import { TextChunkReader } from './text-chunks.ts';

export interface ConvertResult {
  readonly polls: number;
  readonly direction: 'ndjson-to-parquet' | 'parquet-to-ndjson';
}

export async function convertRecording(input: string, output: string): Promise<ConvertResult> {
  const fromParquet = isParquetPath(input);
  if (fromParquet === isParquetPath(output))
    throw new BadInputError(
      `IN and OUT are both ${fromParquet ? 'Parquet' : 'NDJSON'}: convert goes between NDJSON (.ndjson, .ndjson.gz) and Parquet (.parquet)`,
      output,
    );
  const polls = fromParquet ? await parquetToNdjson(input, output) : await ndjsonToParquet(input, output);
  return { polls, direction: fromParquet ? 'parquet-to-ndjson' : 'ndjson-to-parquet' };
}

/** Exact lines of a text file (a `\r` before a newline stays in its line), in batches. */
async function* exactLines(
  path: string,
): AsyncGenerator<{ readonly lines: readonly string[]; readonly rest?: string }, void, undefined> {
  const reader = await TextChunkReader.open(path);
  let carry = '';
  try {
    for (;;) {
      const chunk = await reader.next();
      if (chunk === undefined) break;
      const parts = (carry + chunk).split('\n');
      carry = parts.pop() ?? '';
      if (parts.length > 0) yield { lines: parts };
    }
    if (reader.end === 'truncated')
      throw new BadInputError('gzip data ends early (the file is truncated); nothing was written', path);
    yield { lines: [], rest: carry };
  } finally {
    await reader.close();
  }
}

async function ndjsonToParquet(input: string, output: string): Promise<number> {
  let writer: ParquetRecordingWriter | undefined;
  let n = 0;
  let lastT = -1;
  const take = (exact: string, hasNewline: boolean): void => {
    n++;
    const text = exact.endsWith('\r') ? exact.slice(0, -1) : exact;
    const poll = pollOfLine(text);
    if (poll === undefined) {
      const parsed = parseRecordingLine(text, input, n);
      if (parsed.kind === 'meta') {
        writer = openParquetRecordingWriter(output, { meta: parsed.meta, metaLine: exact });
        if (!hasNewline) writer.finalNewline(false);
        return;
      }
      throw new BadInputError('not a recording line', lineWhere(input, n));
    }
    if (poll.t < lastT)
      throw new BadInputError(
        `t goes backwards (${poll.t} after ${lastT}); polls must be in non-decreasing t`,
        lineWhere(input, n),
      );
    lastT = poll.t;
    writer ??= openParquetRecordingWriter(output);
    writer.write(poll, exact);
    if (!hasNewline) writer.finalNewline(false);
  };
  try {
    for await (const { lines, rest } of exactLines(input)) {
      for (const line of lines) take(line, true);
      if (rest !== undefined && rest.length > 0) take(rest, false);
    }
    writer ??= openParquetRecordingWriter(output);
    await writer.close();
    return writer.written;
  } catch (e) {
    writer?.abort();
    throw e;
  }
}

async function parquetToNdjson(input: string, output: string): Promise<number> {
  const info = await readParquetInfo(input);
  const partial = `${output}.partial-${process.pid}`;
  const file = createWriteStream(partial);
  const gzip = output.endsWith('.gz') ? createGzip({ level: 9 }) : undefined;
  const sink: NodeJS.WritableStream = gzip ?? file;
  if (gzip !== undefined) gzip.pipe(file);
  const done = new Promise<void>((ok, fail) => {
    file.on('finish', ok);
    file.on('error', fail);
    gzip?.on('error', fail);
  });
  const hash = createHash('sha256');
  let polls = 0;
  let lines = 0;
  const put = async (text: string): Promise<void> => {
    hash.update(text);
    if (!sink.write(text)) await new Promise<void>((ok) => sink.once('drain', () => ok()));
  };
  try {
    let chunk = '';
    const add = async (line: string): Promise<void> => {
      chunk += lines++ > 0 ? `\n${line}` : line;
      if (chunk.length >= 1 << 20) {
        await put(chunk);
        chunk = '';
      }
    };
    if (info.metaLine !== undefined) await add(info.metaLine);
    for await (const batch of parquetPollBatches(input)) {
      for (const p of batch) {
        await add(rawLineOf(p) ?? pollLineText(p));
        polls++;
      }
    }
    if (info.finalNewline && lines > 0) chunk += '\n';
    await put(chunk);
    sink.end();
    await done;
    const sha = hash.digest('hex');
    if (info.ndjsonSha256 !== undefined && sha !== info.ndjsonSha256)
      throw new BadInputError(
        'its rows do not give back the text it was made from (content sha256 differs): the file was changed or damaged; nothing was written',
        input,
      );
    renameSync(partial, output);
    return polls;
  } catch (e) {
    sink.end();
    await done.catch(() => undefined);
    rmSync(partial, { force: true });
    throw e;
  }
}
