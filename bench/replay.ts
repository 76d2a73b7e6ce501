// Backtest replay: throughput through the whole engine (strategy host, risk gate, write-ahead store,
// executor with its weight budget, reconciliation pollers, in-process simulator, virtual time) with a
// simple strategy, as a ratio to a bare `JSON.parse` loop over the same recording's lines measured in
// the same run; and peak memory of the replay of the recording against one 4× longer.
//
//   benchReplay('data/ftx-btc-perp-202201-1m.ndjson.gz', {})      (npm run bench wires it in)
//   node bin/run-ts.js bench/replay-run.ts [RECORDING] [--max-polls N] [--no-memory]
//
// Each replay runs in a child process (bench/replay-child.ts), so process.resourceUsage().maxRSS is
// that replay's own peak. The 4× recording is the original repeated four times, each copy shifted in
// time to follow the previous one, written gzip to os.tmpdir() (removed afterwards).
//
// The floor (bench/strategy-floor.ts): parse + the Ticker + the strategy's own onTicker, no engine,
// measured beside the bare parse. bare ÷ floor is the ceiling the strategy allows the ratio, and
// (replay − floor) ÷ polls is what the engine itself costs per poll.
//
// Rates are ticker snapshots (recording lines, as report.json counts `tickers`) per CPU second, the
// replay's measured around runBacktest (strategy loading excluded), the bare parse's as the best of
// several loops over the lines already in memory (decompression excluded): the strictest baseline.
// Wall-clock rates are given too; on a shared machine CPU time is the steadier figure.
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { isStrategyDefinition, type StrategyDefinition } from '../src/strategy/define.ts';
import { pollLines, writeRepeated } from './recording-files.ts';
import { strategyFloor, type FloorRun } from './strategy-floor.ts';
import { runReplayChild } from './replay-process.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface BenchReplayOptions {
  /** Only the first N polls (a quick run). Default: the whole recording. */
  readonly maxPolls?: number;
  /** Measure peak RSS of the 1× and the longer recording. Default true. */
  readonly memory?: boolean;
  /** How many times the recording the second (longer) replay repeats. Default 4. */
  readonly factor?: number;
  /**
   * How many times the recording the first replay repeats (default 1). A recording of a few hundred
   * polls replays in less time than the engine takes to warm up (V8 optimizes the hot code on its
   * background threads during the first seconds), so its marginal figures would carry that start-up:
   * repeated, the first replay is past it too, and the difference measures the steady state.
   */
  readonly baseFactor?: number;
  /** Progress lines (stderr by default). */
  readonly log?: (line: string) => void;
  /**
   * A bundled config whose strategy is also replayed at 1× and `factor`× (the bar is set
   * with the bundled example strategy): its marginal ratio is reported beside sma-cross's. Its
   * drawdown breaker is relaxed as the sma config's is (it would stop trading in the longer copies).
   */
  readonly exampleConfig?: string;
}

export interface ChildResult {
  readonly polls: number;
  readonly orders: number;
  readonly fills: number;
  readonly equitySamples: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  /** The main thread's CPU alone (Linux); the rest of cpuMs is V8's compiler and GC threads. */
  readonly mainThreadCpuMs?: number;
  readonly maxRssBytes: number;
}

