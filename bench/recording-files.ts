// Recording files for the benchmarks: the poll lines of a bundled recording, and a gzip writer for
// the derived recordings they write at bench time (bench/replay.ts, bench/synthetic-symbols.ts).
import { createWriteStream, readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
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
  return textLines(path, createGzip(level !== undefined ? { level } : {}));
}

/** A recording file at `path`, written line by line: gzip (at `level`) when it ends in `.gz`, else plain. */
export function recordingLines(path: string, level?: number): GzipLines {
  return path.endsWith('.gz') ? gzipLines(path, level) : textLines(path, new PassThrough());
}

/** Lines through `gz` (a gzip stream, or a pass-through for plain text) into the file at `path`. */
function textLines(path: string, gz: PassThrough | ReturnType<typeof createGzip>): GzipLines {
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

/**
 * Writes `lines` `factor` times, gzip, each copy shifted in time after the previous one (its `t` and
 * every ticker's `timestamp`), under a meta line naming `source`.
 */
export async function writeRepeated(
  lines: readonly string[],
  factor: number,
  path: string,
  source: string,
): Promise<void> {
  const first = JSON.parse(lines[0] as string) as { t: number };
  const last = JSON.parse(lines[lines.length - 1] as string) as { t: number };
  const second = lines.length > 1 ? (JSON.parse(lines[1] as string) as { t: number }).t : first.t + 1_000;
  const shift = last.t - first.t + Math.max(1, second - first.t);
  const out = gzipLines(path);
  await out.line(JSON.stringify({ meta: { source: `${source}: ${factor}× time-shifted copies` } }));
  for (let k = 0; k < factor; k++) {
    for (const l of lines) {
      const p = JSON.parse(l) as { t: number; tickers: { timestamp?: string }[] };
      p.t += k * shift;
      for (const t of p.tickers)
        if (t.timestamp !== undefined) t.timestamp = String(Number(t.timestamp) + k * shift);
      await out.line(JSON.stringify(p));
    }
  }
  await out.end();
}
