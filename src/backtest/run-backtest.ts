// The backtest driver: a recording replayed through the virtual-time session (the real engine and the
// real reconciliation pollers against the in-process simulator: src/strategy/testing/session.ts) with
// the config's settings, into a RunRecord for the report writers (runBacktest), or its facts with its
// fills and orders spooled to a temporary database (runSpooledBacktest: report/spooled-rows.ts).
//
// - Streaming with back-pressure: the next poll is pulled from the file only once the session has
//   settled the previous one (the engine is idle), so memory does not grow with the file.
// - Deterministic: virtual time only, a fixed simulator seed, samples on a virtual-time grid. Nothing
//   here reads the wall clock; the same inputs give the same RunRecord (and so the same report.json).
// - Memory stays flat: events are not kept, equity and prices are sampled into a bounded Sampler.
// - A poll costs about the same whatever symbols it carries beyond those traded: every symbol's price
//   is sampled as the recording's text (one line per sample) from the simulator's latest ticker per
//   symbol, nothing is done per ticker per poll here, and prices are decoded into exact values only
//   when the report reads them (sampled-prices.ts).
import type { Logger } from 'pino';
import type { Config } from '../config/schema.ts';
import { dec } from '../core/decimal.ts';
import { BadInputError, ConfigError, InvariantViolation } from '../core/errors.ts';
import type { RecordedPoll, RecordingMeta } from '../core/market.ts';
import { byCreation, isTerminal, type Order } from '../core/orders.ts';
import { tickerRows } from '../core/ticker-rows.ts';
import type { EngineStrategyConfig } from '../engine/engine.ts';
import { openRecording, type OpenedRecording } from '../market/recording/reader.ts';
import { parseStrategyParams, strategySymbols } from '../strategy/define.ts';
import { Session, type HarnessConfig } from '../strategy/testing/session.ts';
import { OrderCounter, type OrderCounts } from './report/order-counts.ts';
import type { SpooledRun } from './report/index.ts';
import { SpooledRows } from './report/spooled-rows.ts';
import type { DisabledStrategy, EquitySample, RunFacts, RunRecord, RunStrategy } from './report/types.ts';
import type { MemoryStore } from '../store/memory-store.ts';
import type { StoredFill } from '../store/port.ts';
import { reconcilerConfig } from '../runner/options.ts';
import { CHART_ALL_UP_TO, ChartedLatest, PriceLines, sampledPrices } from './sampled-prices.ts';
import { Sampler } from './sampler.ts';

/** Most equity samples a report keeps (a 31-day recording sampled per minute fits without thinning). */
export const DEFAULT_MAX_SAMPLES = 10_000;

/**
 * Terminal orders last updated this long before the replay's time (virtual), and their fills, are
 * retired from the store's live indexes to its spill file (MemoryStore.retire: every answer stays the
 * same). Well past every look-back of the engine (reconciliation's recent window, the order-rate
 * minute), so no round ever reads the retired rows back.
 */
export function retireAfterMs(config: Config): number {
  return Math.max(6 * 3_600_000, 4 * reconcilerConfig(config.polling).recentMs);
}

/** Polls between two retirements of old rows, at most. */
export const RETIRE_EVERY_POLLS = 1024;

/**
 * Retirements per `retireAfterMs` of replay time, at least: with sparse polls (one a minute) 1024 of
 * them span 17 hours, and the live rows would reach back that far on top of `retireAfterMs`. So they
 * reach back at most retireAfterMs × (1 + 1 / RETIRE_SLICES), or RETIRE_EVERY_POLLS polls beyond it.
 */
export const RETIRE_SLICES = 4;

/** Seed of the simulator's order and trade ids: fixed, so runs are reproducible. */
export const BACKTEST_SEED = 1;

