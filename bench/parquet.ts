// Parquet recordings (issue 21): replay and reading from Parquet as ratios to the bare `JSON.parse`
// of the same data as NDJSON, file sizes, and peak memory of a 4× longer Parquet replay.
//
// Baseline: bench/reader.ts's bare parse — the NDJSON file decompressed and split into lines by the
// recording reader's own code, then one `JSON.parse` per line, nothing else — the least that
// reading an NDJSON recording can cost. (The in-memory variant, `JSON.parse` over lines already
// decompressed, is reported beside it: the strictest baseline, as bench/replay.ts uses.)
//
// - reading: Parquet → engine input, no engine: open, read every row group, and hand out every poll
//   with its rows read as the simulator reads them (each row's symbol and `last`); ticker objects
//   are made only when asked for, so `readingAllTickersRatio` also makes every one (what a strategy
//   subscribed to every symbol would cost) — JSON.parse makes them all.
// - replay: `capibot backtest`'s runBacktest in a child process (bench/replay-child.ts) with the
//   bundled examples (ema-cross with its stop at the exchange: config/month.yaml on the month of
//   minute bars, config/example.yaml on the bundled ticker recording repeated, time-shifted, to a
//   replayable length), CPU time around the replay only.
// - peak RSS: the month from Parquet, 1× and 4× (time-shifted copies), each replay in its own child
//   (the lower peak of two runs), with the example strategy and with one that never trades; and the
//   same from NDJSON with the example strategy, for the engine's own growth.
// - idle: the replay from Parquet with a strategy that never trades (the engine's floor per poll).
// - marginal: the CPU between the 1× and 4× replays of the month (the peak-RSS runs, the lower CPU of
//   each two) per poll, as issue #17 measures the NDJSON replay, so start-up and warm-up cancel;
//   from Parquet and NDJSON.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tickerRows } from '../src/core/ticker-rows.ts';
import { convertRecording } from '../src/market/recording/convert.ts';
import { openRecording } from '../src/market/recording/reader.ts';
import { bareParse } from './reader.ts';
import { pollLines, writeRepeated } from './recording-files.ts';
import type { ChildResult } from './replay.ts';
import { runReplayChild } from './replay-process.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The bundled examples: `config/month.yaml` (ema-cross for minute bars, its stop at the exchange) on
 * the month, `config/example.yaml` (the same strategy for the 1-second sample) on the ticks, as
 * bench/replay.ts replays them. (config/example.yaml on the month meets its 5 % drawdown breaker on
 * day 7 and places nothing more: three quarters of that month were quiet polls.)
 */
const MONTH_CONFIG = join(REPO, 'config/month.yaml');
const TICKS_CONFIG = join(REPO, 'config/example.yaml');
/** A strategy that never trades, on the example's symbol. */
const IDLE_CONFIG = [
  'mode: paper',
  'strategies:',
  '  - id: idle',
  `    file: ${JSON.stringify(join(REPO, 'test/fixtures/strategies/idle.ts'))}`,
  '    params: { symbol: cmt_btcusdt }',
  'log:',
  '  level: warn',
  '',
].join('\n');

export interface ParquetReplayFigures {
  readonly recording: string;
  readonly polls: number;
  /** Replay from Parquet, polls per CPU second. */
  readonly parquetPollsPerSecond: number;
  /** Replay from NDJSON (the same data), polls per CPU second. */
  readonly ndjsonPollsPerSecond: number;
  /** Bare JSON.parse (decompress + split + parse) of the NDJSON, lines per CPU second. */
  readonly bareParseLinesPerSecond: number;
  /** parquetPollsPerSecond ÷ bareParseLinesPerSecond (target ≥ 1.0, aim 1.5). */
  readonly replayRatioToBareParse: number;
  /** The same against JSON.parse of lines already in memory (strictest). */
  readonly replayRatioToInMemoryParse: number;
  /** The NDJSON replay's ratio, for comparison. */
  readonly ndjsonReplayRatioToBareParse: number;
  /** Replay from Parquet with a strategy that never trades (the engine's quiet-poll floor). */
  readonly idleReplayRatioToBareParse: number;
}

