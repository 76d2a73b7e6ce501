// Many symbols per poll (issue #24, item 5): the tickers endpoint answers with every listed contract
// (hundreds on a large venue) while the strategies trade a few. A poll carrying 200 symbols, of which
// the strategies watch 5, should cost the engine at most twice a poll carrying those 5 alone.
//
//   benchSymbols({})                       (npm run bench wires it in as the `symbols` section)
//   node bin/run-ts.js bench/symbols-run.ts [--quick]
//
// The recordings are SYNTHETIC (bench/synthetic-symbols.ts), written to os.tmpdir() at bench time
// and removed afterwards: the first polls of the bundled FTX month, each widened to 5 or 200 tickers
// (`cmt_btcusdt` and synthetic `cmt_synNNNusdt` symbols derived from it). Five strategies that never
// trade (test/fixtures/strategies/idle.ts) watch one traded symbol each: the same five in both
// recordings, with the same tickers.
//
// Method, as bench/replay.ts: CPU time in child processes, each recording replayed at 1× and
// `factor`× its length, and the cost per poll is the marginal one, (CPU(N×) − CPU(1×)) ÷
// (polls(N×) − polls(1×)), so start-up cancels. Inside every replay the CPU spent reading the
// recording (decompress, split, parse and check each line: what any backtest does before the engine
// sees a poll) is timed apart (bench/symbols-child.ts), and the rest is the engine's share: the
// simulator, the engine, the strategies and the report's sampling. The recordings are plain NDJSON,
// not gzip: the CPU clock is the process's, and zlib inflates on libuv's threads while the engine runs
// (the reader reads ahead), so with gzip the engine's share was charged the inflating of 40× the
// bytes (200 symbols: 31 µs per poll from plain files, 38–60 µs from gzip ones, the same run). Reading a 200-symbol line costs
// about 40 times reading a 5-symbol one whatever the engine does (40 times the bytes to inflate, split
// and check), so the target is on the engine's share; the whole replay's figures are given beside it.
// Even so, reading a file interleaves its own work with the engine's (a 200-symbol poll reads and
// decodes 48 KB and allocates ~110 KB), and part of it lands in the engine's share: the garbage
// collections its allocation brings on run while the engine runs. As a control, every case is
// measured a second time with each recording's text read into memory first (the reading is then
// parsing and checking the lines only: bench/symbols-child.ts `--text-in-memory`); the target stays
// on the figure from files, the control says how much of it is the reading's.
// These machines are shared, so each case's child replays its 1× and N× recordings in turn,
// `rounds` times, each on a collected heap; the cases' children alternate, `runs` times, and the best
// of each figure is kept.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRADED, writeSyntheticRecording } from './synthetic-symbols.ts';
import { runReplayChild } from './replay-process.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = 'data/ftx-btc-perp-202201-1m.ndjson.gz';
const IDLE = join(REPO, 'test/fixtures/strategies/idle.ts');

export interface SymbolsBenchOptions {
  /** Symbols per poll of the small and the large case. Default 5 and 200. */
  readonly few?: number;
  readonly many?: number;
  /** Polls of the 1× recordings (the longer ones hold `factor` times as many). Default 4,000 and 1,000. */
  readonly pollsFew?: number;
  readonly pollsMany?: number;
  /** Default 4. */
  readonly factor?: number;
  /** Child processes per case, and replays of each recording in each. Default 3 and 3. */
  readonly runs?: number;
  readonly rounds?: number;
  readonly log?: (line: string) => void;
}

/** One case (symbols per poll): the best CPU of each recording's replays, and the marginal figures. */
export interface SymbolsCase {
  readonly symbols: number;
  readonly polls: number;
  readonly pollsLonger: number;
  /** Characters of one poll line. */
  readonly bytesPerPoll: number;
  /** Best replay CPU (ms) of the 1× and the longer recording, reading included. */
  readonly replayCpuMs: number;
  readonly replayCpuMsLonger: number;
  /** Best CPU (ms) spent reading the recording inside a replay. */
  readonly readCpuMs: number;
  readonly readCpuMsLonger: number;
  /** Best CPU (ms) of a replay less its reading: the engine's share. */
  readonly engineCpuMs: number;
  readonly engineCpuMsLonger: number;
  /** Marginal CPU µs per poll: the whole replay, its reading, and the rest (the engine's share). */
  readonly replayMicrosPerPoll: number;
  readonly readMicrosPerPoll: number;
  readonly engineMicrosPerPoll: number;
}

