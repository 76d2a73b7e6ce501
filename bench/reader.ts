// Recording reader throughput, as a ratio to the least work that reading a recording can take: the
// same file decompressed and split into lines by the same code, then a bare `JSON.parse` per line
// (no validation, no iteration protocol). Both run alternately several times in one process and
// the best run of each is kept, because these machines are noisy. Rates are lines per CPU second.
//
//   node bin/run-ts.js bench/reader-run.ts [REC]   (default: data/ftx-btc-perp-202201-1m.ndjson.gz)
import { readRecording } from '../src/market/recording/reader.ts';
import { LineSplitter, TextChunkReader } from '../src/market/recording/text-chunks.ts';

export interface ReaderBenchResult {
  /** readerLinesPerSecond / bareLinesPerSecond (target ≥ 0.9). */
  readonly ratioToBareParse: number;
  readonly readerLinesPerSecond: number;
  readonly bareLinesPerSecond: number;
  readonly lines: number;
  readonly runs: number;
}

/** Decompress + split + JSON.parse, nothing else. Returns the number of lines. */
async function bareParse(path: string): Promise<number> {
  const reader = await TextChunkReader.open(path);
  const splitter = new LineSplitter();
  let lines = 0;
  let sink = 0;
  for (;;) {
    const chunk = await reader.next();
    if (chunk === undefined) break;
    for (const line of splitter.push(chunk)) {
      const v: unknown = JSON.parse(line);
      if (v !== null) sink++;
      lines++;
    }
  }
  if (splitter.pending.length > 0) {
    JSON.parse(splitter.pending);
    lines++;
  }
  if (sink < 0) throw new Error('unreachable');
  return lines;
}

/** The reader as a consumer sees it: every poll validated and handed out one by one. */
async function readerParse(path: string): Promise<number> {
  let polls = 0;
  for await (const p of readRecording(path)) if (p.tickers.length >= 0) polls++;
  return polls;
}

/**
 * Seconds of CPU time (user + system, all threads: zlib inflates on the thread pool) spent in `fn`.
 * CPU time rather than wall time, because the machines running the bench are shared and busy.
 */
async function time(fn: () => Promise<number>): Promise<number> {
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
}

export async function benchReader(path: string, runs = 9): Promise<ReaderBenchResult> {
  const lines = await bareParse(path);
  await readerParse(path); // warm-up of both paths
  let bareBest = Number.POSITIVE_INFINITY;
  let readerBest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    bareBest = Math.min(bareBest, await time(() => bareParse(path)));
    readerBest = Math.min(readerBest, await time(() => readerParse(path)));
  }
  const bareLinesPerSecond = lines / bareBest;
  const readerLinesPerSecond = lines / readerBest;
  return { ratioToBareParse: readerLinesPerSecond / bareLinesPerSecond, readerLinesPerSecond, bareLinesPerSecond, lines, runs };
}
