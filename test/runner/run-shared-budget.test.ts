// `capibot run` with `budget.shared`, in process: two paper runs at once draw from one budget in a
// real redis-server (both register, both reserve there, both leave at the end; the shared metrics are
// exported), and a run whose Redis does not answer refuses to start.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountKeys } from '../../src/execution/shared/redis-budget.ts';
import { runTrading } from '../../src/runner/runner.ts';
import {
  REDIS_MISSING,
  SKIP_REDIS,
  findRedisServer,
  freePort,
  redisForSuite,
} from '../helpers/redis-server.ts';
import { paperConfig } from './paper-config.ts';

/** The paper config, drawing its budget from Redis at `redisUrl`. */
function config(store: string, redisUrl: string) {
  return paperConfig(store, [
    'budget:',
    '  shared:',
    `    url: ${redisUrl}`,
    '    account: test-account',
    '    heartbeatMs: 100',
  ]);
}

describe.skipIf(SKIP_REDIS)('capibot run with budget.shared', () => {
  const redisServer = redisForSuite();
  let dir: string | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-run-shared-'));
  });
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('finds redis-server', () => {
    if (findRedisServer() === undefined) expect.fail(REDIS_MISSING);
  });

  it('two runs share one budget in Redis and leave it when they stop', async () => {
    const server = redisServer();
    if (server === undefined || dir === undefined) return expect.fail(REDIS_MISSING);
    const url = server.url;
    const base = dir;
    const scraped: string[] = [];
    const runs = [0, 1].map((i) =>
      runTrading({
        config: config(join(base, `store-${i}.sqlite`), url),
        env: {},
        live: false,
        signals: false,
        durationMs: 2_500,
        logger: { level: 'silent' },
        say: (line) => {
          const m = /metrics on (http:\/\/[^/]+)\/metrics/.exec(line);
          if (m?.[1] === undefined) return;
          const at = m[1];
          setTimeout(() => {
            void fetch(`${at}/metrics`)
              .then((r) => r.text())
              .then((t) => scraped.push(t));
          }, 1_200);
        },
      }),
    );
    const results = await Promise.all(runs);
    expect(results.map((r) => r.exitCode)).toEqual([0, 0]);

    const redis = new Redis(url);
    try {
      const [state, , , members] = accountKeys('test-account');
      const requests = Number(await redis.hget(state ?? '', 'totReq'));
      expect(requests).toBeGreaterThan(10);
      // Both left: their shares are no longer held back.
      expect(await redis.zcard(members ?? '')).toBe(0);
    } finally {
      redis.disconnect();
    }
    expect(scraped).toHaveLength(2);
    for (const text of scraped) {
      expect(text).toMatch(/capibot_shared_budget_used\{pool="ip"\} \d+/);
      expect(text).toMatch(/capibot_shared_budget_reservation_seconds_count [1-9]/);
      expect(text).toMatch(/capibot_shared_budget_members 2/);
      expect(text).toMatch(/capibot_shared_budget_fallbacks_total 0/);
      // The tickers polls of both runs (IP 40 every 150 ms each) fill the IP pool, so a churn cancel
      // may be waiting (and a request held back for it) at the scrape: exported, either way.
      expect(text).toMatch(/capibot_shared_budget_held_for_cancel_total \d+/);
      expect(text).toMatch(/capibot_shared_budget_cancel_waiting [01]/);
    }
  });

  it('refuses to start when Redis does not answer', async () => {
    if (dir === undefined) return expect.fail('no temp dir');
    const port = await freePort();
    await expect(
      runTrading({
        config: config(join(dir, 'store-x.sqlite'), `redis://127.0.0.1:${port}`),
        env: {},
        live: false,
        signals: false,
        durationMs: 1_000,
        logger: { level: 'silent' },
      }),
    ).rejects.toThrow(/budget\.shared: Redis did not answer/);
  });
});
