// Issue #24, "the engine keeps what it needs, no more": 100 k orders and more through the real
// backtest (runBacktest: the engine with its risk gate, executor and portfolio, the reconciliation
// pollers, the memory store and the in-process simulator, on virtual time), with an order-heavy
// strategy that places, cancels, fills and closes on every ticker (test/helpers/churn-strategy.ts).
// The same engine, executor and reconciler run live and paper; only the store and the venue differ.
//
// Every long-lived collection is sampled (Session.footprint, src/core/footprint.ts) and must stay
//   - within the open orders plus the fixed window of its part (engine, store, simulator), each
//     window named below from the constants of the code it comes from, and
//   - flat: its largest size in the run's last quarter at most a tenth of its window (plus, in the
//     simulator, one compaction's worth) above its largest size in the first quarter.
// The run's record (RECORD) is the only part that grows with the orders, and by design.
//
// One run by default (25–40 s: the order count is the point). More: CAPIBOT_BOUNDED_RUNS=<n>; one
// seed again: CAPIBOT_BOUNDED_SEED=<seed>. TESTING.md, "Bounded memory".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  RETIRE_EVERY_POLLS,
  RETIRE_SLICES,
  retireAfterMs,
  runBacktest,
} from '../../src/backtest/run-backtest.ts';
import { parseConfigText } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { VENUE_LIMITS } from '../../src/core/endpoints.ts';
import type { Footprint } from '../../src/core/footprint.ts';
import { COMPACT_MIN_DEAD } from '../../src/core/sliding-window.ts';
import { SIM_COMPACT_MIN_DEAD } from '../../src/exchange/sim/compaction.ts';
import { HISTORY_PAGE_MAX } from '../../src/exchange/sim/retention.ts';
import { simRetentionMs } from '../../src/runner/options.ts';
import { DEFER_PASS } from '../../src/strategy/testing/session.ts';
import churn, { type ChurnParams } from '../helpers/churn-strategy.ts';
import {
  extraSymbols,
  WALK_BTC,
  WALK_ETH,
  writeRandomWalk,
  type WalkSymbol,
} from '../helpers/random-walk-recording.ts';

/** Orders each run drives through the engine, at least. */
const ORDERS = 100_000;
/** One poll a minute, as the bundled month: a run spans 2 to 12 days of virtual time. */
const STEP_MS = 60_000;
const START_MS = 1_700_000_000_000;
/** Footprints read per run, about (every polls / SAMPLES polls). */
const SAMPLES = 256;
/** How far the last quarter's largest size may rise above the first quarter's: a share of the window. */
const TREND_SLACK = 0.1;

/**
 * The engine's own window, whatever the orders: the weight budget's log holds the requests of the
 * last window (each weighs ≥ 1 of the IP pool) and its backing store at most as many dead ones or
 * COMPACT_MIN_DEAD (src/core/sliding-window.ts); the session defers at most DEFER_PASS reads. The
 * cancels, the closes in transit, the attachments, the executor's queues and the reconciler's
 * per-loop state come well within it.
 */
const ENGINE_WINDOW = Math.max(2 * VENUE_LIMITS.ipWeightPerWindow + COMPACT_MIN_DEAD + 1, DEFER_PASS);

/** The run's record: kept for the report and the store's answers, growing with the orders by design. */
const RECORD: Readonly<Record<string, { readonly why: string; readonly perOrder: number }>> = {
  'store.cold.retiredOrders': { why: 'retired orders: lines of the spill file, on disk', perOrder: 1 },
  'store.cold.retiredFills': { why: 'retired fills: lines of the spill file, on disk', perOrder: 1 },
  'store.cold.idSlots': {
    // Three compact sets (client, exchange and trade ids), each growing its typed arrays by 1.5×.
    why: "the retired rows' ids, 4 bytes each (src/store/compact-id-set.ts)",
    perOrder: 3 * 1.5,
  },
  'store.plans': {
    why: 'every plan order seen, by id: a plan round compares each row it reads with it (planOrderStatus)',
    perOrder: 1,
  },
};

interface Scenario {
  readonly traded: readonly WalkSymbol[];
  readonly extra: number;
  readonly params: Omit<ChurnParams, 'symbols'>;
  readonly volTicks: number;
  readonly seed: number;
}