export interface BenchReplayResult {
  readonly recording: string;
  readonly polls: number;
  /** Ticker objects in those polls (one per symbol per poll). */
  readonly tickerObjects: number;
  readonly strategy: string;
  /** Replay: ticker snapshots per CPU second, and per wall second. */
  readonly tickersPerSecond: number;
  readonly tickersPerWallSecond: number;
  /** Bare JSON.parse of the same lines: snapshots per CPU second. */
  readonly bareParseTickersPerSecond: number;
  /** tickersPerSecond ÷ bareParseTickersPerSecond (target ≥ 0.5, aim 0.8). */
  readonly ratioToBareParse: number;
  /** The floor (parse + Ticker + the strategy alone, no engine): snapshots per CPU second. */
  readonly floorTickersPerSecond: number;
  /** floorTickersPerSecond ÷ bareParseTickersPerSecond: the highest ratioToBareParse the strategy allows. */
  readonly ceilingRatio: number;
  /** What the engine adds to the floor, CPU µs per poll: (replay − floor) ÷ polls. */
  readonly engineMicrosPerPoll: number;
  /** Placements the strategy returned in the floor's pass (no risk gate there: more than the replay's). */
  readonly floorPlacements: number;
  /** The same ceiling for a strategy that costs nothing: bare parse ÷ (parse + tickers). */
  readonly tickerCeilingRatio: number;
  readonly orders: number;
  readonly fills: number;
  /** Peak RSS of the replay of the recording, and of the `factor`× longer one (MiB). */
  readonly peakRssMiB: number;
  readonly peakRssMiB4x: number;
  /** peakRssMiB4x ÷ peakRssMiB (target ≤ 1.5: memory stays flat). */
  readonly peakRssRatio4x: number;
  readonly polls4x: number;
  readonly tickersPerSecond4x: number;
  readonly factor: number;
  /** How many times the recording the first replay repeated (BenchReplayOptions.baseFactor). */
  readonly baseFactor: number;
  /**
   * Marginal figures (start-up cancels): CPU per poll of the `factor`× replay beyond the 1× one.
   * Absent when the longer recording was not replayed (`memory: false`).
   */
  readonly marginal?: MarginalFigures;
}

/** The marginal figures at the top level too (BENCHMARKS.md reads flat fields). */
export type FlatReplayResult = BenchReplayResult & Partial<MarginalFigures>;

export interface MarginalFigures {
  /** Bare JSON.parse CPU µs per line. */
  readonly bareParseMicrosPerLine: number;
  /** sma-cross: marginal replay CPU µs per poll. */
  readonly replayMicrosPerPoll: number;
  /** bare parse per line ÷ marginal replay per poll (the bar: ≥ 0.5). */
  readonly marginalRatioToBareParse: number;
  /** The never-trading strategy: marginal replay CPU µs per poll. */
  readonly quietReplayMicrosPerPoll: number;
  /** The same ratio for the never-trading strategy. */
  readonly quietRatioToBareParse: number;
  /** What the engine adds to parse + tickers per quiet poll (target ≤ 2 µs). */
  readonly engineMicrosPerQuietPoll: number;
  /**
   * CPU µs per line of gunzipping the longer recording (best of three, in memory). Every replay pays
   * it (on a libuv worker thread: process CPU) and the bare parse does not, so it is part of the
   * quiet poll's figure above; shown apart, not subtracted.
   */
  readonly gzipInflateMicrosPerLine: number;
  /** CPU per order of sma-cross beyond the quiet replay, 1× recording: (sma − idle) ÷ orders (target ≤ 50 µs). */
  readonly engineMicrosPerOrder: number;
  /**
   * The same between the 1× and the longer replay, start-up and warm-up cancelled:
   * ((sma₄ − sma₁) − (idle₄ − idle₁)) ÷ (orders₄ − orders₁).
   */
  readonly engineMicrosPerOrderMarginal: number;
  /**
   * The main thread's share of the 1× sma-cross replay's CPU (the rest: V8's optimizing compiler and
   * GC helper threads), and engineMicrosPerOrderMarginal counted on the main thread alone. Linux only.
   */
  readonly mainThreadShare?: number;
  readonly engineMicrosPerOrderMarginalMainThread?: number;
  /** The bundled example (`exampleConfig`): its config, marginal CPU µs per poll, the ratio, its orders. */
  readonly exampleConfig?: string;
  readonly exampleReplayMicrosPerPoll?: number;
  readonly exampleMarginalRatioToBareParse?: number;
  readonly exampleOrders?: number;
}

/** The bench's strategy: the sma-cross fixture (market orders on a moving-average cross). */
const STRATEGY = join(REPO, 'test/fixtures/strategies/sma-cross.ts');
const PARAMS = { symbol: 'cmt_btcusdt', fast: 10, slow: 30, size: '0.01' } as const;
/** A strategy that never trades: its replay is the engine's cost per quiet poll. */
const IDLE = join(REPO, 'test/fixtures/strategies/idle.ts');
const IDLE_PARAMS = { symbol: 'cmt_btcusdt' } as const;

async function loadStrategy(): Promise<StrategyDefinition> {
  const mod = (await import(pathToFileURL(STRATEGY).href)) as { default?: unknown };
  if (!isStrategyDefinition(mod.default)) throw new Error(`${STRATEGY} exports no strategy`);
  return mod.default;
}