export interface ParquetBenchResult {
  /** Month of minute bars: whole-engine replay from Parquet ÷ bare JSON.parse (target ≥ 1.0). */
  readonly replayRatioToBareParse: number;
  /** The bundled ticker recording, repeated: the same ratio. */
  readonly ticksReplayRatioToBareParse: number;
  readonly month: ParquetReplayFigures;
  readonly ticks: ParquetReplayFigures;
  /** Parquet → engine input (no engine) ÷ bare JSON.parse, month (target ≥ 5). */
  readonly readingRatioToBareParse: number;
  /** The same, every ticker object made too. */
  readonly readingAllTickersRatio: number;
  /** Reading against JSON.parse of lines already in memory (strictest). */
  readonly readingRatioToInMemoryParse: number;
  /** Parquet bytes ÷ NDJSON.gz bytes: the month, and the bundled ticker recording. */
  readonly sizeRatio: number;
  readonly ticksSizeRatio: number;
  readonly parquetBytes: number;
  readonly ndjsonGzBytes: number;
  /** Peak RSS of the month's replay from Parquet, 1× and 4× (MiB), and their ratio (target ≤ 1.1). */
  readonly peakRssMiB: number;
  readonly peakRssMiB4x: number;
  readonly peakRssRatio4x: number;
  /** The same with the strategy that never trades (reading and the engine's quiet path only). */
  readonly idlePeakRssRatio4x: number;
  /** The same replays from NDJSON, example strategy: what the engine's own growth is. */
  readonly ndjsonPeakRssRatio4x: number;
  /**
   * Marginal rates, as issue #17 measures the NDJSON replay: the CPU between the month's 1× and 4×
   * replays (the peak-RSS runs above, the lower CPU of each two) per poll between them, so start-up
   * and the compiler's warm-up cancel. Bare parse per line (decompress + split + JSON.parse) ÷ replay
   * per poll.
   */
  readonly marginal: MarginalParquetFigures;
  /** `marginal`'s ratios at the top level (BENCHMARKS.md reads flat fields). */
  readonly marginalReplayRatioToBareParse: number;
  readonly ndjsonMarginalReplayRatioToBareParse: number;
  readonly idleMarginalReplayRatioToBareParse: number;
  readonly runs: number;
}

export interface MarginalParquetFigures {
  /** Replay from Parquet with the example strategy: CPU µs per poll between 1× and 4×. */
  readonly replayMicrosPerPoll: number;
  readonly replayRatioToBareParse: number;
  /** The same replays from NDJSON. */
  readonly ndjsonReplayMicrosPerPoll: number;
  readonly ndjsonReplayRatioToBareParse: number;
  /** From Parquet with the strategy that never trades (the engine's quiet path). */
  readonly idleReplayMicrosPerPoll: number;
  readonly idleReplayRatioToBareParse: number;
  readonly bareParseMicrosPerLine: number;
}

/** CPU µs per poll between a 1× and an N× replay of one recording. */
function marginalMicrosPerPoll(one: ChildResult, many: ChildResult): number {
  return ((many.cpuMs - one.cpuMs) * 1000) / (many.polls - one.polls);
}

function marginalFigures(
  bareMicrosPerLine: number,
  parquet: readonly [ChildResult, ChildResult],
  ndjson: readonly [ChildResult, ChildResult],
  idle: readonly [ChildResult, ChildResult],
): MarginalParquetFigures {
  const replay = marginalMicrosPerPoll(...parquet);
  const fromNdjson = marginalMicrosPerPoll(...ndjson);
  const quiet = marginalMicrosPerPoll(...idle);
  return {
    replayMicrosPerPoll: round(replay, 2),
    replayRatioToBareParse: round(bareMicrosPerLine / replay, 4),
    ndjsonReplayMicrosPerPoll: round(fromNdjson, 2),
    ndjsonReplayRatioToBareParse: round(bareMicrosPerLine / fromNdjson, 4),
    idleReplayMicrosPerPoll: round(quiet, 2),
    idleReplayRatioToBareParse: round(bareMicrosPerLine / quiet, 4),
    bareParseMicrosPerLine: round(bareMicrosPerLine, 3),
  };
}

