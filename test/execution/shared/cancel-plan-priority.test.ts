// A plan's cancel is a cancel for the shared budget too (the executor queues both kinds as cancels):
// refused for lack of room, it marks a cancel as waiting, so every process's placements leave the
// reserve to it — as an order's cancel does.
import pino from 'pino';
import { Redis } from 'ioredis';
import { asyncScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { EndpointId } from '../../../src/core/endpoints.ts';
import { noopSharedBudgetMetrics } from '../../../src/execution/shared/metrics.ts';
import { SharedBudget } from '../../../src/execution/shared/shared-budget.ts';
import { schedulerTimers } from '../../../src/execution/timers.ts';
import { REDIS_MISSING, SKIP_REDIS, redisForSuite } from '../../helpers/redis-server.ts';
import { BUDGET } from './flood-harness.ts';

const OPTIONS = { heartbeatMs: 200, staleAfterMs: 1_500, memberTtlMs: 30_000, cancelReserve: 0.1 };

async function budget(url: string, account: string, waiting: boolean[]): Promise<SharedBudget> {
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  redis.on('error', () => undefined);
  const b = new SharedBudget({
    redis,
    account,
    member: 'm0',
    budget: BUDGET,
    options: OPTIONS,
    clock: { now: () => Date.now() },
    timers: schedulerTimers(asyncScheduler),
    log: pino({ level: 'silent' }),
    metrics: { ...noopSharedBudgetMetrics, cancelWaiting: (on) => void waiting.push(on) },
  });
  await b.start();
  return b;
}

/** Reserves `endpoint` until the budget refuses it (the pool is full): the grants made. */
async function fill(b: SharedBudget, endpoint: EndpointId): Promise<number> {
  for (let n = 0; n < 1_000; n++) if (!(await b.reserve(endpoint)).granted) return n;
  throw new Error('the budget never refused');
}

describe.skipIf(SKIP_REDIS)('cancel priority in the shared budget', () => {
  const server = redisForSuite();

  for (const cancel of ['cancelPlan', 'cancelOrder'] as const) {
    it(`marks a refused ${cancel} as a waiting cancel`, async () => {
      const redis = server();
      if (redis === undefined) return expect.fail(REDIS_MISSING);
      const waiting: boolean[] = [];
      const b = await budget(redis.url, `acct-${cancel}`, waiting);
      try {
        expect(await fill(b, 'history')).toBeGreaterThan(0);
        expect(waiting.at(-1)).toBe(false);
        // The pool is full for reads; the cancel is refused too (nothing is reserved without a waiting
        // cancel), and says it waits: placements and reads are now held to the limit − the reserve.
        const refused = await b.reserve(cancel);
        expect(refused.granted).toBe(false);
        expect(waiting.at(-1)).toBe(true);
      } finally {
        await b.stop();
      }
    });
  }
});