function configText(file = STRATEGY, params: object = PARAMS): string {
  return [
    '# bench/replay.ts: a simple strategy on the recording, every other setting at its default,',
    '# except the drawdown breaker: it would stop the strategy trading in the longer recordings.',
    'mode: paper',
    'strategies:',
    '  - id: sma',
    `    file: ${JSON.stringify(file)}`,
    `    params: ${JSON.stringify(params)}`,
    'risk:',
    '  drawdownReducePct: 90',
    '  drawdownHaltPct: 95',
    'log:',
    '  level: warn',
    '',
  ].join('\n');
}

/**
 * The baselines (bare parse, floors) are timed over at least this many lines: the bundled 1-second
 * sample has 300, which parse in well under a millisecond, and the best of five such passes was
 * mostly timer, scheduling and warm-up (its bare parse read 2.7 and 5.6 µs a line in two runs of the
 * same code an hour apart, and moved the ratio and the quiet-poll figure as much).
 */
export const MIN_BASELINE_LINES = 40_000;

/** `lines` repeated (in order, whole) until there are at least MIN_BASELINE_LINES. */
export function baselineLines(lines: readonly string[]): readonly string[] {
  const times = lines.length === 0 ? 1 : Math.ceil(MIN_BASELINE_LINES / lines.length);
  if (times <= 1) return lines;
  const out: string[] = [];
  for (let i = 0; i < times; i++) out.push(...lines);
  return out;
}

/**
 * CPU milliseconds of the best of `runs` gunzips of the file at `path`, streamed and discarded. Not
 * `gunzipSync`: the whole text in this process's memory raised its resident set, and a child forked
 * after that starts with it as its peak (Linux keeps the high-water mark across fork and exec): every
 * later child's peak RSS read the parent's (run AU, BENCHMARKS.md).
 */
async function gunzipCpuMs(path: string, runs = 3): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    await pipeline(createReadStream(path), createGunzip(), new Writable({ write: (_c, _e, done) => done() }));
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  return best;
}

/** CPU milliseconds of the best of `runs` bare JSON.parse loops over `lines`. */
function bareParseCpuMs(lines: readonly string[], runs = 5): number {
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    for (const l of lines) {
      const v = JSON.parse(l) as { t: number };
      sink += v.t & 1;
    }
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  if (sink < 0) throw new Error('unreachable');
  return best;
}

/** The bundled example config replayed at 1× and N×: its marginal figures (see `exampleConfig`). */
async function exampleFigures(
  configPath: string,
  dir: string,
  recording: string,
  longer: string,
  perLineMicros: number,
  log: (line: string) => void,
): Promise<Partial<MarginalFigures>> {
  const doc = parseYaml(readFileSync(resolve(REPO, configPath), 'utf8')) as Record<string, unknown>;
  const risk = (doc['risk'] ?? {}) as Record<string, unknown>;
  doc['risk'] = { ...risk, drawdownReducePct: 90, drawdownHaltPct: 95 };
  doc['log'] = { level: 'warn' };
  // Strategy files are named relative to the config: make them absolute for the copy in `dir`.
  doc['strategies'] = ((doc['strategies'] ?? []) as Record<string, unknown>[]).map((s) => ({
    ...s,
    file: resolve(REPO, String(s['file'])),
  }));
  const config = join(dir, 'example.yaml');
  writeFileSync(config, stringifyYaml(doc));
  log(`replaying both recordings with the bundled example (${configPath})`);
  const one = await replayInChild(config, recording);
  const four = await replayInChild(config, longer);
  const perPoll = ((four.cpuMs - one.cpuMs) * 1000) / Math.max(1, four.polls - one.polls);
  return {
    exampleConfig: configPath,
    exampleReplayMicrosPerPoll: round(perPoll),
    exampleMarginalRatioToBareParse: round(perLineMicros / perPoll, 4),
    exampleOrders: one.orders,
  };
}

/**
 * Replays in a fresh child process this many times; the figures are the run with the least CPU, as
 * the bare parse they are divided by is the best of its runs (`bareParseCpuMs`). On a shared machine
 * one run of the same child varies by ±30 %; the least of three is what the code costs.
 */
export const REPLAY_RUNS = 3;

