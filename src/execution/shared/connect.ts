// Builds a SharedBudget from config `budget.shared`: the ioredis client with the settings the
// fallback relies on (a slow command fails after timeoutMs; nothing is queued while disconnected, so
// a request never waits on a dead connection; reconnection goes on in the background).
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { BudgetConfig } from '../budget.ts';
import type { Timers } from '../timers.ts';
import type { SharedBudgetMetrics } from './metrics.ts';
import { SharedBudget, type SharedBudgetOptions } from './shared-budget.ts';

export interface SharedBudgetConfig extends SharedBudgetOptions {
  /** redis://[user:password@]host:port[/db] (or rediss:// for TLS). */
  readonly url: string;
  /** Processes with the same account (and IP) share one budget. */
  readonly account: string;
  /** A Redis command slower than this fails, and the process falls back to its share. */
  readonly timeoutMs: number;
}

export function connectSharedBudget(
  c: SharedBudgetConfig,
  deps: {
    readonly budget: Partial<BudgetConfig>;
    readonly clock: Clock;
    readonly timers: Timers;
    readonly log: Logger;
    readonly metrics: SharedBudgetMetrics;
  },
): SharedBudget {
  const redis = new Redis(c.url, {
    lazyConnect: true,
    commandTimeout: c.timeoutMs,
    connectTimeout: Math.max(c.timeoutMs, 1_000),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
  });
  // Connection errors are the fallback's business (logged there, once per episode).
  redis.on('error', (e: Error) => deps.log.debug({ err: e.message }, 'redis connection error'));
  const member = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  return new SharedBudget({
    redis,
    account: c.account,
    member,
    budget: deps.budget,
    options: c,
    clock: deps.clock,
    timers: deps.timers,
    log: deps.log.child({ component: 'shared-budget', member }),
    metrics: deps.metrics,
  });
}
