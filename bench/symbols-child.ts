// The recordings of bench/symbols.ts replayed in one process, in turn, ROUNDS times each, every
// replay on a collected heap and timed in CPU. Inside each replay, the CPU spent reading the recording
// (decompressing, splitting, parsing and checking its lines: src/market/recording/reader.ts, pulled
// batch by batch) is timed apart, so the engine's share (everything else: simulator, engine,
// strategies, sampling) comes out of the same replay. Replays that alternate within one process meet
// the same machine, which a busy one needs.
//   node --expose-gc bin/run-ts.js bench/symbols-child.ts [--text-in-memory] CONFIG ROUNDS RECORDING...
// Prints one JSON line per recording: polls, tickers, and the best CPU milliseconds of its replays, of
// the reading inside them, and of the rest.
//
// `--text-in-memory`: each recording's lines are read into memory before its replays, and the
// replay's reading is only parsing and checking them (the reader's line parser, pollOfLine), in
// batches of about one decoded chunk of text, as the reader makes them. Reading a file interleaves
// its own work (reads, UTF-8 decoding, ~110 KB allocated per 200-symbol poll) with the engine's, and
// part of it lands in the engine's share, above all as garbage collections that the reading's
// allocation brings on while the engine runs: the two measures together show how much.
import type { RecordedPoll } from '../src/core/market.ts';
import type { OpenedRecording } from '../src/market/recording/reader.ts';
import { engineModules } from './engine-modules.ts';
import { pollLines } from './recording-files.ts';

const { prepareBacktest, runBacktest, tickerRows, openRecording, pollOfLine } = await engineModules();

const args = process.argv.slice(2);
const inMemory = args[0] === '--text-in-memory';
const [config, roundsText, ...files] = inMemory ? args.slice(1) : args;
const rounds = Number(roundsText);
if (config === undefined || !(rounds > 0) || files.length === 0) {
  process.stderr.write(
    'usage: node --expose-gc bin/run-ts.js bench/symbols-child.ts [--text-in-memory] CONFIG ROUNDS RECORDING...\n',
  );
  process.exit(2);
}

/** About the text of one chunk the reader decodes (src/market/recording/text-chunks.ts). */
const BATCH_CHARS = 64 * 1024;

const cpuMs = (c: NodeJS.CpuUsage): number => (c.user + c.system) / 1000;
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();

/** The recording, its batches read with the CPU they take added to `spent.ms`. */
function timedBatches(rec: OpenedRecording, spent: { ms: number; tickers: number }): OpenedRecording {
  const batches: AsyncIterable<readonly RecordedPoll[]> = {
    [Symbol.asyncIterator]: () => {
      const inner = rec.batches[Symbol.asyncIterator]();
      return {
        next: async () => {
          const c0 = process.cpuUsage();
          const r = await inner.next();
          spent.ms += cpuMs(process.cpuUsage(c0));
          // Counted by rows: reading `tickers` would make every ticker object (see fast-line.ts).
          if (r.done !== true) for (const p of r.value) spent.tickers += tickerRows(p).size;
          return r;
        },
        return: async () => inner.return?.() ?? { done: true, value: undefined },
      };
    },
  };
  return { path: rec.path, meta: rec.meta, polls: rec.polls, batches, close: () => rec.close() };
}

/**
 * A recording over `lines` already in memory: the meta of the file, and batches of about BATCH_CHARS
 * of text, each line parsed and checked by pollOfLine (timedBatches times them as any reading).
 */
function memoryRecording(
  meta: OpenedRecording['meta'],
  path: string,
  lines: readonly string[],
): OpenedRecording {
  let next = 0;
  const batches: AsyncIterable<readonly RecordedPoll[]> = {
    [Symbol.asyncIterator]: () => ({
      next: (): Promise<IteratorResult<readonly RecordedPoll[]>> => {
        if (next >= lines.length) return Promise.resolve({ done: true, value: undefined });
        const batch: RecordedPoll[] = [];
        for (let chars = 0; next < lines.length && chars < BATCH_CHARS; next++) {
          const line = lines[next] as string;
          const poll = pollOfLine(line);
          if (poll === undefined) throw new Error(`${path}: poll line ${next + 1} does not parse`);
          batch.push(poll);
          chars += line.length + 1;
        }
        return Promise.resolve({ done: false, value: batch });
      },
      return: (): Promise<IteratorResult<readonly RecordedPoll[]>> =>
        Promise.resolve({ done: true, value: undefined }),
    }),
  };
  const polls: AsyncIterable<RecordedPoll> = {
    [Symbol.asyncIterator]: () => {
      throw new Error('bench/symbols-child.ts: the replay reads batches');
    },
  };
  return { path, meta, polls, batches, close: () => Promise.resolve() };
}

interface Pass {
  readonly polls: number;
  readonly tickers: number;
  readonly replayCpuMs: number;
  readonly readCpuMs: number;
}

/** Per recording, with --text-in-memory: its meta and poll lines. */
const inMemoryText = new Map<string, { meta: OpenedRecording['meta']; lines: string[] }>();
if (inMemory) {
  for (const file of files) {
    const rec = await openRecording(file);
    inMemoryText.set(file, { meta: rec.meta, lines: pollLines(file) });
    await rec.close();
  }
}

async function replay(path: string): Promise<Pass> {
  const prepared = await prepareBacktest({ configPath: config as string, data: path, env: process.env });
  const text = inMemoryText.get(path);
  collect();
  const spent = { ms: 0, tickers: 0 };
  const cpu0 = process.cpuUsage();
  const c0 = process.cpuUsage();
  const rec = text !== undefined ? memoryRecording(text.meta, path, text.lines) : await openRecording(path);
  spent.ms += cpuMs(process.cpuUsage(c0));
  const record = await runBacktest({ ...prepared, recording: timedBatches(rec, spent) });
  return {
    polls: record.run.tickers,
    tickers: spent.tickers,
    replayCpuMs: cpuMs(process.cpuUsage(cpu0)),
    readCpuMs: spent.ms,
  };
}

const best = new Map<string, Pass & { engineCpuMs: number }>();
for (let r = 0; r < rounds; r++) {
  for (const file of files) {
    const p = await replay(file);
    if (process.env['SYMBOLS_CHILD_TRACE'] !== undefined)
      process.stderr.write(`${file}: ${JSON.stringify(p)}\n`);
    const b = best.get(file);
    best.set(file, {
      polls: p.polls,
      tickers: p.tickers,
      replayCpuMs: Math.min(b?.replayCpuMs ?? Number.POSITIVE_INFINITY, p.replayCpuMs),
      readCpuMs: Math.min(b?.readCpuMs ?? Number.POSITIVE_INFINITY, p.readCpuMs),
      engineCpuMs: Math.min(b?.engineCpuMs ?? Number.POSITIVE_INFINITY, p.replayCpuMs - p.readCpuMs),
    });
  }
}
for (const file of files) console.log(JSON.stringify({ file, ...best.get(file) }));