export interface SymbolsBenchResult {
  /** engineMicrosPerPoll of the large case ÷ that of the small one (target ≤ 2). */
  readonly engineRatio: number;
  /** The same for the whole replay, reading included (no target: reading grows with the bytes). */
  readonly replayRatio: number;
  /**
   * engineRatio with each recording's text read into memory first (bench/symbols-child.ts
   * `--text-in-memory`): the reading is then parsing only, and does not run between the engine's
   * steps (no file reads, no decoding, a tenth of the allocation). A control: how much of the
   * engine's share above is the reading's, landing in it.
   */
  readonly engineRatioTextInMemory: number;
  readonly engineMicrosPerPollFewTextInMemory: number;
  readonly engineMicrosPerPollManyTextInMemory: number;
  readonly engineMicrosPerPollFew: number;
  readonly engineMicrosPerPollMany: number;
  readonly replayMicrosPerPollFew: number;
  readonly replayMicrosPerPollMany: number;
  readonly few: SymbolsCase;
  readonly many: SymbolsCase;
  /** The same cases with the text in memory. */
  readonly textInMemory: { readonly few: SymbolsCase; readonly many: SymbolsCase };
  readonly strategies: string;
  readonly recordings: string;
  readonly factor: number;
  readonly runs: number;
  readonly rounds: number;
}

/** The best replays of one recording in a child (bench/symbols-child.ts). */
interface FileResult {
  readonly file: string;
  readonly polls: number;
  readonly tickers: number;
  readonly replayCpuMs: number;
  readonly readCpuMs: number;
  readonly engineCpuMs: number;
}

interface Recording {
  readonly path: string;
  readonly symbols: number;
  readonly polls: number;
  readonly chars: number;
}

async function inChild(
  config: string,
  rounds: number,
  recordings: readonly Recording[],
  inMemory: boolean,
): Promise<FileResult[]> {
  const stdout = await runReplayChild(
    'bench/symbols-child.ts',
    [...(inMemory ? ['--text-in-memory'] : []), config, String(rounds), ...recordings.map((r) => r.path)],
    ['--expose-gc'],
  );
  const out = stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as FileResult);
  for (const r of recordings) {
    const got = out.find((x) => x.file === r.path);
    if (got === undefined || got.polls !== r.polls || got.tickers !== r.polls * r.symbols)
      throw new Error(
        `${r.path}: expected ${r.polls} polls of ${r.symbols} tickers, got ${JSON.stringify(got)}`,
      );
  }
  return out;
}

/** Five never-trading strategies, one per traded symbol. */
export function symbolsConfigText(): string {
  const lines = [
    '# bench/symbols.ts: five strategies that never trade, one per traded symbol.',
    'mode: paper',
    'strategies:',
  ];
  TRADED.forEach((symbol, i) => {
    lines.push(
      `  - id: watch${i + 1}`,
      `    file: ${JSON.stringify(IDLE)}`,
      `    params: ${JSON.stringify({ symbol })}`,
    );
  });
  lines.push('log:', '  level: warn', '');
  return lines.join('\n');
}

const round = (x: number, digits = 3): number => Number(x.toFixed(digits));

