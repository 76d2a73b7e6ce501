// Counts the poll lines of a recording (plain or gzip) without parsing them: the total of the progress
// bar. Only used on a terminal; a few tens of milliseconds for a month of minute polls.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { isParquetPath, readParquetInfo } from '../market/recording/parquet-reader.ts';

const NEWLINE = 0x0a;

async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await fh.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/** Non-empty lines, minus a leading `{"meta": ...}` line. Undefined when the file cannot be read. */
export async function countPolls(path: string): Promise<number | undefined> {
  try {
    // A Parquet recording says how many polls it holds in its footer.
    if (isParquetPath(path)) {
      const polls = (await readParquetInfo(path)).polls;
      return polls >= 0 ? polls : undefined;
    }
    const gzip = await isGzip(path);
    const file = createReadStream(path);
    const text: NodeJS.ReadableStream = gzip ? file.pipe(createGunzip()) : file;
    let lines = 0;
    let previous = NEWLINE;
    let head = '';
    for await (const chunk of text as AsyncIterable<Buffer>) {
      if (head.length < 16) head += chunk.subarray(0, 16).toString('latin1');
      for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) {
        // An empty line (two newlines in a row) is not a poll.
        const before = i > 0 ? chunk[i - 1] : previous;
        if (before !== NEWLINE) lines++;
      }
      if (chunk.length > 0) previous = chunk[chunk.length - 1] as number;
    }
    if (previous !== NEWLINE) lines++;
    const meta = /^\s*\{\s*"meta"/.test(head);
    return Math.max(0, lines - (meta ? 1 : 0));
  } catch {
    return undefined;
  }
}
