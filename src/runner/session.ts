// One trading session: the engine and the reconciliation pollers over one store and one venue, wired
// so that every committed reconciliation round reaches the engine (positions, strategies) and every
// order that needs settling quickens the pollers. The runner (`capibot run`) builds one per process;
// tests build one per simulated restart.
import type { Logger } from 'pino';
import type { SchedulerLike } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { StrategyId, SymbolId } from '../core/ids.ts';
import type { ContractSpec } from '../core/market.ts';
import {
  createEngine,
  type Engine,
  type EngineOptions,
  type EngineStrategyConfig,
} from '../engine/engine.ts';
import type { ExchangePort } from '../exchange/port.ts';
import type { Timers } from '../execution/timers.ts';
import type { EndpointId } from '../core/endpoints.ts';
import type { ReadThrough } from '../reconcile/fetch.ts';
import { Reconciler, type ReconcilerConfig, type RoundShortcut } from '../reconcile/pollers.ts';
import type { RoundResult } from '../reconcile/round.ts';
import type { OrderStore } from '../store/port.ts';

export interface SessionDeps {
  readonly port: ExchangePort;
  readonly store: OrderStore;
  readonly clock: Clock;
  readonly scheduler: SchedulerLike;
  readonly timers: Timers;
  readonly log: Logger;
  readonly specs: ReadonlyMap<SymbolId, ContractSpec>;
  readonly strategies: readonly EngineStrategyConfig[];
  readonly engine?: EngineOptions;
  readonly reconcile: ReconcilerConfig;
  /** Also called after every committed round (metrics, tests). */
  readonly onRound?: (r: RoundResult) => void;
  /**
   * The in-process simulator's half of RoundShortcut (backtests): its state version and its own
   * weighing of reads not sent. The executor's budget is charged first (see UnsentCharges.charge).
   */
  readonly venueShortcut?: RoundShortcut;
}

export interface Session {
  readonly engine: Engine;
  readonly reconciler: Reconciler;
  /** Every symbol the strategies trade. */
  readonly symbols: readonly SymbolId[];
  /** Reads through the weight budget that end when the session aborts them (see `abortReads`). */
  readonly read: ReadThrough;
  /**
   * Rejects every budgeted read still waiting (shutdown): a round waiting for budget fails at once
   * instead of holding up the last reconciliation. Later reads are refused.
   */
  abortReads(reason: string): void;
}

export function createSession(d: SessionDeps): Session {
  const engine = createEngine({
    port: d.port,
    store: d.store,
    clock: d.clock,
    scheduler: d.scheduler,
    log: d.log,
    specs: d.specs,
    strategies: d.strategies,
    ...(d.engine !== undefined ? { options: d.engine } : {}),
  });
  const symbols = [...new Set(engine.strategies.flatMap((s) => s.symbols))].sort();
  const waiting = new Set<(e: Error) => void>();
  let aborted: string | undefined;
  const read: ReadThrough = <T>(endpoint: EndpointId, run: () => Promise<T>): Promise<T> => {
    if (aborted !== undefined) return Promise.reject(new Error(aborted));
    return new Promise<T>((resolve, reject) => {
      const fail = (e: Error): void => reject(e);
      waiting.add(fail);
      engine.executor.read(endpoint, run).then(
        (v) => {
          waiting.delete(fail);
          resolve(v);
        },
        (e: unknown) => {
          waiting.delete(fail);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  };
  const abortReads = (reason: string): void => {
    aborted = reason;
    for (const fail of [...waiting]) fail(new Error(reason));
    waiting.clear();
  };
  const venue = d.venueShortcut;
  const reconciler = new Reconciler({
    store: d.store,
    port: d.port,
    read,
    clock: d.clock,
    timers: d.timers,
    log: d.log.child({ component: 'reconcile' }),
    prefix: d.engine?.clientOidPrefix ?? 'cb',
    strategies: engine.strategies.map((s): StrategyId => s.id),
    symbols,
    config: d.reconcile,
    ...(venue !== undefined
      ? {
          shortcut: {
            ...venue,
            chargeUnsent: (eps, at) =>
              engine.executor.unsent.charge(eps, () => venue.chargeUnsent(eps, at), at),
            chargeUnsentRounds: (rounds) =>
              engine.executor.unsent.chargeRounds(rounds, (granted) => venue.chargeUnsentRounds(granted)),
          },
        }
      : {}),
    onRound: (r) => {
      // Committed already: the engine only updates its views and tells the strategies.
      if (r.committed.changed.length > 0 || r.fillsForEngine.length > 0) {
        engine.ordersChanged(r.committed.changed, r.fillsForEngine);
      }
      d.onRound?.(r);
    },
  });
  // Sleeping reconciliation loops charge their past rounds before anything else takes weight.
  if (venue?.quiet !== undefined) {
    engine.executor.watchIntake((kind) => reconciler.wake({ work: kind !== 'read' }));
  }
  engine.events$.subscribe((e) => {
    if (e.kind === 'OrderCreated' || e.kind === 'OrderOutcomeUnknown' || e.kind === 'CancelRequested')
      reconciler.nudge();
  });
  return { engine, reconciler, symbols, read, abortReads };
}
