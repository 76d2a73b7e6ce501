// Wires an Executor to a FakeExchange on virtual time, recording every order event.
import pino from 'pino';
import type { OrderEvent } from '../../src/core/events.ts';
import { clientOid, strategyId, type ClientOid, type SymbolId } from '../../src/core/ids.ts';
import { dec } from '../../src/core/decimal.ts';
import { createBudget, type BudgetConfig } from '../../src/execution/budget.ts';
import { Executor, type ExecutorOptions, type PlacementRequest } from '../../src/execution/executor.ts';
import { VirtualTime } from '../../src/engine/virtual-time.ts';
import { FakeExchange, type FakeExchangeOptions } from './fake-exchange.ts';

export const silentLog = pino({ level: 'silent' });

export interface Harness {
  readonly vt: VirtualTime;
  readonly port: FakeExchange;
  readonly ex: Executor;
  readonly events: OrderEvent[];
  /** Interleaved log of events and requests: `event:<kind>:<oid>` / `request:<endpoint>:<ids>`. */
  readonly timeline: string[];
}

export function harness(
  opts: {
    port?: Omit<FakeExchangeOptions, 'clock'>;
    executor?: Partial<ExecutorOptions>;
    budget?: Partial<BudgetConfig>;
    start?: number;
  } = {},
): Harness {
  const vt = new VirtualTime(opts.start ?? 1_000_000);
  const timeline: string[] = [];
  const events: OrderEvent[] = [];
  const userFate = opts.port?.fate;
  const port = new FakeExchange({
    ...opts.port,
    clock: vt.clock,
    fate: (r) => {
      timeline.push(`request:${r.endpoint}:${r.ids.join(',')}`);
      return userFate?.(r) ?? 'accept';
    },
  });
  const ex = new Executor({
    port,
    clock: vt.clock,
    timers: vt.timers,
    budget: createBudget(opts.budget),
    onOrderEvent: (e) => {
      events.push(e);
      timeline.push(`event:${e.kind}:${e.clientOid}`);
    },
    onFatal: (e) => {
      throw e;
    },
    log: silentLog,
    ...(opts.executor !== undefined ? { options: opts.executor } : {}),
  });
  return { vt, port, ex, events, timeline };
}

/** Runs virtual time forward until the executor has no work left. */
export async function runUntilEmpty(h: Pick<Harness, 'vt' | 'ex'>, maxSteps = 100_000): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    await h.ex.idle();
    if (h.ex.isEmpty()) return;
    const due = h.vt.nextDue();
    if (due === undefined) throw new Error(`executor stuck: ${JSON.stringify(h.ex.depth())}`);
    await h.vt.advanceTo(due);
  }
  throw new Error('executor did not finish');
}

const S = strategyId('s1');

export function placement(
  symbol: SymbolId,
  n: number,
  extra: Partial<PlacementRequest> = {},
): PlacementRequest {
  return {
    strategy: S,
    symbol,
    entry: {
      clientOid: oid(n),
      side: 'open_long',
      orderType: 'normal',
      size: dec('0.001'),
      price: dec('100'),
    },
    ...extra,
  };
}

export function oid(n: number): ClientOid {
  return clientOid(`cb-s1-${n.toString(36)}`);
}

/** Kinds of the events of one order, in order. */
export function eventsOf(events: readonly OrderEvent[], id: ClientOid): string[] {
  return events.filter((e) => e.clientOid === id).map((e) => e.kind);
}
