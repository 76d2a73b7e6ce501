// Saturation: a flood of intents far beyond the weight budget, through the real engine and executor,
// against the simulator, over a stretch of virtual time. Measures how much of the effective budget
// (the venue's limit × the safety margin) the executor manages to spend, how full its batches are,
// and whether the simulator — the referee, which enforces the venue's limits — ever answered 429.
import { performance } from 'node:perf_hooks';
import { ENDPOINTS } from '../src/core/endpoints.ts';
import { DEFAULT_BUDGET_CONFIG, effectiveLimits } from '../src/execution/budget.ts';
import { tickerFromWire } from '../src/exchange/weex/mappers.ts';
import { EXECUTOR_RECORDING, loadPolls, pollAt } from './executor-market.ts';
import { createRig, reportFinishedOrders } from './executor-rig.ts';
import { MeteredPort, type SentRequest } from './metered-port.ts';
import { quoter } from './quoter.ts';
import { round } from './stats.ts';
import { peakWindowFill, windowUtilisation, type Charge } from './window-fill.ts';

export interface SaturationOptions {
  /** Recording with one poll per second (cycled if shorter than the run). */
  readonly recording?: string;
  /** Virtual seconds of flood, one poll each. Default 80. */
  readonly seconds?: number;
  /** Virtual seconds before measuring (the first window starts empty). Default 20. */
  readonly warmupSeconds?: number;
  /** Placements per symbol per poll (two symbols). Default 200: 400/s against a budget of 180/s. */
  readonly perTick?: number;
}

export type Pool = 'ip' | 'uid';

export interface SaturationResult {
  /** Time-averaged fill of the binding pool's rolling window ÷ the effective budget (window-fill.ts). */
  readonly budgetUtilisation: number;
  /** The pool that holds placements back (UID for batchOrders: 10 UID against 5 IP). */
  readonly bindingPool: Pool;
  readonly utilisationByPool: Readonly<Record<Pool, number>>;
  /** Highest fill of each pool's rolling window at any instant, over the whole run (≤ 1 expected). */
  readonly peakWindowFill: Readonly<Record<Pool, number>>;
  /** Effective budget per window (venue limit × safety margin) and the venue's window. */
  readonly effectiveBudget: { readonly ip: number; readonly uid: number; readonly windowMs: number };
  /** Best possible utilisation: the budget counts each window `guardMs` longer than the venue does. */
  readonly utilisationCeiling: number;
  /** Every 429 the simulator answered during the whole run. */
  readonly responses429: number;
  /** Mean entries per batchOrders call over the whole run. */
  readonly meanOrdersPerBatch: number;
  readonly batchCalls: number;
  readonly singleCalls: number;
  readonly intents: number;
  readonly ordersSent: number;
  /** Placements replaced while queued by a newer quote of the same level (the flood's excess). */
  readonly superseded: number;
  readonly measuredVirtualSeconds: number;
  readonly placementsOfferedPerSecond: number;
  readonly wallSeconds: number;
}

function charges(sent: readonly SentRequest[], pool: Pool): Charge[] {
  return sent
    .map((r) => ({
      t: r.t,
      weight: pool === 'ip' ? ENDPOINTS[r.endpoint].ipWeight : ENDPOINTS[r.endpoint].uidWeight,
    }))
    .sort((a, b) => a.t - b.t);
}

export async function benchSaturation(o: SaturationOptions = {}): Promise<SaturationResult> {
  const seconds = o.seconds ?? 80;
  const warmup = o.warmupSeconds ?? 20;
  const perTick = o.perTick ?? 200;
  if (!(warmup >= 0 && warmup < seconds)) throw new RangeError('warmupSeconds must lie in [0, seconds)');
  const polls = await loadPolls(o.recording ?? EXECUTOR_RECORDING, seconds);
  const symbols = [...new Set(polls[0]?.tickers.map((t) => t.symbol) ?? [])];
  const startMs = polls[0]?.t ?? 0;
  let metered: MeteredPort | undefined;
  const rig = await createRig({
    startMs: startMs - 1_000,
    strategy: { id: 'flood', definition: quoter, params: { symbols, perTick } },
    // Supersede bounds the backlog: of the quotes still queued for a level, only the newest leaves.
    executor: { supersede: true },
    port: (sim, clock) => (metered = new MeteredPort(sim, clock)),
  });
  if (metered === undefined) throw new Error('unreachable: the rig did not build the port');
  const port = metered;
  const wall0 = performance.now();
  try {
    rig.engine.start();
    for (let i = 0; i < seconds; i++) {
      const poll = pollAt(polls, i, startMs);
      await rig.vt.advanceTo(poll.t, () => rig.engine.idle());
      rig.sim.applyTickers(poll.t, poll.tickers);
      rig.engine.onTick(poll.tickers.map(tickerFromWire));
      await rig.engine.idle();
      reportFinishedOrders(rig);
      await rig.engine.idle();
    }
    const t0 = startMs + warmup * 1_000;
    const t1 = startMs + seconds * 1_000;
    await rig.vt.advanceTo(t1, () => rig.engine.idle());
    const stats = rig.sim.stats();
    const m = rig.engine.metrics();
    const em = rig.engine.executor.metrics();

    const budget = DEFAULT_BUDGET_CONFIG;
    const eff = effectiveLimits(budget);
    const limit = { ip: eff.ip, uid: eff.uid };
    const pools: Pool[] = ['ip', 'uid'];
    const util = {} as Record<Pool, number>;
    const peak = {} as Record<Pool, number>;
    for (const pool of pools) {
      const c = charges(port.sent, pool);
      util[pool] = windowUtilisation(c, t0, t1, budget.windowMs, limit[pool]);
      peak[pool] = peakWindowFill(c, budget.windowMs, limit[pool]);
    }
    const bindingPool: Pool = util.uid >= util.ip ? 'uid' : 'ip';
    return {
      budgetUtilisation: round(util[bindingPool]),
      bindingPool,
      utilisationByPool: { ip: round(util.ip), uid: round(util.uid) },
      peakWindowFill: { ip: round(peak.ip), uid: round(peak.uid) },
      effectiveBudget: { ip: eff.ip, uid: eff.uid, windowMs: budget.windowMs },
      utilisationCeiling: round(budget.windowMs / (budget.windowMs + budget.guardMs)),
      responses429: stats.responses429,
      meanOrdersPerBatch: round(em.batchCalls > 0 ? em.batchEntries / em.batchCalls : 0, 3),
      batchCalls: em.batchCalls,
      singleCalls: em.singleCalls,
      intents: m.intents,
      ordersSent: em.batchEntries + em.singleCalls,
      superseded: em.superseded,
      measuredVirtualSeconds: (t1 - t0) / 1_000,
      placementsOfferedPerSecond: perTick * symbols.length,
      wallSeconds: round((performance.now() - wall0) / 1_000, 2),
    };
  } finally {
    rig.close();
  }
}