export interface BacktestOptions {
  readonly config: Config;
  /** The recording, as given (flag or config); the report names it so. */
  readonly data: string;
  /**
   * `data` already opened (openRecording), for a caller that wraps its reading (bench/symbols-child.ts
   * times it); the run reads it and closes it. Default: opened here.
   */
  readonly recording?: OpenedRecording;
  /** The enabled strategies of the config, loaded (src/runner/strategies.ts). */
  readonly strategies: readonly EngineStrategyConfig[];
  readonly log?: Logger;
  /** Called after each batch of polls (a chunk of the file) with the number of polls replayed so far. */
  readonly onProgress?: (polls: number) => void;
  /**
   * Called after each poll, once it settled, with the session: a test reads its state there
   * (`session.footprint()`, test/engine/bounded-memory.property.test.ts). Not for changing it.
   */
  readonly observe?: (session: Session) => void;
  /** Default DEFAULT_MAX_SAMPLES. */
  readonly maxSamples?: number;
  /**
   * Virtual time allowed after the last poll for orders in flight to settle and their fills to be
   * reconciled. Default: twice the slower of polling.fillsMs and polling.historyMs.
   */
  readonly settleMs?: number;
  /** Skip reconciliation rounds that cannot find anything (SessionOptions.skipIdleRounds). Default true. */
  readonly skipIdleRounds?: boolean;
  /** Feed quiet polls without a promise (SessionOptions.quietPolls). Default true. */
  readonly quietPolls?: boolean;
  /** Charge quiet polls' reads later, in one pass (SessionOptions.fastForward). Default true. */
  readonly fastForward?: boolean;
  /**
   * Retire terminal orders (and their fills) last updated this long before the replay's time into
   * the store's spill file (MemoryStore.retire; the answers stay the same). Default `retireAfterMs(config)`;
   * Infinity retires nothing (the equivalence test compares both).
   */
  readonly retireAfterMs?: number;
  /**
   * Hand every order to the record (`RunRecord.orders`), as a strategy's tests and the parity test
   * compare them. Default false: the record gets the orders the report reads one by one (with a fill,
   * or open) and `orderCounts` over all of them, so a long run's end does not hold every order.
   */
  readonly allOrders?: boolean;
}

interface Sample {
  readonly equity: EquitySample;
  /**
   * The latest `last` of every symbol seen so far, in the order the symbols were first seen (the
   * simulator's MarketState.latest order, which only grows at its end): sampled-prices.ts.
   */
  readonly prices: string;
}

/** The config sections the session honours; the venue is always the embedded simulator here. */
export function harnessConfigOf(config: Config): HarnessConfig {
  return {
    risk: config.risk,
    paper: { ...config.paper, venue: 'embedded', source: 'live' },
    polling: config.polling,
    budget: config.budget,
    executor: config.executor,
    orders: config.orders,
  };
}

/** The symbols of each strategy (validated params, as the engine will see them). */
function symbolsByStrategy(strategies: readonly EngineStrategyConfig[]): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const s of strategies) {
    const params = parseStrategyParams(s.definition, s.id, s.params ?? {});
    out.set(s.id, strategySymbols(s.definition, s.id, params));
  }
  return out;
}

/** The symbols a recording's meta line lists, when it lists them. */
function listedSymbols(meta: RecordingMeta | undefined): string[] | undefined {
  return Array.isArray(meta?.['symbols'])
    ? (meta['symbols'] as unknown[]).filter((s): s is string => typeof s === 'string')
    : undefined;
}

/**
 * Refuses a strategy trading a symbol the recording does not hold, by its meta line's `symbols`: it
 * would never see a ticker, and the run would say nothing of it. A recording without that list (a
 * `capibot record` without --symbols) only gets a warning when the first poll lacks the symbol: a
 * later poll may hold it.
 */
function checkSymbolsRecorded(
  bySymbol: ReadonlyMap<string, readonly string[]>,
  meta: RecordingMeta | undefined,
  first: RecordedPoll,
  data: string,
  log: Logger | undefined,
): void {
  const listed = listedSymbols(meta);
  const held = new Set(listed ?? first.tickers.map((t) => t.symbol));
  for (const [id, symbols] of bySymbol) {
    const missing = symbols.filter((s) => !held.has(s));
    if (missing.length === 0) continue;
    if (listed === undefined) {
      log?.warn(
        { strategy: id, symbols: missing, firstPollHolds: [...held].sort() },
        'the first poll of the recording lacks symbols this strategy trades (the recording lists none)',
      );
      continue;
    }
    throw new ConfigError(
      `trades ${missing.join(', ')}, which the recording ${data} does not hold (it holds: ${[...held].sort().join(', ') || 'nothing'})`,
      `strategy "${id}"`,
    );
  }
}

function runStrategies(config: Config): RunStrategy[] {
  return config.strategies
    .filter((s) => s.enabled)
    .map((s) => ({ id: s.id, file: s.file, params: s.params }));
}

/**
 * Replays the recording (the whole backtest) and returns its RunRecord: every fill, and the orders
 * the report reads one by one (every order with `allOrders`), in memory. For tests, strategy
 * harnesses and the console (`capibot backtest --serve`); `capibot backtest` and a sweep's workers
 * use runSpooledBacktest, which holds none of them.
 */