/** Orders a ticker makes at most: quotes, far, the taker, a close per leg, and its stop-loss. */
function mostPerTicker(p: Scenario['params']): number {
  return p.quotes + p.far + (p.take ? 1 : 0) + 2 + (p.protectEvery > 0 ? 1 : 0);
}

/** Orders a ticker makes whatever the market does (closes come only after fills). */
function leastPerTicker(p: Scenario['params']): number {
  return p.quotes + p.far + (p.take ? 1 : 0);
}

const scenarios: fc.Arbitrary<Scenario> = fc.record({
  traded: fc.constantFrom([WALK_BTC], [WALK_ETH], [WALK_BTC, WALK_ETH]),
  extra: fc.integer({ min: 0, max: 6 }),
  params: fc.record({
    // Resting quotes, each canceled by the strategy (or filled) after `restTicks` tickers.
    quotes: fc.integer({ min: 1, max: 4 }),
    restTicks: fc.integer({ min: 1, max: 3 }),
    quoteGap: fc.integer({ min: 1, max: 60 }),
    // Enough orders a ticker that 100 k take few polls (a poll costs time of its own).
    far: fc.integer({ min: 4, max: 14 }),
    // A marketable open every ticker: fills, positions and closes in every run.
    take: fc.constant(true),
    protectEvery: fc.constantFrom(0, 0, 5, 9),
  }),
  volTicks: fc.integer({ min: 5, max: 80 }),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
});

interface Window {
  /** Most entries beyond the open orders. */
  readonly bound: number;
  /** Most growth from the first quarter's largest size to the last quarter's. */
  readonly slack: number;
}

/** The window a collection is held to, by the part it belongs to (`store.*`, `sim.*`, the rest). */
function windowsOf(s: Scenario, config: Config): (name: string) => Window {
  const symbols = s.traded.length;
  const perPoll = symbols * mostPerTicker(s.params);
  // The store retires the terminal rows last updated retireAfterMs ago, every RETIRE_EVERY_POLLS
  // polls or retireAfterMs / RETIRE_SLICES: it holds the orders that ended since, which were placed
  // at most `restTicks` polls before they ended (a stop-loss: until the next poll closes its leg).
  const retireAfter = retireAfterMs(config);
  const cadence = Math.min(RETIRE_EVERY_POLLS, Math.ceil(retireAfter / RETIRE_SLICES / STEP_MS));
  const store = perPoll * (cadence + Math.ceil(retireAfter / STEP_MS) + s.params.restTicks + 2);
  // The simulator forgets a terminal order once it ended, and HISTORY_PAGE_MAX later orders of its
  // symbol were created, more than its retention ago (a queue waits at an order not buried yet);
  // its weight windows hold the requests of the last window. Its backing arrays hold as many dead
  // entries again, or SIM_COMPACT_MIN_DEAD: a rare kind (plans) reaches that top late in a run.
  const simLive = Math.max(
    perPoll * (Math.ceil(simRetentionMs(config.polling) / STEP_MS) + 1) + 2 * HISTORY_PAGE_MAX * symbols,
    VENUE_LIMITS.ipWeightPerWindow,
  );
  const sim = 2 * simLive + SIM_COMPACT_MIN_DEAD + 1;
  return (name) =>
    name.startsWith('store.')
      ? { bound: store, slack: TREND_SLACK * store }
      : name.startsWith('sim.')
        ? { bound: sim, slack: TREND_SLACK * sim + SIM_COMPACT_MIN_DEAD }
        : { bound: ENGINE_WINDOW, slack: TREND_SLACK * ENGINE_WINDOW };
}

function configOf(s: Scenario): { config: Config; params: ChurnParams } {
  const params: ChurnParams = { symbols: s.traded.map((t) => t.symbol), ...s.params };
  const text = [
    'mode: paper',
    'strategies:',
    '  - id: churn',
    '    file: churn.ts',
    `    params: ${JSON.stringify(params)}`,
    // A ticker's new orders count as open until they are sent: with resting quotes of two symbols
    // they pass the default 50, and refusals would leave the run short of its orders.
    'risk:',
    '  maxOpenOrders: 200',
    'log:',
    '  level: silent',
    '',
  ].join('\n');
  return { config: parseConfigText(text, 'bounded-memory.yaml', {}), params };
}

interface Sample {
  readonly polls: number;
  readonly open: number;
  readonly fp: Footprint;
}

/**
 * The open orders, as the least of three counts kept apart: the engine's, the store's and the
 * venue's (active orders and armed plans). A leak in one of them cannot raise its own bound.
 */
