// `capibot kill` when no runner holds the store: this process takes the lease and does the kill itself.
//
//   1. trading state HALTED in the store's meta (before any request: whatever happens next, a later
//      `capibot run` starts HALTED — the engine's trading guard loads it — and only cancels pass);
//   2. the venue of the config (live: credentials from the environment; paper http: the sim), its
//      clock synchronised, then the same start-up recovery as `run` (src/runner/recovery.ts) with
//      cancel-on-start: reconcile every open order, adopt ours the store lacks, cancel them all, reconcile;
//   3. reconcile and cancel again until no order is open or the deadline passes;
//   4. a pending kill request (written while no runner read it) is acknowledged.
// The embedded paper venue lives inside a runner's process: once no runner is up, its orders exist
// nowhere, so they are closed locally (as `run` does at start).
import { keptOnCancelAll } from '../core/intents.ts';
import type { Logger } from 'pino';
import { asyncScheduler } from 'rxjs';
import type { Config } from '../config/schema.ts';
import type { Env } from '../config/interpolate.ts';
import { readCredentials, requireCredentials } from '../config/credentials.ts';
import { strategyId, type SymbolId } from '../core/ids.ts';
import { applyOrderEvent } from '../core/order-reducer.ts';
import type { Order } from '../core/orders.ts';
import { createEngine, type Engine } from '../engine/engine.ts';
import { TRADING_STATE_META } from '../engine/trading-guard.ts';
import type { Credentials } from '../exchange/weex/signer.ts';
import { schedulerTimers, type Timers } from '../execution/timers.ts';
import { Reconciler } from '../reconcile/pollers.ts';
import { cancelsSettled } from '../runner/cancel-all.ts';
import { engineOptions, reconcilerConfig } from '../runner/options.ts';
import { recover } from '../runner/recovery.ts';
import { openVenue, type Venue, type VenueKind } from '../runner/venue.ts';
import { delay } from '../runner/wait.ts';
import type { OrderStore } from '../store/port.ts';
import { SqliteStore, type LeaseOptions } from '../store/sqlite-store.ts';
import { loadStrategy } from '../strategy/loader.ts';
import { parseStrategyParams, strategySymbols } from '../strategy/define.ts';
import { CONTROL_META, pendingKillRequest, type KillAck } from './control-protocol.ts';

export const EMBEDDED_GONE_REASON = 'the embedded paper exchange does not survive its runner';

export interface DirectKillOptions {
  readonly config: Config;
  readonly env: Env;
  readonly log: Logger;
  /** Said in logs and the acknowledgement. */
  readonly reason: string;
  /** How long cancels and reconciliation may take in total. */
  readonly deadlineMs: number;
  /** Strategy files resolve against this directory (default: the working directory). */
  readonly baseDir?: string;
  /** Test seams of the store lease. */
  readonly lease?: LeaseOptions;
  /** Wall clock (default Date.now). */
  readonly now?: () => number;
}

export interface DirectKillResult {
  readonly venue: VenueKind | 'paper-embedded';
  /** Open orders in the store before the kill. */
  readonly openBefore: number;
  /** Canceled locally (never sent, or the embedded venue is gone). */
  readonly canceledLocally: number;
  /** cancel_order requests sent. */
  readonly cancelRequests: number;
  /** Orders of ours found at the exchange that the store lacked. */
  readonly adopted: number;
  /** Orders still not terminal at the end (outcome unknown, or the cancel unconfirmed). */
  readonly stillOpen: readonly Order[];
  /** Protective plan orders left resting on purpose (orders.keepProtectivePlans). */
  readonly keptPlans: readonly Order[];
}

function credentialsFor(config: Config, env: Env): Credentials | undefined {
  // Canceling needs no --live confirmation (it only reduces exposure) but live orders need credentials.
  if (config.mode === 'live') return requireCredentials(config, env, 'capibot kill (mode: live)');
  return readCredentials(config, env);
}

/** The symbols to reconcile: every configured strategy's (when its plugin loads) and every open order's. */
async function symbolsToWatch(
  config: Config,
  open: readonly Order[],
  baseDir: string | undefined,
  log: Logger,
): Promise<SymbolId[]> {
  const out = new Set<SymbolId>(open.map((o) => o.symbol));
  for (const s of config.strategies) {
    try {
      const { definition } = await loadStrategy(s.file, baseDir);
      const params = parseStrategyParams(definition, s.id, s.params);
      for (const sym of strategySymbols(definition, s.id, params)) out.add(sym);
    } catch (e) {
      log.warn(
        { strategy: s.id, err: (e as Error).message },
        'kill: cannot read the symbols of a strategy; reconciling the symbols of its open orders only',
      );
    }
  }
  return [...out].sort();
}

function closeEmbeddedOrders(store: OrderStore, at: number): number {
  let n = 0;
  store.transaction(() => {
    for (const o of store.openOrders()) {
      const r = applyOrderEvent(o, {
        kind: 'OrderCanceled',
        clientOid: o.clientOid,
        at,
        reason: EMBEDDED_GONE_REASON,
      });
      if (r.changed) {
        store.updateOrder(r.order);
        n++;
      }
    }
  });
  return n;
}