export async function runBacktest(o: BacktestOptions): Promise<RunRecord> {
  return replayed(o, (facts, store) => {
    const fills = store.allFills();
    return { ...facts, ...reportedOrders(store, fills, o.allOrders === true), fills };
  });
}

/**
 * Replays the recording and spools its fills and orders into a temporary database for the report
 * (SpooledRows): a long run's end holds none of them in memory (issue #24). The caller closes
 * `rows` once the report is written.
 */
export async function runSpooledBacktest(o: BacktestOptions): Promise<SpooledRun> {
  let rows: SpooledRows | undefined;
  try {
    return await replayed(o, (facts, store) => {
      rows = SpooledRows.fromStore(store);
      return { facts, orderCounts: rows.orderCounts, rows };
    });
  } catch (e) {
    // Made, but the replay's cleanup failed after it (closing the session or the recording).
    rows?.close();
    throw e;
  }
}

/** The replay, then `finish` with the run's facts and its store, before the session closes. */
async function replayed<T>(
  o: BacktestOptions,
  finish: (facts: RunFacts, store: MemoryStore) => T,
): Promise<T> {
  const { config } = o;
  const rec = o.recording ?? (await openRecording(o.data));
  // Batches (one per chunk of the file): a quiet poll is then replayed without any promise.
  const batches = rec.batches[Symbol.asyncIterator]();
  try {
    const head = await nextBatch(batches);
    const first = head?.[0];
    if (head === undefined || first === undefined)
      throw new BadInputError('the recording holds no polls', o.data);
    const bySymbol = symbolsByStrategy(o.strategies);
    checkSymbolsRecorded(bySymbol, rec.meta, first, o.data, o.log);
    const width = listedSymbols(rec.meta)?.length ?? tickerRows(first).size;
    const session = new Session({
      strategies: o.strategies,
      startMs: first.t,
      symbols: [...new Set([...bySymbol.values()].flat())].sort(),
      config: harnessConfigOf(config),
      seed: BACKTEST_SEED,
      ...(o.log !== undefined ? { log: o.log } : {}),
      ...(o.skipIdleRounds !== undefined ? { skipIdleRounds: o.skipIdleRounds } : {}),
      ...(o.quietPolls !== undefined ? { quietPolls: o.quietPolls } : {}),
      ...(o.fastForward !== undefined ? { fastForward: o.fastForward } : {}),
    });
    try {
      return finish(await replay(o, session, head, batches, width <= CHART_ALL_UP_TO), session.store);
    } finally {
      session.close();
    }
  } finally {
    await batches.return?.();
    await rec.close();
  }
}

/** The next non-empty batch, or undefined at the end. */
async function nextBatch(
  batches: AsyncIterator<readonly RecordedPoll[]>,
): Promise<readonly RecordedPoll[] | undefined> {
  for (;;) {
    const r = await batches.next();
    if (r.done === true) return undefined;
    if (r.value.length > 0) return r.value;
  }
}

/**
 * The orders the report reads one by one (those with a fill, to name their strategy and side, and
 * those still open; every order with `all`), and the counts over all of them. The store reads its
 * retired orders back one at a time: the run's end does not hold every order of a long backtest at
 * once (issue #24).
 */
function reportedOrders(
  store: MemoryStore,
  fills: readonly StoredFill[],
  all: boolean,
): { readonly orders: Order[]; readonly orderCounts: OrderCounts } {
  const filledOids = new Set<string>();
  const filledIds = new Set<string>();
  for (const f of fills) {
    if (f.clientOid !== undefined) filledOids.add(f.clientOid);
    filledIds.add(f.orderId);
  }
  const counter = new OrderCounter();
  const orders: Order[] = [];
  store.forEachOrder((o) => {
    counter.add(o);
    const read =
      all ||
      !isTerminal(o.status) ||
      filledOids.has(o.clientOid) ||
      (o.orderId !== undefined && filledIds.has(o.orderId));
    if (read) orders.push(o);
  });
  orders.sort(byCreation); // the store's order (allOrders)
  return { orders, orderCounts: counter.counts() };
}