function openOrders(fp: Footprint): number {
  const at = (name: string): number => fp[name] ?? 0;
  return Math.min(
    at('engine.open.orders'),
    at('store.open'),
    at('sim.core.active') + at('sim.core.plans.armed'),
  );
}

/** The collections of a sample over their bound. Empty when all is well. */
function overBounds(x: Sample, windowOf: (name: string) => Window): string[] {
  const out: string[] = [];
  for (const [name, n] of Object.entries(x.fp)) {
    const { bound } = windowOf(name);
    if (!(name in RECORD) && n > x.open + bound)
      out.push(`${name} = ${n} at poll ${x.polls}: over ${x.open} open + ${bound}`);
  }
  return out;
}

/** The collections that grew from the first quarter of the samples to the last. */
function growth(samples: readonly Sample[], windowOf: (name: string) => Window): string[] {
  const out: string[] = [];
  const quarter = Math.floor(samples.length / 4);
  for (const name of Object.keys(samples[0]?.fp ?? {})) {
    if (name in RECORD) continue;
    const w = windowOf(name);
    const sizes = samples.map((x) => x.fp[name] ?? 0);
    const first = Math.max(...sizes.slice(0, quarter));
    const last = Math.max(...sizes.slice(-quarter));
    if (last > first + w.slack)
      out.push(`${name} grows: at most ${first} in the first quarter, ${last} in the last`);
  }
  return out;
}

async function run(s: Scenario): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'capibot-bounded-'));
  try {
    const data = join(dir, 'walk.ndjson');
    const polls = Math.ceil((1.02 * ORDERS) / (s.traded.length * leastPerTicker(s.params)));
    writeRandomWalk(data, {
      symbols: [...s.traded, ...extraSymbols(s.extra)],
      polls,
      startMs: START_MS,
      stepMs: STEP_MS,
      volTicks: s.volTicks,
      seed: s.seed,
    });
    const { config, params } = configOf(s);
    const windowOf = windowsOf(s, config);
    const samples: Sample[] = [];
    const every = Math.max(1, Math.floor(polls / SAMPLES));
    const record = await runBacktest({
      config,
      data,
      strategies: [{ id: 'churn', definition: churn, params }],
      // Every order at the end, to check what went through (the run's own footprints come before).
      allOrders: true,
      observe: (session) => {
        if (session.polls % every !== 0) return;
        const fp = session.footprint();
        const sample = { polls: session.polls, open: openOrders(fp), fp };
        samples.push(sample);
        // Stops the run at the first size over its bound: a leak also slows everything that walks
        // the leaking collection, and the run would take minutes to end.
        const over = overBounds(sample, windowOf);
        if (over.length > 0) throw new Error(`over the bound:\n${over.join('\n')}`);
      },
    });
    // What went through: 100 k orders, canceled (by the strategy or the venue), filled, closed.
    const orders = record.orders.length;
    expect(orders).toBeGreaterThanOrEqual(ORDERS);
    expect(record.fills.length).toBeGreaterThan(orders / 20);
    expect(record.orders.filter((o) => o.status === 'canceled').length).toBeGreaterThan(orders / 4);
    expect(record.orders.some((o) => o.side === 'close_long')).toBe(true);
    if (s.params.protectEvery > 0) expect(record.orders.some((o) => o.tag === 'stop-loss')).toBe(true);
    expect(samples.length).toBeGreaterThanOrEqual(SAMPLES);
    // The record grows with the orders and no faster; everything else stays within its window.
    const end = samples[samples.length - 1]?.fp ?? {};
    for (const [name, r] of Object.entries(RECORD))
      expect(end[name] ?? 0, name).toBeLessThanOrEqual(Math.ceil(r.perOrder * orders));
    expect(growth(samples, windowOf)).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SEED = process.env['CAPIBOT_BOUNDED_SEED'];
const RUNS = Number(process.env['CAPIBOT_BOUNDED_RUNS'] ?? 1);
describe('bounded memory (issue #24)', () => {
  it(
    '100 k orders through the engine: every collection within the open orders plus a window, and flat',
    async () => {
      await fc.assert(fc.asyncProperty(scenarios, run), {
        numRuns: RUNS,
        endOnFailure: true,
        ...(SEED !== undefined ? { seed: Number(SEED) } : {}),
      });
    },
    60_000 + RUNS * 120_000,
  );
});