const round = (x: number, digits = 3): number => Number(x.toFixed(digits));
const MiB = 1024 * 1024;

async function cpuMs(fn: () => Promise<unknown>): Promise<number> {
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

async function best(runs: number, fn: () => Promise<unknown>): Promise<number> {
  let b = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) b = Math.min(b, await cpuMs(fn));
  return b;
}

/** JSON.parse over lines in memory, CPU ms. */
function inMemoryParse(lines: readonly string[]): Promise<number> {
  let sink = 0;
  for (const l of lines) sink += (JSON.parse(l) as { t: number }).t & 1;
  return Promise.resolve(sink);
}

/** Parquet → engine input: every poll, each row's symbol and `last` read as the simulator reads them. */
async function readParquet(path: string, allTickers: boolean): Promise<number> {
  const rec = await openRecording(path);
  const into = new Uint8Array(64);
  let n = 0;
  for await (const batch of rec.batches) {
    for (const p of batch) {
      const rows = tickerRows(p);
      for (let i = 0; i < rows.size; i++) {
        if (rows.symbolAt(i).length > 0 && rows.copyLast(i, into, 0) > 0) n++;
        if (allTickers) rows.tickerAt(i);
      }
    }
  }
  return n;
}

async function replayInChild(config: string, recording: string): Promise<ChildResult> {
  const stdout = await runReplayChild('bench/replay-child.ts', [config, recording]);
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as ChildResult;
}

/**
 * Two replays: the lower peak RSS (a peak depends on when the garbage collector ran, and the lower one
 * is the closer to what the replay needs) with the lower CPU time (the least a busy host added), each
 * taken on its own (the same rule for every recording compared).
 */
async function lowestPeak(config: string, recording: string): Promise<ChildResult> {
  const a = await replayInChild(config, recording);
  const b = await replayInChild(config, recording);
  return { ...(a.maxRssBytes <= b.maxRssBytes ? a : b), cpuMs: Math.min(a.cpuMs, b.cpuMs) };
}

async function replayFigures(
  label: string,
  config: string,
  ndjson: string,
  parquet: string,
  runs: number,
  idleConfig: string,
): Promise<ParquetReplayFigures> {
  const lines = pollLines(ndjson);
  const bare = await best(runs, () => bareParse(ndjson));
  const memory = await best(runs, () => inMemoryParse(lines));
  const fromParquet = await replayInChild(config, parquet);
  const fromNdjson = await replayInChild(config, ndjson);
  const idle = await replayInChild(idleConfig, parquet);
  const rate = (n: number, ms: number): number => (n * 1000) / ms;
  const parquetRate = rate(fromParquet.polls, fromParquet.cpuMs);
  return {
    recording: label,
    polls: fromParquet.polls,
    parquetPollsPerSecond: round(parquetRate, 1),
    ndjsonPollsPerSecond: round(rate(fromNdjson.polls, fromNdjson.cpuMs), 1),
    bareParseLinesPerSecond: round(rate(lines.length, bare), 1),
    replayRatioToBareParse: round(parquetRate / rate(lines.length, bare), 4),
    replayRatioToInMemoryParse: round(parquetRate / rate(lines.length, memory), 4),
    ndjsonReplayRatioToBareParse: round(
      rate(fromNdjson.polls, fromNdjson.cpuMs) / rate(lines.length, bare),
      4,
    ),
    idleReplayRatioToBareParse: round(rate(idle.polls, idle.cpuMs) / rate(lines.length, bare), 4),
  };
}