async function replayInChild(config: string, recording: string): Promise<ChildResult> {
  let best: ChildResult | undefined;
  for (let i = 0; i < REPLAY_RUNS; i++) {
    const stdout = await runReplayChild('bench/replay-child.ts', [config, recording]);
    const r = JSON.parse(stdout.trim().split('\n').pop() ?? '') as ChildResult;
    if (best === undefined || r.cpuMs < best.cpuMs) best = r;
  }
  return best as ChildResult;
}

const round = (x: number, digits = 3): number => Number(x.toFixed(digits));

/** MarginalFigures' main-thread fields, when every child could tell its main thread's CPU. */
export function mainThreadFigures(
  one: ChildResult,
  four: ChildResult,
  idleOne: ChildResult,
  idleFour: ChildResult,
): Pick<MarginalFigures, 'mainThreadShare' | 'engineMicrosPerOrderMarginalMainThread'> {
  const [m1, m4, i1, i4] = [one, four, idleOne, idleFour].map((r) => r.mainThreadCpuMs);
  if (m1 === undefined || m4 === undefined || i1 === undefined || i4 === undefined) return {};
  return {
    mainThreadShare: round(m1 / one.cpuMs),
    engineMicrosPerOrderMarginalMainThread: round(
      ((m4 - m1 - (i4 - i1)) * 1000) / Math.max(1, four.orders - one.orders),
      1,
    ),
  };
}

const MiB = 1024 * 1024;

