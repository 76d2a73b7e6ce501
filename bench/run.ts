// `npm run bench [-- --only replay,orders,reader,executor,money,symbols,sweepQueue,sharedBudget,parquet]
// [--quick]`: runs the benchmarks one after the other in this process and prints bench/results.json's
// object on stdout (progress goes to stderr).
//
// A full run writes bench/results.json (committed: the reference figures BENCHMARKS.md quotes) and
// regenerates the table of BENCHMARKS.md between its markers. A partial or quick run writes
// bench/results.local.json (git-ignored) and leaves BENCHMARKS.md alone.
//
// A benchmark that fails or is missing is reported as null, with the reason under `errors`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as prettier from 'prettier';
import { benchExecutor, type ExecutorBenchOptions } from './executor.ts';
import { renderTable, replaceBetweenMarkers } from './format.ts';
import { describeMachine } from './machine.ts';
import { benchMoney } from './money.ts';
import { benchOrders } from './orders.ts';
import { benchParquet } from './parquet.ts';
import { benchReader } from './reader.ts';
import { benchSharedBudget } from './shared-budget.ts';
import { benchSweepQueue } from './sweep-queue.ts';
import { benchSymbols, QUICK_SYMBOLS } from './symbols.ts';
import {
  replaySummarySchema,
  SECTIONS,
  type BenchResults,
  type ReplaySummary,
  type Section,
} from './results.ts';

/** The 31-day recording, one poll per minute: read by the reader and replayed through the engine. */
const RECORDING = 'data/ftx-btc-perp-202201-1m.ndjson.gz';
/** The bundled ticker recording: one poll a second of two symbols. */
const TICKS_RECORDING = 'data/binance-btc-eth-20240719-1s.ndjson.gz';
const RESULTS = 'bench/results.json';
const LOCAL_RESULTS = 'bench/results.local.json';
const DOC = 'BENCHMARKS.md';

const QUICK_EXECUTOR: ExecutorBenchOptions = {
  saturation: { seconds: 30, warmupSeconds: 10, perTick: 150 },
  latency: { warmupTicks: 100, sampleTicks: 300, rounds: 2 },
};

/** `--quick` orders section: the first polls of the month (about 2.8 days) instead of 43,592. */
const QUICK_ORDERS_POLLS = 4_000;

