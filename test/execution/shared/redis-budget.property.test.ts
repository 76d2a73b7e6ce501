// The Redis budget (lua.ts, run in a real redis-server) decides exactly as the pure kernel
// (budget.ts tryConsume / onRateLimited) on random request sequences, when nothing is specific to
// sharing: one member, no cancel reserve. Then the two sharing rules on their own.
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, type EndpointId } from '../../../src/core/endpoints.ts';
import { createBudget, onRateLimited, tryConsume, usage } from '../../../src/execution/budget.ts';
import { RedisBudget } from '../../../src/execution/shared/redis-budget.ts';
import { REDIS_MISSING, SKIP_REDIS, findRedisServer, redisForSuite } from '../../helpers/redis-server.ts';

const IDS = Object.keys(ENDPOINTS) as EndpointId[];
const NO_SHARING = { cancelReserve: 0, staleAfterMs: 1e12, memberTtlMs: 1e13 };

type Op =
  | { readonly kind: 'consume'; readonly dt: number; readonly endpoint: EndpointId }
  | { readonly kind: '429'; readonly dt: number; readonly retryAfterMs: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('consume' as const),
      dt: fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 1_500 })),
      // Order-rate-capped requests often, so that the 1 s pool is contended too.
      endpoint: fc.oneof(fc.constantFrom(...IDS), fc.constantFrom<EndpointId>('placeOrder', 'cancelOrder')),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('429' as const),
      dt: fc.integer({ min: 0, max: 3000 }),
      retryAfterMs: fc.constantFrom(0, 0, 1500, 12_000),
    }),
  },
);

// Small pools so that refusals, fit times and shrinking all happen often.
const configArb = fc.record({
  windowMs: fc.constantFrom(1_000, 2_000, 10_000),
  ipWeightPerWindow: fc.integer({ min: 120, max: 400 }),
  uidWeightPerWindow: fc.integer({ min: 120, max: 400 }),
  safetyMargin: fc.constantFrom(0.9, 1, 0.75),
  orderRequestsPerSecond: fc.integer({ min: 2, max: 10 }),
  guardMs: fc.constantFrom(0, 50),
  recoveryPerSecond: fc.constantFrom(0.01, 0.3),
});

describe.skipIf(SKIP_REDIS)('Redis budget ≡ pure kernel', () => {
  const server = redisForSuite();
  let redis: Redis | undefined;
  let run = 0;

  beforeAll(() => {
    const s = server();
    if (s !== undefined) redis = new Redis(s.url);
  });
  afterAll(() => {
    redis?.disconnect();
  });

  it('finds redis-server', () => {
    if (findRedisServer() === undefined) expect.fail(REDIS_MISSING);
  });

  it('grants, refuses and names the same wait as tryConsume, through 429s', async () => {
    if (redis === undefined) return expect.fail(REDIS_MISSING);
    const r = redis;
    await fc.assert(
      fc.asyncProperty(configArb, fc.array(op, { minLength: 1, maxLength: 80 }), async (cfg, ops) => {
        let kernel = createBudget(cfg);
        const shared = new RedisBudget(r, `prop${run++}`, 'm1', kernel.config, NO_SHARING);
        let now = 1_700_000_000_000;
        for (const o of ops) {
          now += o.dt;
          if (o.kind === '429') {
            kernel = onRateLimited(kernel, now, o.retryAfterMs);
            const until = await shared.rateLimited(o.retryAfterMs, '', now);
            expect(until).toBe(kernel.backoffUntil);
            continue;
          }
          const k = tryConsume(kernel, now, o.endpoint);
          kernel = k.state;
          const s = await shared.reserve(o.endpoint, o.endpoint === 'cancelOrder', '', now);
          expect(s.status).toBe(k.granted ? 'granted' : 'wait');
          if (!k.granted) expect(s.waitMs).toBe(k.waitMs);
          // The same windows afterwards: used weight and the limits at the current factor.
          const u = usage(kernel, now);
          expect(s.usage).toEqual({
            ip: u.ip.used,
            uid: u.uid.used,
            orders: u.orderRate.used,
            ipLimit: u.ip.limit,
            uidLimit: u.uid.limit,
            ordersLimit: u.orderRate.limit,
          });
        }
      }),
      { numRuns: 120 },
    );
  });

  it('holds back a reserve that only cancels may use', async () => {
    if (redis === undefined) return expect.fail(REDIS_MISSING);
    const cfg = createBudget({ ipWeightPerWindow: 100, uidWeightPerWindow: 1000, safetyMargin: 1 }).config;
    const b = new RedisBudget(redis, 'reserve', 'm1', cfg, { ...NO_SHARING, cancelReserve: 0.1 });
    const t = 1_000_000;
    // History (IP 10) until 90 of 100 are used: the 10th is refused, the 10 left are for cancels.
    for (let i = 0; i < 9; i++) expect((await b.reserve('history', false, '', t)).status).toBe('granted');
    expect((await b.reserve('history', false, '', t)).status).toBe('wait');
    expect((await b.reserve('placeOrder', false, '', t)).status).toBe('wait');
    for (let i = 0; i < 5; i++) expect((await b.reserve('cancelOrder', true, '', t)).status).toBe('granted');
    expect((await b.reserve('cancelOrder', true, '', t)).status).toBe('wait');
  });

  it("holds back a stale member's fallback share from the others", async () => {
    if (redis === undefined) return expect.fail(REDIS_MISSING);
    const cfg = createBudget({ ipWeightPerWindow: 100, uidWeightPerWindow: 1000, safetyMargin: 1 }).config;
    const settings = { cancelReserve: 0, staleAfterMs: 1_000, memberTtlMs: 60_000 };
    const a = new RedisBudget(redis, 'stale', 'a', cfg, settings);
    const b = new RedisBudget(redis, 'stale', 'b', cfg, settings);
    const t = 5_000_000;
    // Shares never sum past the budget while members join: b gets 0 until a has made room (1/2).
    expect((await a.heartbeat('', undefined, t)).share).toBe(1);
    expect((await b.heartbeat('', undefined, t)).share).toBe(0);
    expect((await a.heartbeat('', undefined, t)).share).toBe(0.5);
    const hb = await b.heartbeat('', undefined, t);
    expect(hb).toMatchObject({ members: 2, share: 0.5 });
    // b goes silent: from staleAfterMs on, its share (100 / 2) is held back from a.
    const later = t + 1_001;
    for (let i = 0; i < 5; i++) expect((await a.reserve('history', false, '', later)).status).toBe('granted');
    expect((await a.reserve('history', false, '', later)).status).toBe('wait');
    // b is back: the whole pool again.
    await b.heartbeat('', undefined, later);
    expect((await a.reserve('history', false, '', later)).status).toBe('granted');
  });
});
