// The executor benchmarks' test bench: the real engine (strategy host, risk gate, write-ahead SQLite
// store in memory, weight-budgeted executor with its planner) on virtual time, against the in-process
// simulator, which charges the venue's weights and answers 429 when they are exceeded.
//
// Reconciliation is replaced by a stand-in that costs no weight: after each step it tells the engine
// which of its orders the simulator has already finished (the benchmark's quotes are canceled at once).
// Without it the engine would hold every quote as live, and the risk gate, which looks at every live
// order for each new intent, would make a long flood quadratic: a cost of the benchmark's shortcut,
// not of a real run, whose reconciliation settles those orders.
import pino from 'pino';
import type { Clock } from '../src/core/clock.ts';
import type { OrderEvent } from '../src/core/events.ts';
import { isTerminal } from '../src/core/orders.ts';
import { createEngine, type Engine, type EngineStrategyConfig } from '../src/engine/engine.ts';
import { VirtualTime } from '../src/engine/virtual-time.ts';
import type { ExchangePort } from '../src/exchange/port.ts';
import { SimPort } from '../src/exchange/sim/sim-port.ts';
import type { BudgetConfig } from '../src/execution/budget.ts';
import type { ExecutorOptions } from '../src/execution/executor.ts';
import { riskLimits } from '../src/risk/limits.ts';
import { SqliteStore } from '../src/store/sqlite-store.ts';

export interface Rig {
  readonly vt: VirtualTime;
  readonly sim: SimPort;
  readonly store: SqliteStore;
  readonly engine: Engine;
  close(): void;
}

export interface RigOptions {
  readonly strategy: EngineStrategyConfig;
  /** Clock time at the start (epoch ms). */
  readonly startMs: number;
  /** Wraps the simulator (to note the requests); default: the simulator itself. */
  readonly port?: (sim: SimPort, clock: Clock) => ExchangePort;
  readonly executor?: Partial<ExecutorOptions>;
  readonly budget?: Partial<BudgetConfig>;
}

/** Risk limits wide enough that only the weight budget holds the flood back. */
const OPEN_LIMITS = riskLimits({
  maxOrderNotional: '1000000000',
  maxPositionNotional: '1000000000000',
  maxOpenOrders: 1_000_000,
  maxOrdersPerMinute: 100_000_000,
});

export async function createRig(o: RigOptions): Promise<Rig> {
  const vt = new VirtualTime(o.startMs);
  // The rig reads the simulator's orders directly (reportFinishedOrders): it forgets none.
  const sim = new SimPort({ clock: vt.clock, seed: 1, retentionMs: Number.POSITIVE_INFINITY });
  const specs = new Map((await sim.contracts()).map((c) => [c.symbol, c]));
  const store = new SqliteStore({ path: ':memory:', lease: false, now: () => vt.now() });
  const engine = createEngine({
    port: o.port ? o.port(sim, vt.clock) : sim,
    store,
    clock: vt.clock,
    scheduler: vt.scheduler,
    log: pino({ level: 'silent' }),
    specs,
    strategies: [o.strategy],
    options: {
      riskLimits: OPEN_LIMITS,
      ...(o.executor !== undefined ? { executor: o.executor } : {}),
      ...(o.budget !== undefined ? { budget: o.budget } : {}),
    },
  });
  return {
    vt,
    sim,
    store,
    engine,
    close() {
      engine.stop();
      engine.executor.stop();
      store.close();
    },
  };
}

/**
 * The reconciliation stand-in: every order the engine holds as live that the simulator has already
 * canceled is reported canceled (with the simulator's filled quantity). Returns how many.
 */
export function reportFinishedOrders(rig: Rig): number {
  const at = rig.vt.now();
  const events: OrderEvent[] = [];
  for (const o of rig.engine.openOrders()) {
    if (o.status === 'created' || isTerminal(o.status)) continue;
    const s = rig.sim.core.orderByClientOid(o.clientOid);
    if (s?.status !== 'canceled') continue;
    events.push({
      kind: 'OrderCanceled',
      clientOid: o.clientOid,
      at,
      filledQty: s.filledQty,
      reason: 'canceled at the exchange (benchmark reconciliation stand-in)',
    });
  }
  if (events.length > 0) rig.engine.applyOrderEvents(events);
  return events.length;
}