export async function benchSymbols(o: SymbolsBenchOptions = {}): Promise<SymbolsBenchResult> {
  const log = o.log ?? ((line: string) => process.stderr.write(`bench symbols: ${line}\n`));
  const factor = o.factor ?? 4;
  const runs = o.runs ?? 3;
  const rounds = o.rounds ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'capibot-bench-symbols-'));
  try {
    const config = join(dir, 'config.yaml');
    writeFileSync(config, symbolsConfigText());
    const source = resolve(REPO, SOURCE);
    /** Per case: the 1× and the longer recording. */
    const cases: (readonly [Recording, Recording])[] = [];
    for (const [symbols, polls] of [
      [o.few ?? TRADED.length, o.pollsFew ?? 4_000],
      [o.many ?? 200, o.pollsMany ?? 1_000],
    ] as const) {
      log(`writing synthetic recordings: ${symbols} symbols, ${polls} and ${polls * factor} polls`);
      const pair = [];
      for (const n of [polls, polls * factor]) {
        const path = join(dir, `s${symbols}-p${n}.ndjson`);
        const w = await writeSyntheticRecording(source, path, { polls: n, symbols });
        pair.push({ path, symbols, polls: n, chars: w.pollChars });
      }
      cases.push(pair as unknown as readonly [Recording, Recording]);
    }
    const all = cases.flat();
    /** The best figures of every recording over `runs` children per case, text in files or in memory. */
    const measure = async (inMemory: boolean): Promise<Map<string, FileResult>> => {
      const best = new Map<string, FileResult>();
      for (let r = 0; r < runs; r++) {
        // One child per case: the two cases in one process would share the optimised code of the
        // reader and the engine, each slowing the other's.
        const measured: FileResult[] = [];
        for (const c of cases) measured.push(...(await inChild(config, rounds, c, inMemory)));
        for (const m of measured) {
          const b = best.get(m.file);
          best.set(m.file, {
            ...m,
            replayCpuMs: Math.min(b?.replayCpuMs ?? Number.POSITIVE_INFINITY, m.replayCpuMs),
            readCpuMs: Math.min(b?.readCpuMs ?? Number.POSITIVE_INFINITY, m.readCpuMs),
            engineCpuMs: Math.min(b?.engineCpuMs ?? Number.POSITIVE_INFINITY, m.engineCpuMs),
          });
        }
        log(
          `${inMemory ? 'text in memory, ' : ''}run ${r + 1}/${runs} (best of ${rounds} replays each): ` +
            all
              .map((x) => {
                const b = best.get(x.path) as FileResult;
                return `${x.symbols}×${x.polls} engine ${round(b.engineCpuMs, 0)} ms + read ${round(b.readCpuMs, 0)} ms`;
              })
              .join(', '),
        );
      }
      return best;
    };
    const fromFiles = await measure(false);
    const fromMemory = await measure(true);
    const figures = (
      best: ReadonlyMap<string, FileResult>,
      [s, l]: readonly [Recording, Recording],
    ): SymbolsCase => {
      const bs = best.get(s.path) as FileResult;
      const bl = best.get(l.path) as FileResult;
      const perPoll = (a: number, b: number): number => round(((b - a) * 1000) / (l.polls - s.polls), 2);
      return {
        symbols: s.symbols,
        polls: s.polls,
        pollsLonger: l.polls,
        bytesPerPoll: Math.round(l.chars / l.polls),
        replayCpuMs: round(bs.replayCpuMs, 1),
        replayCpuMsLonger: round(bl.replayCpuMs, 1),
        readCpuMs: round(bs.readCpuMs, 1),
        readCpuMsLonger: round(bl.readCpuMs, 1),
        engineCpuMs: round(bs.engineCpuMs, 1),
        engineCpuMsLonger: round(bl.engineCpuMs, 1),
        replayMicrosPerPoll: perPoll(bs.replayCpuMs, bl.replayCpuMs),
        readMicrosPerPoll: perPoll(bs.readCpuMs, bl.readCpuMs),
        engineMicrosPerPoll: perPoll(bs.engineCpuMs, bl.engineCpuMs),
      };
    };
    const few = figures(fromFiles, cases[0] as readonly [Recording, Recording]);
    const many = figures(fromFiles, cases[1] as readonly [Recording, Recording]);
    const fewInMemory = figures(fromMemory, cases[0] as readonly [Recording, Recording]);
    const manyInMemory = figures(fromMemory, cases[1] as readonly [Recording, Recording]);
    const result: SymbolsBenchResult = {
      engineRatio: round(many.engineMicrosPerPoll / few.engineMicrosPerPoll),
      engineRatioTextInMemory: round(manyInMemory.engineMicrosPerPoll / fewInMemory.engineMicrosPerPoll),
      engineMicrosPerPollFewTextInMemory: fewInMemory.engineMicrosPerPoll,
      engineMicrosPerPollManyTextInMemory: manyInMemory.engineMicrosPerPoll,
      replayRatio: round(many.replayMicrosPerPoll / few.replayMicrosPerPoll),
      engineMicrosPerPollFew: few.engineMicrosPerPoll,
      engineMicrosPerPollMany: many.engineMicrosPerPoll,
      replayMicrosPerPollFew: few.replayMicrosPerPoll,
      replayMicrosPerPollMany: many.replayMicrosPerPoll,
      few,
      many,
      textInMemory: { few: fewInMemory, many: manyInMemory },
      strategies: `${TRADED.length} × test/fixtures/strategies/idle.ts (never trades), one per symbol: ${TRADED.join(', ')}`,
      recordings: `SYNTHETIC, from ${SOURCE} (bench/synthetic-symbols.ts)`,
      factor,
      runs,
      rounds,
    };
    log(
      JSON.stringify({
        few,
        many,
        engineRatio: result.engineRatio,
        replayRatio: result.replayRatio,
        engineRatioTextInMemory: result.engineRatioTextInMemory,
      }),
    );
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Smaller recordings, one child, one replay each: a quick look (`npm run bench -- --quick`). */
export const QUICK_SYMBOLS: SymbolsBenchOptions = { pollsFew: 1_000, pollsMany: 250, runs: 1, rounds: 1 };
