// The `capibot run` config of a chaos run (written to the run's temp dir, one file per runner start).
// Paper mode against the `capibot sim` under test; the storm strategy over both symbols; tight
// timeouts and a short unknown-grace period so faults resolve within a one-minute run.
import { stringify } from 'yaml';
import type { ConfigInput } from '../../src/config/schema.ts';

/** client_oid prefix of every chaos order: exchange orders carrying it are ours. */
export const CHAOS_PREFIX = 'chaos';

/** How long an order with an unknown outcome may stay without a trace before it is declared lost. */
export const UNKNOWN_GRACE_MS = 10_000;

export interface ChaosConfigOptions {
  readonly baseUrl: string;
  readonly storePath: string;
  readonly logFile: string;
  /** Absolute path of the strategy plugin. */
  readonly strategyFile: string;
  /**
   * The final settle run: the strategy places nothing, every open order is canceled after the start-up
   * reconciliation and again on exit, so the exchange stops changing before the comparison.
   */
  readonly settle: boolean;
}

export function chaosConfig(o: ChaosConfigOptions): ConfigInput {
  return {
    mode: 'paper',
    exchange: {
      baseUrl: o.baseUrl,
      timeoutMs: 2_000,
      connectTimeoutMs: 1_000,
      readRetries: 3,
      retryBackoffMs: 100,
    },
    store: { path: o.storePath },
    strategies: [{ id: 'storm', file: o.strategyFile, params: { quiet: o.settle, plans: true } }],
    paper: { venue: 'http' },
    risk: {
      maxOrderNotional: '2000',
      maxPositionNotional: '5000',
      maxOpenOrders: 100,
      maxOrdersPerMinute: 2_000,
      priceBandBps: '500',
      drawdownReducePct: '50',
      drawdownHaltPct: '60',
    },
    polling: {
      tickersMs: 1_000,
      fillsMs: 1_000,
      historyMs: 1_000,
      unknownGraceMs: UNKNOWN_GRACE_MS,
      // Plan orders settle from plan rows only (a lost plan_order reply, a plan fired or canceled while
      // the runner was down): poll them as often as order history.
      planHistoryMs: 1_000,
    },
    orders: { clientOidPrefix: CHAOS_PREFIX, cancelOnStart: o.settle, cancelOnExit: o.settle },
    metrics: { enabled: false },
    log: { level: 'info', pretty: false, file: o.logFile },
    shutdown: { drainDeadlineMs: 5_000, cancelOpenOrders: o.settle },
  };
}

export function chaosConfigYaml(o: ChaosConfigOptions): string {
  return `# written by bench/chaos.ts\n${stringify(chaosConfig(o))}`;
}
