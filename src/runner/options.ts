// Config → the settings of the engine and of the reconciliation pollers, in one place so `run` (and
// any other composition) reads the config the same way.
import { dec } from '../core/decimal.ts';
import type { Config, PollingConfig } from '../config/schema.ts';
import type { EngineOptions } from '../engine/engine.ts';
import type { ReconcilerConfig } from '../reconcile/pollers.ts';
import { DEFAULT_SIM_RETENTION_MS } from '../exchange/sim/retention.ts';
import type { FaultProfile } from '../exchange/sim/faults.ts';
import { DEFAULT_HISTORY_HEADROOM } from '../reconcile/history-headroom.ts';
import { riskLimits } from '../risk/limits.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export function engineOptions(config: Config): EngineOptions {
  const b = config.budget;
  const x = config.executor;
  return {
    clientOidPrefix: config.orders.clientOidPrefix,
    killKeepsProtectivePlans: config.orders.keepProtectivePlans,
    riskLimits: riskLimits(config.risk),
    // Paper: the simulated account's balance is known, so the drawdown breaker has its equity.
    ...(config.mode === 'paper' ? { startingEquity: dec(config.paper.startingBalance) } : {}),
    budget: {
      windowMs: b.windowMs,
      ipWeightPerWindow: b.ipWeightPerWindow,
      uidWeightPerWindow: b.uidWeightPerWindow,
      safetyMargin: b.safetyMargin,
      orderRequestsPerSecond: b.orderRequestsPerSecond,
    },
    executor: {
      maxInFlight: x.concurrency,
      coalesce: x.coalesceMs === 0 ? 'tick' : x.coalesceMs,
      supersede: x.supersede,
      // Attempts of a read or cancel (and of a placement that provably never left).
      maxAttempts: config.exchange.readRetries + 1,
      retryDelayMs: config.exchange.retryBackoffMs,
    },
    // Strategy timers keep running when tickers stall.
    timerPulseMs: 1_000,
  };
}

/**
 * Reconciliation settings. Intervals: the configured interval while orders are in flight, unknown or
 * resting; × idleFactor when nothing is open and nothing happened for a minute.
 */
export function reconcilerConfig(polling: PollingConfig): ReconcilerConfig {
  const intervals = (ms: number) => ({
    fastMs: ms,
    normalMs: ms,
    idleMs: Math.round(ms * polling.idleFactor),
    idleAfterMs: MINUTE,
  });
  return {
    graceMs: polling.unknownGraceMs,
    recentMs: Math.max(15 * MINUTE, 2 * polling.unknownGraceMs),
    fills: {
      intervals: intervals(polling.fillsMs),
      paging: { overlapMs: polling.fillsOverlapMs, initialLookbackMs: HOUR, maxPages: 10, limit: 100 },
    },
    history: {
      intervals: intervals(polling.historyMs),
      // The lookback only matters for symbols without open orders (terminal states, adoption); every
      // non-terminal order widens its symbol's window to its own creation. Kept short: a full page
      // proves nothing about what it left out.
      // skewMs: orders are stamped with exchange time (venue-clock.ts), so their exchange createTime
      // lies within a second or two of it; every order in the margin takes a row of the page.
      window: {
        pageSize: DEFAULT_HISTORY_HEADROOM.pageSize,
        lookbackMs: 5 * MINUTE,
        skewMs: DEFAULT_HISTORY_HEADROOM.skewMs,
      },
    },
    plans: {
      intervalMs: polling.planHistoryMs,
      window: {
        overlapMs: MINUTE,
        initialLookbackMs: 24 * HOUR,
        maxWindowMs: 24 * HOUR,
        maxWindows: 2,
        pageSize: 100,
        delegateTypes: [],
      },
    },
  };
}

/**
 * The in-process simulator's retention for these polling settings (src/exchange/sim/retention.ts):
 * its fills are served back to R before its latest fill, and the fills poll restarts at the newest
 * fill it saw minus the overlap, seeing each fill within an idle interval (plus any late-fill or
 * stale-history delay a fault profile injects). R stays four times above that reach, and at least
 * the default: no window the reconciler asks for is ever cut.
 */
export function simRetentionMs(polling: PollingConfig, faults?: FaultProfile): number {
  let delay = 0;
  for (const f of faults?.faults ?? []) {
    if (f.kind === 'lateFills') delay = Math.max(delay, f.delayMs);
    if (f.kind === 'staleHistory') delay = Math.max(delay, f.lagMs);
  }
  const idle = Math.max(polling.fillsMs, polling.historyMs) * polling.idleFactor;
  const reach = polling.fillsOverlapMs + Math.ceil(idle) + delay;
  return Math.max(DEFAULT_SIM_RETENTION_MS, 4 * reach);
}
