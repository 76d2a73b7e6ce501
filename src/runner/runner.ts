// `capibot run`: the composition of a live or paper run.
//
//   store (lease) → venue (port, clock, tickers) → strategies → engine + reconciliation pollers
//   → restart recovery (before any strategy sees a ticker) → operator channel (`capibot kill`)
//   → tickers, pollers, metrics, /ready
//   → until a signal, --duration-s, the end of a replayed recording, or a fatal error
//   → graceful shutdown (optional cancel-all, drain, last reconciliation) → exit code
//
// Only this file (and the venue) know which concrete adapters a run uses.
import type { Logger } from 'pino';
import { asyncScheduler } from 'rxjs';
import type { Env } from '../config/interpolate.ts';
import type { LoadedConfig } from '../config/load.ts';
import { readCredentials, requireLiveReady, secretValues } from '../config/credentials.ts';
import { summarizeConfig } from '../config/summary.ts';
import type { Config } from '../config/schema.ts';
import type { EngineStrategyConfig } from '../engine/engine.ts';
import { schedulerTimers } from '../execution/timers.ts';
import type { Credentials } from '../exchange/weex/signer.ts';
import { startObservability, type Observability } from '../obs/setup.ts';
import type { RootLoggerOptions } from '../obs/logger.ts';
import { RECONCILE_META } from '../reconcile/pollers.ts';
import { SqliteStore } from '../store/sqlite-store.ts';
import { MetricsBridge } from './metrics-bridge.ts';
import { engineOptions, reconcilerConfig } from './options.ts';
import { readinessOf } from './readiness.ts';
import { joinSharedBudget } from './shared-budget.ts';
import type { SharedBudget } from '../execution/shared/shared-budget.ts';
import { recover } from './recovery.ts';
import { createSession, type Session } from './session.ts';
import { shutdown, type ShutdownReport } from './shutdown.ts';
import { installSignals, signalExitCode } from './signals.ts';
import { startControl } from './control.ts';
import { createPauseBook, pausableStrategies } from './pause.ts';
import {
  resolveSurfaces,
  startSurfaces,
  surfaceSecrets,
  type RunSurfaces,
  type Surfaces,
} from './surfaces.ts';
import { loadConfiguredStrategies } from './strategies.ts';
import { TickerFeed } from './ticker-feed.ts';
import { openVenue, type Venue } from './venue.ts';
import { wallClock } from './venue-clock.ts';

export interface RunOptions {
  readonly config: Config;
  readonly env: Env;
  /** The --live flag. */
  readonly live: boolean;
  /** Stop gracefully after this long (tests, chaos runs). */
  readonly durationMs?: number;
  /** Relative strategy files resolve against this directory (default: the working directory). */
  readonly baseDir?: string;
  /** `file:line:col path` of a config path (LoadedConfig.where), so strategy errors name their place. */
  readonly where?: LoadedConfig['where'];
  /** Overrides of the logger options (tests). */
  readonly logger?: Partial<RootLoggerOptions>;
  /** Install SIGINT/SIGTERM/SIGHUP handlers (default true). */
  readonly signals?: boolean;
  /** Aborting it stops the run gracefully, like a signal (embedding, tests). */
  readonly stop?: AbortSignal;
  /** Human lines for the terminal (the CLI passes ctx.out.info). */
  readonly say?: (line: string) => void;
}

export interface RunResult {
  readonly exitCode: number;
  readonly reason: string;
  readonly shutdown?: ShutdownReport;
}

type StopReason =
  | { readonly kind: 'signal'; readonly signal: NodeJS.Signals }
  | { readonly kind: 'duration' }
  | { readonly kind: 'requested' }
  | { readonly kind: 'data-ended' }
  | { readonly kind: 'failure'; readonly message: string };

function credentialsFor(config: Config, env: Env, live: boolean): Credentials | undefined {
  // Refuses --live with a paper config, and live mode without --live or without credentials.
  if (config.mode === 'live' || live) return requireLiveReady(config, env, { live });
  return config.paper.venue === 'http' ? readCredentials(config, env) : undefined;
}