async function replay(
  o: BacktestOptions,
  session: Session,
  head: readonly RecordedPoll[],
  batches: AsyncIterator<readonly RecordedPoll[]>,
  chartAll: boolean,
): Promise<RunFacts> {
  const { config } = o;
  const sampler = new Sampler<Sample>(config.backtest.equitySampleMs, o.maxSamples ?? DEFAULT_MAX_SAMPLES);
  /** Every symbol's first and latest ticker, in the order first seen (every poll goes to the simulator). */
  const latest = session.sim.core.market.latest();
  /** The symbols the report charts: all of a narrow recording, else those the strategies trade. */
  const traded = new Set<string>(session.engine.strategies.flatMap((st) => st.symbols));
  const charted = new ChartedLatest(latest, (symbol) => chartAll || traded.has(symbol));
  const lines = new PriceLines();
  const sample = (t: number): void => {
    const pnl = session.engine.pnl();
    sampler.add(t, {
      equity: {
        t,
        equity: session.startingEquity.plus(pnl.net),
        realized: pnl.realized,
        unrealized: pnl.unrealized,
      },
      prices: lines.line(charted.list()),
    });
  };

  const disabled: DisabledStrategy[] = [];
  /** The session keeps every event for the test harness; a backtest reads the store instead, so the
   *  list is emptied after each poll (memory stays flat), keeping only the strategies disabled. */
  const takeEvents = (): void => {
    const events = session.events;
    if (events.length === 0) return;
    for (const e of events) {
      if (e.kind === 'StrategyDisabled') disabled.push({ strategy: e.strategy, at: e.at, reason: e.reason });
    }
    events.length = 0;
  };
  // Memory stays flat in the run's length: old rows retire from the store to its spill file, every
  // RETIRE_EVERY_POLLS polls or retireAfter / RETIRE_SLICES of replay time, whichever comes first.
  const retireAfter = o.retireAfterMs ?? retireAfterMs(config);
  const retiring = Number.isFinite(retireAfter);
  let nextRetire = 0;
  let nextRetireAt = Number.NEGATIVE_INFINITY;
  for (let batch: readonly RecordedPoll[] | undefined = head; batch !== undefined;) {
    // The batch is this replay's own array (the reader makes one per chunk): each poll is let go once
    // fed, so the ticker objects made for it die young instead of living, and being promoted to the
    // old generation, as long as the rest of its batch.
    const polls = batch as (RecordedPoll | undefined)[];
    for (let i = 0; i < polls.length; i++) {
      const poll = polls[i] as RecordedPoll;
      polls[i] = undefined;
      // A quiet poll is replayed synchronously (feedNow returns nothing to wait for).
      const pending = session.feedNow(poll);
      if (pending !== undefined) await pending;
      takeEvents();
      if (sampler.due(poll.t)) sample(poll.t);
      if (retiring && (session.polls >= nextRetire || poll.t >= nextRetireAt)) {
        nextRetire = session.polls + RETIRE_EVERY_POLLS;
        nextRetireAt = poll.t + retireAfter / RETIRE_SLICES;
        session.store.retire(session.vt.now() - retireAfter);
      }
      o.observe?.(session);
    }
    o.onProgress?.(session.polls);
    batch = await nextBatch(batches);
  }
  const p = config.polling;
  await session.idleFor(o.settleMs ?? 2 * Math.max(p.fillsMs, p.historyMs));
  takeEvents();
  sample(session.vt.now());

  if (session.firstPollT === undefined || session.lastPollT === undefined)
    throw new InvariantViolation('backtest: no poll was replayed');
  const samples = sampler.samples();
  const prices = sampledPrices(
    charted.list().map((l) => l.symbol),
    samples.map(({ t, item }) => ({ t, line: item.prices })),
  );
  const stats = session.sim.stats();
  return {
    run: {
      strategies: runStrategies(config),
      data: o.data,
      symbols: [...new Set(session.engine.strategies.flatMap((st) => st.symbols))].sort(),
      firstTickTime: session.firstPollT,
      lastTickTime: session.lastPollT,
      tickers: session.polls,
    },
    equity: samples.map((s) => s.item.equity),
    prices,
    requestsByEndpoint: stats.requests.byEndpoint,
    weightUsed: stats.weightUsed,
    rejectionsByReason: session.engine.metrics().rejectionsByReason,
    responses429: stats.responses429,
    strategiesDisabled: disabled,
    startingBalance: session.startingEquity,
    tickSizes: Object.fromEntries([...session.specs].map(([symbol, spec]) => [symbol, spec.priceTick])),
    priceRanges: Object.fromEntries(
      latest.map(({ symbol, firstLast, last }) => [symbol, { first: dec(firstLast), last: dec(last) }]),
    ),
  };
}
