// Tick-to-request latency, in wall time: from the moment a tickers reply (the parsed wire objects) is
// handed over — their mapping to core types included — to the moment the executor calls the port's
// placeBatch. In between: the strategy host and the strategy, the risk gate, the write-ahead store
// (each order inserted as `created`, then marked `submitted`), the planner and the budget. No budget
// contention: one batch of a few orders per second against a budget of 90 batches per 10 s.
//
// Wall time on a shared machine includes the moments the process waits for a core, so the ticks are
// sampled in several rounds and the round with the lowest p99 is reported (as the reader benchmark
// keeps its best run); every round's figures stay in the result, with those of the ticks during
// which the process was not preempted at all.
import { performance } from 'node:perf_hooks';
import { tickerFromWire } from '../src/exchange/weex/mappers.ts';
import { EXECUTOR_RECORDING, loadPolls, pollAt } from './executor-market.ts';
import { createRig, reportFinishedOrders } from './executor-rig.ts';
import { MeteredPort } from './metered-port.ts';
import { quoter } from './quoter.ts';
import { mean, percentile, round } from './stats.ts';

export interface LatencyOptions {
  readonly recording?: string;
  /** Ticks run before sampling (JIT warm-up). Default 300. */
  readonly warmupTicks?: number;
  /** Ticks sampled per round. Default 1000. */
  readonly sampleTicks?: number;
  /** Rounds of sampling (the one with the lowest p99 is reported). Default 3. */
  readonly rounds?: number;
  /** Placements per tick, one symbol (they leave as one batchOrders call). Default 5. */
  readonly ordersPerTick?: number;
}

export interface LatencyFigures {
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
  readonly samples: number;
}

export interface LatencyResult extends LatencyFigures {
  /** Every round, in the order run; the figures above are those of the round with the lowest p99. */
  readonly rounds: readonly LatencyFigures[];
  /**
   * Every round's ticks during which no thread of the process was preempted (no involuntary context
   * switch), pooled; `share` of all ticks. A diagnostic of what the busy machine adds: longer ticks
   * are likelier to be preempted, so these figures lean low.
   */
  readonly notPreempted: LatencyFigures & { readonly share: number };
  /** Sampled ticks after which no placement request left (0 expected). */
  readonly missed: number;
  readonly ordersPerTick: number;
  /** The store of the run: SQLite in memory (a file store adds an fsync per write-ahead commit). */
  readonly store: 'sqlite-memory';
}

/**
 * Notes the wall time from `start()` to the first placement request since, and whether the process
 * was preempted meanwhile (an involuntary context switch of any of its threads).
 */
class RequestTimer {
  #since: number | undefined;
  #switches = 0;
  #result: Sample | undefined;

  start(): void {
    this.#result = undefined;
    this.#switches = process.resourceUsage().involuntaryContextSwitches;
    this.#since = performance.now();
  }

  /** The hook of MeteredPort: a placement request is leaving now. */
  readonly stop = (): void => {
    if (this.#since === undefined) return;
    const ms = performance.now() - this.#since;
    const preempted = process.resourceUsage().involuntaryContextSwitches > this.#switches;
    this.#result = { ms, preempted };
    this.#since = undefined;
  };

  /** The measurement since `start()`, or undefined when no placement request left. */
  take(): Sample | undefined {
    const r = this.#result;
    this.#result = undefined;
    this.#since = undefined;
    return r;
  }
}

interface Sample {
  readonly ms: number;
  readonly preempted: boolean;
}

function figures(samples: readonly number[]): LatencyFigures {
  const r = (x: number): number => round(x, 4);
  return {
    p50Ms: r(percentile(samples, 0.5)),
    p90Ms: r(percentile(samples, 0.9)),
    p99Ms: r(percentile(samples, 0.99)),
    maxMs: r(percentile(samples, 1)),
    meanMs: r(mean(samples)),
    samples: samples.length,
  };
}

export async function benchTickLatency(o: LatencyOptions = {}): Promise<LatencyResult> {
  const warmupTicks = o.warmupTicks ?? 300;
  const sampleTicks = o.sampleTicks ?? 1_000;
  const roundCount = o.rounds ?? 3;
  const ordersPerTick = o.ordersPerTick ?? 5;
  if (!(roundCount >= 1 && sampleTicks >= 1)) throw new RangeError('rounds and sampleTicks must be ≥ 1');
  const polls = await loadPolls(o.recording ?? EXECUTOR_RECORDING);
  const symbol = polls[0]?.tickers[0]?.symbol;
  if (symbol === undefined) throw new Error('the recording has no ticker');
  const startMs = polls[0]?.t ?? 0;
  const timer = new RequestTimer();
  const rig = await createRig({
    startMs: startMs - 1_000,
    strategy: { id: 'lat', definition: quoter, params: { symbols: [symbol], perTick: ordersPerTick } },
    port: (sim, clock) => {
      const port = new MeteredPort(sim, clock);
      port.onPlacement = timer.stop;
      return port;
    },
  });
  const rounds: Sample[][] = Array.from({ length: roundCount }, () => []);
  let missed = 0;
  try {
    rig.engine.start();
    for (let i = 0; i < warmupTicks + roundCount * sampleTicks; i++) {
      const poll = pollAt(polls, i, startMs);
      await rig.vt.advanceTo(poll.t, () => rig.engine.idle());
      rig.sim.applyTickers(poll.t, poll.tickers);
      timer.start();
      rig.engine.onTick(poll.tickers.map(tickerFromWire));
      await rig.engine.idle();
      const sample = timer.take();
      if (i >= warmupTicks) {
        if (sample === undefined) missed++;
        else rounds[Math.floor((i - warmupTicks) / sampleTicks)]?.push(sample);
      }
      reportFinishedOrders(rig);
      await rig.engine.idle();
    }
  } finally {
    rig.close();
  }
  const perRound = rounds.map((r) => figures(r.map((x) => x.ms)));
  let best = perRound[0];
  for (const f of perRound) if (best === undefined || f.p99Ms < best.p99Ms) best = f;
  if (best === undefined) throw new Error('unreachable: no round');
  const all = rounds.flat();
  const calm = all.filter((x) => !x.preempted).map((x) => x.ms);
  return {
    ...best,
    rounds: perRound,
    notPreempted: { ...figures(calm), share: round(all.length > 0 ? calm.length / all.length : 0, 3) },
    missed,
    ordersPerTick,
    store: 'sqlite-memory',
  };
}