export async function runTrading(opts: RunOptions): Promise<RunResult> {
  const { config } = opts;
  const credentials = credentialsFor(config, opts.env, opts.live);
  // The web console's tokens and the webhook URLs: checked before anything starts (src/runner/surfaces.ts).
  const surfaces = resolveSurfaces(config, opts.env);
  // A bad strategy (file, params, symbols) is refused before the metrics port, the store or the
  // venue are touched.
  const strategies = await loadConfiguredStrategies(
    opts.where !== undefined ? { config, where: opts.where } : config,
    opts.baseDir !== undefined ? { baseDir: opts.baseDir } : {},
  );
  let ready: () => ReturnType<typeof readinessOf> = () => ({
    reconciled: false,
    fresh: false,
    detail: 'starting',
  });
  const obs = await startObservability(config, {
    secrets: [...secretValues(credentials), ...surfaceSecrets(surfaces)],
    readiness: () => ready(),
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
  });
  const log = obs.logger.child({ component: 'runner' });
  try {
    return await runWith(opts, strategies, credentials, surfaces, obs, log, (fn) => {
      ready = fn;
    });
  } catch (e) {
    log.error({ err: e }, 'run failed');
    throw e;
  } finally {
    await obs.close();
  }
}

async function runWith(
  opts: RunOptions,
  strategies: readonly EngineStrategyConfig[],
  credentials: Credentials | undefined,
  surfaces: Surfaces,
  obs: Observability,
  log: Logger,
  setReadiness: (fn: () => ReturnType<typeof readinessOf>) => void,
): Promise<RunResult> {
  const { config } = opts;
  const say = opts.say ?? ((line: string) => log.info(line));
  log.info({ config: summarizeConfig(config) }, 'starting');
  if (obs.server !== undefined)
    say(`metrics on ${obs.server.url}/metrics (health /health, readiness /ready)`);

  // A stop requested while starting up is honoured as soon as start-up can be left.
  let stopRequested = false;
  let requestStop: (r: StopReason) => void = () => undefined;
  const stopped = new Promise<StopReason>((resolve) => {
    requestStop = (r) => {
      stopRequested = true;
      resolve(r);
    };
  });
  if (opts.stop !== undefined) {
    const onAbort = (): void => requestStop({ kind: 'requested' });
    if (opts.stop.aborted) onAbort();
    else opts.stop.addEventListener('abort', onAbort, { once: true });
  }
  const removeSignals =
    opts.signals === false
      ? () => undefined
      : installSignals({
          onStop: (signal) => {
            log.warn({ signal }, 'stop requested: shutting down gracefully (a second signal exits at once)');
            requestStop({ kind: 'signal', signal });
          },
          onForce: (signal) => {
            log.error(
              { signal },
              'second signal: exiting now (the store is consistent: every commit is synchronous)',
            );
            obs.root.flush();
            process.exit(signalExitCode(signal));
          },
          onHangup: () => obs.root.reopen(),
        });

  const store = new SqliteStore({
    path: config.store.path,
    logger: obs.logger.child({ component: 'store' }),
    lease: {
      onLost: (reason) => requestStop({ kind: 'failure', message: `store lease lost: ${reason}` }),
    },
  });
  let venue: Venue | undefined;
  let session: Session | undefined;
  let sharedBudget: SharedBudget | undefined;
  // Everything that keeps the event loop alive, so the finally block can stop it whatever failed.
  const running: {
    bridge?: MetricsBridge;
    feed?: TickerFeed;
    control?: { stop(): void };
    surfaces?: RunSurfaces;
  } = {};
  try {
    venue = await openVenue({
      config,
      credentials,
      log: obs.logger.child({ component: 'venue' }),
      onResponse: (endpoint, status, ms) =>
        obs.metrics.requestDone(endpoint.id, status === 'error' ? 'transport' : status, ms),
    });
    await venue.prepare();
    const specs = await venue.specs();
    const clock = venue.clock;
    // Timers run on the wall clock (asyncScheduler), whatever the venue's clock says.
    const timers = schedulerTimers(asyncScheduler);
    let lastFullRoundAt: number | undefined;
    // budget.shared: the weight budget is drawn from Redis with the other processes of the account.
    sharedBudget = await joinSharedBudget(config, {
      clock: wallClock,
      timers,
      log: obs.logger,
      metrics: obs.metrics,
    });
    const gate = sharedBudget;
    // Pause / resume of single strategies (from the console): kept in the store across restarts.
    const pauses = createPauseBook({
      strategies: strategies.map((s) => s.id),
      store,
      log: obs.logger.child({ component: 'pause' }),
    });
    session = createSession({
      port: venue.port,
      store,
      clock,
      scheduler: asyncScheduler,
      timers,
      log: obs.logger,
      specs,
      strategies: pausableStrategies(strategies, pauses),
      engine: { ...engineOptions(config), ...(gate !== undefined ? { budgetGate: gate } : {}) },
      reconcile: reconcilerConfig(config.polling),
      onRound: (r) => {
        if (r.full) lastFullRoundAt = wallClock.now();
        running.bridge?.round(r);
        running.surfaces?.round(r);
      },
    });
    const { engine, reconciler } = session;
    const bridge = new MetricsBridge(obs.metrics, engine, store, wallClock);
    running.bridge = bridge;
    engine.events$.subscribe((e) => {
      if (e.kind === 'EngineFailed') requestStop({ kind: 'failure', message: e.message });
    });

    if (!venue.persistent) {
      forgetEmbeddedOrders(session, store, venue, log);
      warnEmbeddedPositions(session, log, say);
    }
    const feed = new TickerFeed({
      venue,
      engine,
      read: session.read,
      symbols: session.symbols,
      intervalMs: config.polling.tickersMs,
      staleAfterMs: config.polling.staleAfterMs,
      wall: wallClock,
      log: obs.logger.child({ component: 'tickers' }),
      onTickers: (tickers) => {
        // Ticker age as the venue sees it, placed on the wall clock the metrics read at scrape time
        // (a replaying sim's timestamps are in the recording's time).
        const skew = wallClock.now() - clock.now();
        for (const t of tickers) obs.metrics.tickerSeen(t.symbol, t.timestamp + skew);
        bridge.tickers(tickers);
      },
    });
    running.feed = feed;
    let started = false;
    const historyIdleMs = config.polling.historyMs * config.polling.idleFactor;
    setReadiness(() =>
      readinessOf(
        { started, lastFullRoundAt, lastTickersAt: feed.lastTickersAt },
        { reconcileMaxAgeMs: 3 * historyIdleMs + 10_000, staleAfterMs: config.polling.staleAfterMs },
        wallClock,
      ),
    );

    const recovering = recover({
      engine,
      reconciler,
      store,
      clock,
      timers,
      log: obs.logger.child({ component: 'recovery' }),
      cancelOnStart: config.orders.cancelOnStart,
      stopping: () => stopRequested,
    });
    const recovery = await Promise.race([recovering, stopped]);
    if ('kind' in recovery) {
      // Stopped before trading started (no strategy ever ran): cut the recovery's reads short and
      // let whatever it had in flight finish before the store closes.
      session.abortReads('stopped during start-up');
      await recovering.catch(() => undefined);
      await engine.shutdown(0);
      return { exitCode: exitCodeOf(recovery), reason: describe(recovery) };
    }

    // The operator channel (`capibot kill`): a kill requested while we were down is honoured before
    // any strategy acts.
    // The notifications start first: they must hear a kill handled at once by startControl.
    const ops = startSurfaces({ config, surfaces, engine, store, pauses, obs, log: obs.logger, say });
    running.surfaces = ops;
    const control = startControl({
      store,
      engine,
      log: obs.logger,
      onKill: (reason) => {
        reconciler.nudge();
        ops.killed(reason);
      },
    });
    running.control = control;
    // The web console (when enabled) acts through this operator channel.
    await ops.openConsole(control);
    engine.start();
    feed.start();
    reconciler.start();
    bridge.start(asyncScheduler);
    started = true;
    say(
      `capibot run: trading (${config.mode}, ${venue.kind}) with ${strategies.map((s) => s.id).join(', ')}`,
    );
    // A latched state from an earlier run (the kill switch, the drawdown breaker) is kept across
    // restarts: say so at once, or the operator sees a runner that never trades.
    const state = engine.tradingState();
    if (state !== 'ACTIVE') {
      const what =
        state === 'HALTED'
          ? 'HALTED: no placement passes, only cancels'
          : 'REDUCING: only closing placements and cancels pass';
      say(
        `capibot run: warning: started ${what} (latched by an earlier run: the kill switch or the drawdown ` +
          'breaker); `capibot kill --reset` with the runner stopped makes it ACTIVE again',
      );
      log.warn({ tradingState: state }, 'started with a latched trading state');
    }
    log.info(
      { venue: venue.kind, symbols: session.symbols, strategies: strategies.map((s) => s.id) },
      'trading',
    );

    const durationTimer =
      opts.durationMs !== undefined
        ? setTimeout(() => requestStop({ kind: 'duration' }), opts.durationMs)
        : undefined;
    void venue.ended.then(() => requestStop({ kind: 'data-ended' }));
    const reason = await stopped;
    if (durationTimer !== undefined) clearTimeout(durationTimer);
    started = false;
    control.stop();

    const report = await shutdown({
      session,
      feed,
      clock,
      wall: wallClock,
      timers,
      log: obs.logger.child({ component: 'shutdown' }),
      cancelOpenOrders:
        config.orders.cancelOnExit || (reason.kind === 'signal' && config.shutdown.cancelOpenOrders),
      keepProtectivePlans: config.orders.keepProtectivePlans,
      drainDeadlineMs: config.shutdown.drainDeadlineMs,
    });
    bridge.stop();
    const unsettled =
      report.unsettled.length > 0
        ? `, ${report.unsettled.length} of them with an unknown outcome (the next start settles them)`
        : '';
    say(`capibot run: stopped (${describe(reason)}); ${report.openOrders} order(s) left open${unsettled}`);
    return { exitCode: exitCodeOf(reason), reason: describe(reason), shutdown: report };
  } finally {
    // After a failure anywhere (start-up, shutdown) nothing may keep running (timers, queued requests,
    // the metrics sampler), or the process would never exit.
    running.feed?.stop();
    running.control?.stop();
    running.bridge?.stop();
    await running.surfaces?.close();
    session?.reconciler.stop();
    session?.engine.stop();
    session?.engine.executor.stop();
    await sharedBudget?.stop();
    removeSignals();
    store.close();
    await venue?.close();
  }
}