function log(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** bench/replay.ts is written separately; its result is checked rather than trusted. */
async function runReplay(quick: boolean): Promise<ReplaySummary> {
  const url = new URL('./replay.ts', import.meta.url);
  if (!existsSync(fileURLToPath(url))) throw new Error('bench/replay.ts is missing');
  const mod = (await import(url.href)) as { benchReplay?: unknown };
  if (typeof mod.benchReplay !== 'function')
    throw new Error('bench/replay.ts exports no benchReplay function');
  const run = mod.benchReplay as (path: string, opts: object) => Promise<unknown>;
  const r = replaySummarySchema.safeParse(
    await run(RECORDING, { ...(quick ? { maxPolls: 10_000 } : {}), exampleConfig: 'config/month.yaml' }),
  );
  if (!r.success) throw new Error(`benchReplay returned an unexpected shape: ${r.error.message}`);
  // The bundled ticker recording (1-second polls of two symbols, 5 minutes, 300 polls): too short to
  // replay alone, so its marginal rate is taken between 32× and 256× time-shifted copies. (Between 1×
  // and 32×, as until 2026-11-27, the 32× replay also carried the engine's warm-up, a third of a
  // second of V8 optimizing the hot code, which the 1× replay, over in 0.1 s, had not finished:
  // BENCHMARKS.md.)
  const t = replaySummarySchema.safeParse(
    await run(TICKS_RECORDING, {
      baseFactor: quick ? 4 : 32,
      factor: quick ? 16 : 256,
      exampleConfig: 'config/example.yaml',
    }),
  );
  if (!t.success) throw new Error(`benchReplay returned an unexpected shape: ${t.error.message}`);
  return {
    ...r.data,
    ticks1s: t.data,
    ticksMarginalRatioToBareParse: t.data['marginalRatioToBareParse'],
    ticksEngineMicrosPerQuietPoll: t.data['engineMicrosPerQuietPoll'],
    ticksExampleMarginalRatioToBareParse: t.data['exampleMarginalRatioToBareParse'],
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, quick: { type: 'boolean', default: false } },
    allowPositionals: false,
  });
  const only = values.only?.split(',').map((s) => s.trim()) ?? [...SECTIONS];
  for (const s of only) {
    if (!(SECTIONS as readonly string[]).includes(s))
      throw new Error(`--only: unknown benchmark ${s} (${SECTIONS.join(', ')})`);
  }
  const quick = values.quick === true;
  const partial = quick || only.length < SECTIONS.length;

  const date = new Date().toISOString();
  const machine = describeMachine();
  const errors: Partial<Record<Section, string>> = {};
  const durations: Partial<Record<Section, number>> = {};
  const results: { -readonly [K in Section]: Exclude<BenchResults[K], undefined> } = {
    replay: null,
    orders: null,
    reader: null,
    executor: null,
    money: null,
    symbols: null,
    sweepQueue: null,
    sharedBudget: null,
    parquet: null,
  };
  const jobs: Record<Section, () => Promise<void>> = {
    // Replay first: it measures peak memory, best on a fresh process.
    replay: async () => {
      results.replay = await runReplay(quick);
    },
    orders: async () => {
      results.orders = await benchOrders(RECORDING, quick ? { maxPolls: QUICK_ORDERS_POLLS } : {});
    },
    reader: async () => {
      results.reader = await benchReader(RECORDING, quick ? 2 : 9);
    },
    executor: async () => {
      results.executor = await benchExecutor(quick ? QUICK_EXECUTOR : {});
    },
    money: () => {
      results.money = benchMoney(quick ? 50_000 : 200_000);
      return Promise.resolve();
    },
    symbols: async () => {
      results.symbols = await benchSymbols(quick ? QUICK_SYMBOLS : {});
    },
    sweepQueue: async () => {
      results.sweepQueue = await benchSweepQueue();
    },
    sharedBudget: async () => {
      results.sharedBudget = await benchSharedBudget(quick ? { measureMs: 2_500 } : {});
    },
    parquet: async () => {
      results.parquet = await benchParquet(RECORDING, TICKS_RECORDING, { quick });
    },
  };
  for (const s of SECTIONS) {
    if (!only.includes(s)) {
      errors[s] = 'not run (--only)';
      continue;
    }
    log(`${s}…`);
    const t0 = performance.now();
    try {
      await jobs[s]();
    } catch (e) {
      errors[s] = message(e);
      log(`${s} failed: ${errors[s]}`);
    }
    durations[s] = Math.round((performance.now() - t0) / 100) / 10;
    log(`${s} done in ${durations[s]} s`);
  }

  const out: BenchResults = { date, machine, ...results, errors, durations };
  const json = `${JSON.stringify(out, null, 2)}\n`;
  if (partial) {
    writeFileSync(LOCAL_RESULTS, json);
    log(`partial run: wrote ${LOCAL_RESULTS}; ${RESULTS} and ${DOC} left as they were`);
  } else {
    writeFileSync(RESULTS, json);
    // Through Prettier, so that `npm run format:check` stays clean after a run.
    const doc = replaceBetweenMarkers(readFileSync(DOC, 'utf8'), renderTable(out));
    const options = (await prettier.resolveConfig(DOC)) ?? {};
    writeFileSync(DOC, await prettier.format(doc, { ...options, filepath: DOC }));
    log(`wrote ${RESULTS} and the table of ${DOC}`);
  }
  process.stdout.write(json);
}

await main();
