// Recording reader throughput, as a ratio to the least work that reading a recording can take: the
// same file decompressed and split into lines by the same code, then a bare `JSON.parse` per line
// (no validation, no iteration protocol). Both run alternately several times in one process and
// the best run of each is kept, because these machines are noisy. Rates are lines per CPU second.
//
//   node bin/run-ts.js bench/reader-run.ts [REC]   (default: data/ftx-btc-perp-202201-1m.ndjson.gz)
import { readRecording, readRecordingBatches } from '../src/market/recording/reader.ts';
import { LineSplitter, TextChunkReader } from '../src/market/recording/text-chunks.ts';

export interface ReaderBenchResult {
  /** readerLinesPerSecond / bareLinesPerSecond (target ≥ 0.9). */
  readonly ratioToBareParse: number;
  /** The reader, one poll at a time (`for await (const p of readRecording(path))`). */
  readonly readerLinesPerSecond: number;
  readonly bareLinesPerSecond: number;
  /** The same with the batch API (`readRecordingBatches`), which saves the per-poll await. */
  readonly batchRatioToBareParse: number;
  readonly lines: number;
  readonly runs: number;
}

/** Decompress + split + JSON.parse, nothing else. Returns the number of lines. (bench/parquet.ts too.) */
export async function bareParse(path: string): Promise<number> {
  const reader = await TextChunkReader.open(path);
  const splitter = new LineSplitter(path);
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

/** The batch API: every poll validated, handed out one chunk at a time. */
async function batchParse(path: string): Promise<number> {
  let polls = 0;
  for await (const b of readRecordingBatches(path)) polls += b.length;
  return polls;
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
  await readerParse(path); // warm-up of every path
  await batchParse(path);
  let bareBest = Number.POSITIVE_INFINITY;
  let readerBest = Number.POSITIVE_INFINITY;
  let batchBest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    bareBest = Math.min(bareBest, await time(() => bareParse(path)));
    readerBest = Math.min(readerBest, await time(() => readerParse(path)));
    batchBest = Math.min(batchBest, await time(() => batchParse(path)));
  }
  return {
    ratioToBareParse: bareBest / readerBest,
    readerLinesPerSecond: lines / readerBest,
    bareLinesPerSecond: lines / bareBest,
    batchRatioToBareParse: bareBest / batchBest,
    lines,
    runs,
  };
}