function exitCodeOf(r: StopReason): number {
  return r.kind === 'failure' ? 1 : 0;
}

function describe(r: StopReason): string {
  switch (r.kind) {
    case 'signal':
      return r.signal;
    case 'duration':
      return 'duration reached';
    case 'requested':
      return 'stop requested';
    case 'data-ended':
      return 'the recording ended';
    case 'failure':
      return `failure: ${r.message}`;
  }
}

/**
 * The embedded simulator starts empty with every run: orders the store still holds as open from an
 * earlier run cannot exist there. They are closed locally (canceled) so the picture matches, and the
 * pollers start over on the new simulator's timeline.
 */
function forgetEmbeddedOrders(session: Session, store: SqliteStore, venue: Venue, log: Logger): void {
  // A new exchange, a new timeline: the pollers' cursors of the earlier one would skip its fills.
  for (const key of [RECONCILE_META.fillsCursor, RECONCILE_META.planCursor]) {
    if (store.getMeta(key) !== undefined) store.setMeta(key, '{}');
  }
  const open = session.engine.openOrders();
  if (open.length === 0) return;
  const at = venue.clock.now();
  session.engine.applyOrderEvents(
    open.map((o) => ({
      kind: 'OrderCanceled' as const,
      clientOid: o.clientOid,
      at,
      reason: 'the embedded paper exchange does not survive a restart',
    })),
  );
  log.warn(
    { count: open.length },
    'orders left open by an earlier embedded paper run were closed locally (the in-process simulator starts empty)',
  );
}

/**
 * Positions an earlier embedded paper run left in the store: the new in-process simulator starts
 * flat, so they exist in the store (status, PnL, what strategies see) but not at the venue, and a
 * close of them is refused there. Said once at start; the remedy is a fresh store for a fresh paper
 * account, or `paper.venue: http` (a `capibot sim` that outlives the runner).
 */
function warnEmbeddedPositions(session: Session, log: Logger, say: (line: string) => void): void {
  const legs: string[] = [];
  for (const [symbol, p] of session.engine.hedgePositions()) {
    if (!p.long.eq(0)) legs.push(`${symbol} long ${p.long.toFixed()}`);
    if (!p.short.eq(0)) legs.push(`${symbol} short ${p.short.toFixed()}`);
  }
  if (legs.length === 0) return;
  log.warn(
    { positions: legs },
    'positions of an earlier embedded paper run are in the store, not in the new simulator',
  );
  say(
    `capibot run: warning: the store holds positions of an earlier embedded paper run (${legs.join(', ')}), ` +
      'but the in-process simulator starts flat: start from a fresh store.path, or use paper.venue: http ' +
      'for runs that must survive a restart',
  );
}
