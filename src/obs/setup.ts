// Observability from the config, for the composition root (`capibot run`): the root logger (with the
// credentials censored), the metrics and, when enabled, the /metrics /health /ready endpoint.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import type { Config, LogConfig } from '../config/schema.ts';
import { startObsServer } from './http-server.ts';
import type { ObsServer, ReadinessCheck } from './http-server.ts';
import { createRootLogger } from './logger.ts';
import type { RootLogger, RootLoggerOptions } from './logger.ts';
import { createPromMetrics, noopMetrics } from './metrics.ts';
import type { Metrics } from './metrics.ts';

/** Logger options from the `log` section plus the literal secrets to censor. */
export function loggerOptions(log: LogConfig, secrets: readonly string[]): RootLoggerOptions {
  return { level: log.level, pretty: log.pretty, file: log.file, secrets };
}

export interface Observability {
  readonly root: RootLogger;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Present when `metrics.enabled`. */
  readonly server?: ObsServer;
  /** Stops the endpoint and flushes the log. */
  close(): Promise<void>;
}

export interface ObservabilityDeps {
  /** The configured key, secret and passphrase (never logged). */
  readonly secrets: readonly string[];
  readonly readiness: ReadinessCheck;
  readonly clock?: Clock;
  /** Overrides the logger options built from the config (tests). */
  readonly logger?: Partial<RootLoggerOptions>;
}

export async function startObservability(config: Config, deps: ObservabilityDeps): Promise<Observability> {
  const root = createRootLogger({ ...loggerOptions(config.log, deps.secrets), ...deps.logger });
  const logger = root.logger;
  if (!config.metrics.enabled) {
    return { root, logger, metrics: noopMetrics, close: () => Promise.resolve(root.flush()) };
  }
  const metrics = createPromMetrics(deps.clock ? { clock: deps.clock } : {});
  const server = await startObsServer({
    host: config.metrics.host,
    port: config.metrics.port,
    registry: metrics.registry,
    readiness: deps.readiness,
    logger: logger.child({ component: 'obs' }),
  });
  return {
    root,
    logger,
    metrics,
    server,
    close: async () => {
      await server.close();
      root.flush();
    },
  };
}
