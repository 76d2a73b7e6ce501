// Recording files for the benchmarks: the poll lines of a bundled recording, and a gzip writer for
// the derived recordings they write at bench time (bench/replay.ts, bench/synthetic-symbols.ts).
import { createWriteStream, readFileSync } from 'node:fs';
import { createGzip, gunzipSync } from 'node:zlib';

/** The recording's poll lines (decompressed; the meta line left out). */
export function pollLines(path: string): string[] {
  const raw = readFileSync(path);
  const text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8');
  return text.split('\n').filter((l) => l.startsWith('{"t"'));
}

export interface GzipLines {
  /** Buffers `line` (a newline is added); written out by the MiB, waiting when zlib is behind. */
  line(line: string): Promise<void>;
  /** Writes what is buffered, ends the gzip stream and resolves when the file is closed. */
  end(): Promise<void>;
}

const CHUNK_CHARS = 1 << 20;

/** A gzip text file at `path`, written line by line. */
export function gzipLines(path: string, level?: number): GzipLines {
  const gz = createGzip(level !== undefined ? { level } : {});
  const file = createWriteStream(path);
  const done = new Promise<void>((ok, fail) => {
    file.on('finish', ok);
    file.on('error', fail);
    gz.on('error', fail);
  });
  gz.pipe(file);
  const write = (s: string): Promise<void> =>
    gz.write(s) ? Promise.resolve() : new Promise((ok) => gz.once('drain', () => ok()));
  let chunk = '';
  return {
    async line(line) {
      chunk += `${line}\n`;
      if (chunk.length <= CHUNK_CHARS) return;
      const full = chunk;
      chunk = '';
      await write(full);
    },
    async end() {
      if (chunk.length > 0) await write(chunk);
      chunk = '';
      gz.end();
      await done;
    },
  };
}