export async function benchReplay(
  recordingPath: string,
  opts: BenchReplayOptions = {},
): Promise<FlatReplayResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`bench replay: ${line}\n`));
  const factor = opts.factor ?? 4;
  const baseFactor = opts.baseFactor ?? 1;
  if (!(Number.isInteger(baseFactor) && baseFactor >= 1 && factor > baseFactor))
    throw new RangeError(`benchReplay: need 1 ≤ baseFactor < factor, got ${baseFactor} and ${factor}`);
  const dir = mkdtempSync(join(tmpdir(), 'capibot-bench-replay-'));
  try {
    const config = join(dir, 'config.yaml');
    writeFileSync(config, configText());
    let lines = pollLines(resolve(REPO, recordingPath));
    let recording = resolve(REPO, recordingPath);
    if (opts.maxPolls !== undefined && opts.maxPolls < lines.length) {
      lines = lines.slice(0, opts.maxPolls);
      recording = join(dir, 'prefix.ndjson');
      writeFileSync(recording, lines.join('\n') + '\n');
    }
    if (baseFactor > 1) {
      recording = join(dir, `x${baseFactor}.ndjson.gz`);
      await writeRepeated(lines, baseFactor, recording, 'bench/replay.ts');
    }
    const tickerObjects = lines.reduce(
      (n, l) => n + (JSON.parse(l) as { tickers: unknown[] }).tickers.length,
      0,
    );

    const strategy = await loadStrategy();
    // Timed over `baseline` (the lines repeated, for a short recording), given per `lines`.
    const baseline = baselineLines(lines);
    const perLines = (r: FloorRun): FloorRun => ({
      cpuMs: (r.cpuMs * lines.length) / baseline.length,
      tickers: Math.round((r.tickers * lines.length) / baseline.length),
      placements: Math.round((r.placements * lines.length) / baseline.length),
    });
    const parseOf = (): number => (bareParseCpuMs(baseline) * lines.length) / baseline.length;
    const floorOf = (): FloorRun => perLines(strategyFloor(baseline, strategy, PARAMS));
    const tickersOf = (): FloorRun => perLines(strategyFloor(baseline, undefined, undefined));
    log(
      `bare JSON.parse of ${lines.length} lines (timed over ${baseline.length}), and the floor (parse, tickers, strategy alone)`,
    );
    const parseBefore = parseOf();
    const floorBefore = floorOf();
    const tickersBefore = tickersOf();
    log(`replaying ${lines.length} polls (${recordingPath}) in a child process`);
    const one = await replayInChild(config, recording);
    const parseAfter = parseOf();
    const floorAfter = floorOf();
    const tickersAfter = tickersOf();
    const parseMs = Math.min(parseBefore, parseAfter);
    const floorMs = Math.min(floorBefore.cpuMs, floorAfter.cpuMs);
    log(
      `${baseFactor}×: ${one.polls} polls in ${round(one.wallMs / 1000, 1)} s wall, ${round(one.cpuMs / 1000, 1)} s CPU, peak RSS ${round(one.maxRssBytes / MiB, 1)} MiB`,
    );

    let four: ChildResult | undefined;
    let marginal: MarginalFigures | undefined;
    if (opts.memory ?? true) {
      const longer = join(dir, `x${factor}.ndjson.gz`);
      await writeRepeated(lines, factor, longer, 'bench/replay.ts');
      log(`replaying the ${factor}× recording (${lines.length * factor} polls)`);
      four = await replayInChild(config, longer);
      log(
        `${factor}×: ${four.polls} polls in ${round(four.wallMs / 1000, 1)} s wall, peak RSS ${round(four.maxRssBytes / MiB, 1)} MiB`,
      );
      const idleConfig = join(dir, 'idle.yaml');
      writeFileSync(idleConfig, configText(IDLE, IDLE_PARAMS));
      log('replaying both recordings with a strategy that never trades');
      const idleOne = await replayInChild(idleConfig, recording);
      const idleFour = await replayInChild(idleConfig, longer);
      const tickersFloorMs = Math.min(tickersBefore.cpuMs, tickersAfter.cpuMs);
      const micros = (ms: number, n: number): number => (ms * 1000) / Math.max(1, n);
      const perLine = micros(parseMs, lines.length);
      const replayPerPoll = micros(four.cpuMs - one.cpuMs, four.polls - one.polls);
      const quietPerPoll = micros(idleFour.cpuMs - idleOne.cpuMs, idleFour.polls - idleOne.polls);
      marginal = {
        bareParseMicrosPerLine: round(perLine),
        replayMicrosPerPoll: round(replayPerPoll),
        marginalRatioToBareParse: round(perLine / replayPerPoll, 4),
        quietReplayMicrosPerPoll: round(quietPerPoll),
        quietRatioToBareParse: round(perLine / quietPerPoll, 4),
        engineMicrosPerQuietPoll: round(quietPerPoll - micros(tickersFloorMs, lines.length), 2),
        gzipInflateMicrosPerLine: round(micros(await gunzipCpuMs(longer), lines.length * factor), 3),
        engineMicrosPerOrder: round(micros(one.cpuMs - idleOne.cpuMs, one.orders), 1),
        engineMicrosPerOrderMarginal: round(
          micros(four.cpuMs - one.cpuMs - (idleFour.cpuMs - idleOne.cpuMs), four.orders - one.orders),
          1,
        ),
        ...mainThreadFigures(one, four, idleOne, idleFour),
        ...(opts.exampleConfig !== undefined
          ? await exampleFigures(opts.exampleConfig, dir, recording, longer, perLine, log)
          : {}),
      };
      log(`marginal: ${JSON.stringify(marginal)}`);
    }
    const perSecond = (polls: number, ms: number): number => round((polls * 1000) / ms, 1);
    const tickersPerSecond = perSecond(one.polls, one.cpuMs);
    const bare = perSecond(lines.length, parseMs);
    return {
      recording: recordingPath,
      polls: one.polls,
      tickerObjects,
      strategy: 'sma-cross fixture (fast 10, slow 30, market orders)',
      tickersPerSecond,
      tickersPerWallSecond: perSecond(one.polls, one.wallMs),
      bareParseTickersPerSecond: bare,
      ratioToBareParse: round(tickersPerSecond / bare, 5),
      floorTickersPerSecond: perSecond(lines.length, floorMs),
      ceilingRatio: round(parseMs / floorMs, 5),
      engineMicrosPerPoll: round(((one.cpuMs - floorMs * baseFactor) * 1000) / Math.max(1, one.polls), 2),
      floorPlacements: floorAfter.placements,
      tickerCeilingRatio: round(parseMs / Math.min(tickersBefore.cpuMs, tickersAfter.cpuMs), 5),
      orders: one.orders,
      fills: one.fills,
      peakRssMiB: round(one.maxRssBytes / MiB, 1),
      peakRssMiB4x: four !== undefined ? round(four.maxRssBytes / MiB, 1) : Number.NaN,
      peakRssRatio4x: four !== undefined ? round(four.maxRssBytes / one.maxRssBytes, 3) : Number.NaN,
      polls4x: four?.polls ?? 0,
      tickersPerSecond4x: four !== undefined ? perSecond(four.polls, four.cpuMs) : 0,
      factor,
      baseFactor,
      ...(marginal !== undefined ? { marginal, ...marginal } : {}),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