function acknowledgePending(store: OrderStore, now: number, canceling: number): void {
  const req = pendingKillRequest((k) => store.getMeta(k));
  if (req === undefined) return;
  const ack: KillAck = {
    id: req.id,
    at: now,
    pid: process.pid,
    tradingState: 'HALTED',
    canceling,
    by: 'direct',
  };
  store.setMeta(CONTROL_META.killAck, JSON.stringify(ack));
}

export async function killDirectly(o: DirectKillOptions): Promise<DirectKillResult> {
  const { config, log } = o;
  const now = o.now ?? Date.now;
  const credentials = credentialsFor(config, o.env);
  const store = new SqliteStore({
    path: config.store.path,
    logger: log.child({ component: 'store' }),
    lease: o.lease ?? {},
  });
  try {
    store.setMeta(TRADING_STATE_META, 'HALTED');
    const openBefore = store.openOrders();
    log.warn(
      { store: config.store.path, openOrders: openBefore.length, reason: o.reason },
      'kill: trading state HALTED; canceling every open order',
    );
    if (config.mode === 'paper' && config.paper.venue === 'embedded') {
      const closed = closeEmbeddedOrders(store, now());
      acknowledgePending(store, now(), openBefore.length);
      return {
        venue: 'paper-embedded',
        openBefore: openBefore.length,
        canceledLocally: closed,
        cancelRequests: 0,
        adopted: 0,
        stillOpen: store.openOrders(),
        keptPlans: [],
      };
    }
    try {
      const venue = await openVenue({ config, credentials, log: log.child({ component: 'venue' }) });
      try {
        const result = await cancelAtVenue(o, store, venue, openBefore, now);
        acknowledgePending(store, now(), openBefore.length);
        return result;
      } finally {
        await venue.close();
      }
    } catch (e) {
      log.error(
        { err: e, openOrders: store.openOrders().length },
        'kill: trading state HALTED is persisted, but canceling at the venue failed; run kill again once the venue answers',
      );
      throw e;
    }
  } finally {
    store.close();
  }
}

async function cancelAtVenue(
  o: DirectKillOptions,
  store: SqliteStore,
  venue: Venue,
  openBefore: readonly Order[],
  now: () => number,
): Promise<DirectKillResult> {
  const { config, log } = o;
  const deadline = now() + o.deadlineMs;
  const left = (): number => Math.max(0, deadline - now());
  const keep = config.orders.keepProtectivePlans;
  await venue.prepare();
  const timers: Timers = schedulerTimers(asyncScheduler);
  const engine: Engine = createEngine({
    port: venue.port,
    store,
    clock: venue.clock,
    scheduler: asyncScheduler,
    log,
    specs: new Map(),
    strategies: [],
    options: engineOptions(config),
  });
  const symbols = await symbolsToWatch(config, openBefore, o.baseDir, log);
  let adopted = 0;
  const reconciler = new Reconciler({
    store,
    port: venue.port,
    read: (endpoint, run) => engine.executor.read(endpoint, run),
    clock: venue.clock,
    timers,
    log: log.child({ component: 'reconcile' }),
    prefix: config.orders.clientOidPrefix,
    strategies: config.strategies.map((s) => strategyId(s.id)),
    symbols,
    config: reconcilerConfig(config.polling),
    onRound: (r) => {
      adopted += r.output.adopted.length;
      if (r.committed.changed.length > 0 || r.fillsForEngine.length > 0) {
        engine.ordersChanged(r.committed.changed, r.fillsForEngine);
      }
    },
  });
  let local = 0;
  let requested = 0;
  try {
    const report = await recover({
      engine,
      reconciler,
      store,
      clock: venue.clock,
      timers,
      log: log.child({ component: 'recovery' }),
      cancelOnStart: true,
      keepProtectivePlans: keep,
      attempts: 3,
      retryDelayMs: 500,
      cancelDeadlineMs: left(),
    });
    local += report.canceled.local;
    requested += report.canceled.requested;
    // Cancels answered but not yet seen as canceled in history, or refused: reconcile and try again.
    while (engine.openOrders().some((x) => !keptOnCancelAll(x, keep)) && left() > 0) {
      await delay(timers, Math.min(1_000, left()));
      await reconciler.reconcileOnce().catch((e: unknown) => {
        log.warn({ err: e }, 'kill: reconciliation failed; retrying until the deadline');
      });
      const again = engine.cancelAll({ retryRefused: true, keepProtectivePlans: keep });
      local += again.local;
      requested += again.requested;
      if (again.requested > 0) await cancelsSettled(engine, timers, left());
    }
  } finally {
    reconciler.stop();
    await engine.shutdown(Math.min(left(), 2_000));
    engine.executor.stop();
  }
  const stillOpen = store.openOrders().filter((x) => !keptOnCancelAll(x, keep));
  const keptPlans = store.openOrders().filter((x) => keptOnCancelAll(x, keep));
  if (stillOpen.length > 0) {
    log.warn(
      { count: stillOpen.length, orders: stillOpen.map((x) => `${x.clientOid}:${x.status}`) },
      'kill: orders not confirmed canceled before the deadline; the next run reconciles them (HALTED)',
    );
  }
  return {
    venue: venue.kind,
    openBefore: openBefore.length,
    canceledLocally: local,
    cancelRequests: requested,
    adopted,
    stillOpen,
    keptPlans,
  };
}
