// The recordings of bench/symbols.ts replayed in one process, in turn, ROUNDS times each, every
// replay on a collected heap and timed in CPU. Inside each replay, the CPU spent reading the recording
// (decompressing, splitting, parsing and checking its lines: src/market/recording/reader.ts, pulled
// batch by batch) is timed apart, so the engine's share (everything else: simulator, engine,
// strategies, sampling) comes out of the same replay. Replays that alternate within one process meet
// the same machine, which a busy one needs.
//   node --expose-gc bin/run-ts.js bench/symbols-child.ts CONFIG ROUNDS RECORDING...
// Prints one JSON line per recording: polls, tickers, and the best CPU milliseconds of its replays, of
// the reading inside them, and of the rest.
import type { RecordedPoll } from '../src/core/market.ts';
import type { OpenedRecording } from '../src/market/recording/reader.ts';
import { engineModules } from './engine-modules.ts';

const { prepareBacktest, runBacktest, tickerRows, openRecording } = await engineModules();

const [config, roundsText, ...files] = process.argv.slice(2);
const rounds = Number(roundsText);
if (config === undefined || !(rounds > 0) || files.length === 0) {
  process.stderr.write(
    'usage: node --expose-gc bin/run-ts.js bench/symbols-child.ts CONFIG ROUNDS RECORDING...\n',
  );
  process.exit(2);
}

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

interface Pass {
  readonly polls: number;
  readonly tickers: number;
  readonly replayCpuMs: number;
  readonly readCpuMs: number;
}

async function replay(path: string): Promise<Pass> {
  const prepared = await prepareBacktest({ configPath: config as string, data: path, env: process.env });
  collect();
  const spent = { ms: 0, tickers: 0 };
  const cpu0 = process.cpuUsage();
  const c0 = process.cpuUsage();
  const rec = await openRecording(path);
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