export async function benchParquet(
  month: string,
  ticks: string,
  opts: { readonly quick?: boolean; readonly log?: (line: string) => void } = {},
): Promise<ParquetBenchResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`bench parquet: ${line}\n`));
  const runs = opts.quick === true ? 3 : 9;
  const dir = mkdtempSync(join(tmpdir(), 'capibot-bench-parquet-'));
  try {
    const monthNdjson = resolve(REPO, month);
    const idleConfig = join(dir, 'idle.yaml');
    writeFileSync(idleConfig, IDLE_CONFIG);
    const monthParquet = join(dir, 'month.parquet');
    await convertRecording(monthNdjson, monthParquet);
    const ticksParquet1 = join(dir, 'ticks.parquet');
    await convertRecording(resolve(REPO, ticks), ticksParquet1);

    log('reading alone: Parquet → engine input, and the bare JSON.parse of the NDJSON');
    await readParquet(monthParquet, true); // warm-up
    const lines = pollLines(monthNdjson);
    const bare = await best(runs, () => bareParse(monthNdjson));
    const memory = await best(runs, () => inMemoryParse(lines));
    const reading = await best(runs, () => readParquet(monthParquet, false));
    const readingAll = await best(runs, () => readParquet(monthParquet, true));

    log(`replay of ${month} from Parquet and from NDJSON (config/month.yaml)`);
    const monthFigures = await replayFigures(
      month,
      MONTH_CONFIG,
      monthNdjson,
      monthParquet,
      runs,
      idleConfig,
    );
    const factor = opts.quick === true ? 8 : 32;
    const ticksNdjson = join(dir, `ticks-x${factor}.ndjson.gz`);
    const ticksParquet = join(dir, `ticks-x${factor}.parquet`);
    await writeRepeated(pollLines(resolve(REPO, ticks)), factor, ticksNdjson, 'bench/parquet.ts');
    await convertRecording(ticksNdjson, ticksParquet);
    log(`replay of ${ticks} ×${factor} from Parquet and from NDJSON`);
    const ticksFigures = await replayFigures(
      `${ticks} ×${factor}`,
      TICKS_CONFIG,
      ticksNdjson,
      ticksParquet,
      runs,
      idleConfig,
    );

    log('peak RSS: the month from Parquet, 1× and 4×');
    const x4 = join(dir, 'month-x4.ndjson.gz');
    const x4Parquet = join(dir, 'month-x4.parquet');
    await writeRepeated(lines, 4, x4, 'bench/parquet.ts');
    await convertRecording(x4, x4Parquet);
    const one = await lowestPeak(MONTH_CONFIG, monthParquet);
    const four = await lowestPeak(MONTH_CONFIG, x4Parquet);
    const ndjsonOne = await lowestPeak(MONTH_CONFIG, monthNdjson);
    const ndjsonFour = await lowestPeak(MONTH_CONFIG, x4);
    const idleOne = await lowestPeak(idleConfig, monthParquet);
    const idleFour = await lowestPeak(idleConfig, x4Parquet);

    const size = (p: string): number => statSync(p).size;
    const marginal = marginalFigures(
      (bare * 1000) / lines.length,
      [one, four],
      [ndjsonOne, ndjsonFour],
      [idleOne, idleFour],
    );
    return {
      replayRatioToBareParse: monthFigures.replayRatioToBareParse,
      ticksReplayRatioToBareParse: ticksFigures.replayRatioToBareParse,
      month: monthFigures,
      ticks: ticksFigures,
      readingRatioToBareParse: round(bare / reading, 3),
      readingAllTickersRatio: round(bare / readingAll, 3),
      readingRatioToInMemoryParse: round(memory / reading, 3),
      sizeRatio: round(size(monthParquet) / size(monthNdjson), 4),
      ticksSizeRatio: round(size(ticksParquet1) / size(resolve(REPO, ticks)), 4),
      parquetBytes: size(monthParquet),
      ndjsonGzBytes: size(monthNdjson),
      peakRssMiB: round(one.maxRssBytes / MiB, 1),
      peakRssMiB4x: round(four.maxRssBytes / MiB, 1),
      peakRssRatio4x: round(four.maxRssBytes / one.maxRssBytes, 3),
      idlePeakRssRatio4x: round(idleFour.maxRssBytes / idleOne.maxRssBytes, 3),
      ndjsonPeakRssRatio4x: round(ndjsonFour.maxRssBytes / ndjsonOne.maxRssBytes, 3),
      marginal,
      marginalReplayRatioToBareParse: marginal.replayRatioToBareParse,
      ndjsonMarginalReplayRatioToBareParse: marginal.ndjsonReplayRatioToBareParse,
      idleMarginalReplayRatioToBareParse: marginal.idleReplayRatioToBareParse,
      runs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
