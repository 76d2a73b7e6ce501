// The Redis budget (lua.ts, run in a real redis-server) decides exactly as the pure kernel
// (budget.ts tryConsume / onRateLimited) on random request sequences with one member: while no cancel
// waits, whatever the cancel reserve; while one waits (a cancel refused for lack of room), as the
// kernel with every pool lowered by the reserve for non-cancels. Then the sharing rules on their own:
// the cancel priority across members (and its mark lapsing when the waiting process dies), and the
// stale members' shares.
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, type EndpointId } from '../../../src/core/endpoints.ts';
import { fitTime } from '../../../src/core/sliding-window.ts';
import {
  costOf,
  createBudget,
  effectiveLimits,
  factorAt,
  onRateLimited,
  recordGrant,
  tryConsume,
  usage,
  type BudgetState,
} from '../../../src/execution/budget.ts';
import {
  accountKeys,
  CANCEL_MARK_MARGIN_MS,
  RedisBudget,
} from '../../../src/execution/shared/redis-budget.ts';
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
      dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 1_500 })),
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

/**
 * The earliest time ≥ now when a request of `endpoint` fits `state`'s windows with each pool lowered
 * by floor(limit × reserve), back-off aside (Infinity: never as things stand). The kernel's own rule
 * (budget.ts tryConsume) at reserve 0.
 */
function roomAt(state: BudgetState, now: number, endpoint: EndpointId, reserve: number): number {
  const t = Math.max(now, state.clock);
  const c = costOf(endpoint);
  const l = effectiveLimits(state.config, factorAt(state, t));
  const low = (x: number): number => x - Math.floor(x * reserve + 1e-9);
  return Math.max(
    t,
    c.ipWeight > 0 ? fitTime(state.weights, t, 0, c.ipWeight, low(l.ip)) : t,
    c.uidWeight > 0 ? fitTime(state.weights, t, 1, c.uidWeight, low(l.uid)) : t,
    c.orderRateCapped ? fitTime(state.orders, t, 0, 1, low(l.orderRate)) : t,
  );
}

/** The wait as Redis says it: −1 for "not as things stand". */
const redisWait = (ms: number): number => (Number.isFinite(ms) ? ms : -1);

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

  it('grants, refuses and names the same wait as tryConsume while no cancel waits, through 429s', async () => {
    if (redis === undefined) return expect.fail(REDIS_MISSING);
    const r = redis;
    const seen = { underMark: 0 };
    await fc.assert(
      fc.asyncProperty(
        configArb,
        fc.constantFrom(0, 0.1, 0.25, 0.5),
        fc.array(op, { minLength: 1, maxLength: 80, size: 'max' }),
        async (cfg, cancelReserve, ops) => {
          let kernel = createBudget(cfg);
          const settings = { ...NO_SHARING, cancelReserve };
          const shared = new RedisBudget(r, `prop${run++}`, 'm1', kernel.config, settings);
          let now = 1_700_000_000_000;
          /** The model of the member's waiting cancel: the deadline of its mark. */
          let markUntil = Number.NEGATIVE_INFINITY;
          for (const o of ops) {
            now += o.dt;
            if (o.kind === '429') {
              kernel = onRateLimited(kernel, now, o.retryAfterMs);
              const until = await shared.rateLimited(o.retryAfterMs, '', now);
              expect(until).toBe(kernel.backoffUntil);
              continue;
            }
            const cancel = o.endpoint === 'cancelOrder';
            const marked = markUntil > now;
            const full = roomAt(kernel, now, o.endpoint, 0);
            const s = await shared.reserve(o.endpoint, cancel, '', now);
            let granted: boolean;
            let waitMs: number;
            if (cancel || !marked) {
              // A cancel may always use the whole pool; so may anything while no cancel waits.
              const k = tryConsume(kernel, now, o.endpoint);
              kernel = k.state;
              granted = k.granted;
              waitMs = k.granted ? 0 : k.waitMs;
              expect(s.heldBack).toBe(false);
            } else {
              // A cancel waits: this non-cancel leaves floor(limit × cancelReserve) of each pool.
              seen.underMark++;
              const fitsAt = Math.max(roomAt(kernel, now, o.endpoint, cancelReserve), kernel.backoffUntil);
              granted = fitsAt <= now;
              waitMs = fitsAt - now;
              if (granted) kernel = recordGrant(kernel, now, o.endpoint);
              const held = !granted && Math.max(full, kernel.backoffUntil) <= now;
              expect(s.heldBack).toBe(held);
            }
            expect(s.status).toBe(granted ? 'granted' : 'wait');
            if (!granted) expect(s.waitMs).toBe(redisWait(waitMs));
            if (cancel) {
              // Through: its mark is cleared. Refused for lack of room: it waits until its retry.
              if (granted) markUntil = Number.NEGATIVE_INFINITY;
              else if (full > now) markUntil = now + waitMs + CANCEL_MARK_MARGIN_MS;
            }
            expect(s.cancelWaiting).toBe(markUntil > now);
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
        },
      ),
      { numRuns: 150 },
    );
    // The sequences did exercise the waiting cancel (a property that never met one proves little):
    // a few hundred decisions under a mark per run. A request held back only by the reserve is rarer
    // (a handful per run): checked exactly wherever it occurs, and met for certain by the test below.
    expect(seen.underMark).toBeGreaterThan(0);
  });

  it('leaves the whole pool to non-cancels while no cancel waits, whatever the reserve', async () => {
    if (redis === undefined) return expect.fail(REDIS_MISSING);
    const cfg = createBudget({ ipWeightPerWindow: 100, uidWeightPerWindow: 1000, safetyMargin: 1 }).config;
    const b = new RedisBudget(redis, 'no-wait', 'm1', cfg, { ...NO_SHARING, cancelReserve: 0.5 });
    const t = 1_000_000;
    // History (IP 10): all ten fit, 100 of 100; the eleventh waits a window (+ guard).
    for (let i = 0; i < 10; i++) expect((await b.reserve('history', false, '', t)).status).toBe('granted');
    expect(await b.reserve('history', false, '', t)).toMatchObject({
      status: 'wait',
      waitMs: cfg.windowMs + cfg.guardMs,
      cancelWaiting: false,
      heldBack: false,
    });
  });

  it('a cancel refused in one member makes the others leave the reserve until it gets through', async () => {
    const s = server();
    if (s === undefined) return expect.fail(REDIS_MISSING);
    // Two members with their own connections, as two processes.
    const ra = new Redis(s.url);
    const rb = new Redis(s.url);
    try {
      const cfg = createBudget({ ipWeightPerWindow: 100, uidWeightPerWindow: 1000, safetyMargin: 1 }).config;
      const settings = { ...NO_SHARING, cancelReserve: 0.1 };
      const a = new RedisBudget(ra, 'priority', 'a', cfg, settings);
      const b = new RedisBudget(rb, 'priority', 'b', cfg, settings);
      const span = cfg.windowMs + cfg.guardMs;
      const t0 = 2_000_000;
      const history = (at: number) => b.reserve('history', false, '', at);
      // No cancel waits: b fills the whole IP pool (100), in two halves a second apart.
      for (let i = 0; i < 5; i++) expect((await history(t0)).status).toBe('granted');
      for (let i = 0; i < 5; i++) expect((await history(t0 + 1_000)).status).toBe('granted');
      // a's cancel (IP 2) finds no room: it waits until the first half expires, and says so.
      const refused = await a.reserve('cancelOrder', true, '', t0 + 2_000);
      expect(refused).toMatchObject({ status: 'wait', waitMs: span - 2_000, cancelWaiting: true });
      // The first half expired: b may take 90 of 100 (4 of the 5 freed), the 10 left are for a.
      const t1 = t0 + span;
      for (let i = 0; i < 4; i++) expect((await history(t1)).status).toBe('granted');
      expect(await history(t1)).toMatchObject({ status: 'wait', cancelWaiting: true, heldBack: true });
      // a retries: through, the mark is gone.
      expect(await a.reserve('cancelOrder', true, '', t1)).toMatchObject({
        status: 'granted',
        cancelWaiting: false,
      });
      // b is back to the whole pool: 92 used, four placements (IP 2) take it to 100.
      for (let i = 0; i < 4; i++) {
        expect(await b.reserve('placeOrder', false, '', t1)).toMatchObject({
          status: 'granted',
          cancelWaiting: false,
        });
      }
      expect((await history(t1)).heldBack).toBe(false);

      // a's next cancel is refused (pool full) until the second half expires at t0 + 1000 + span;
      // then a dies: it never retries.
      const again = await a.reserve('cancelOrder', true, '', t1 + 100);
      expect(again).toMatchObject({ status: 'wait', cancelWaiting: true });
      const fitsAt = t1 + 100 + again.waitMs;
      expect(fitsAt).toBe(t0 + 1_000 + span);
      // Room again, but the mark stands: b leaves the reserve.
      for (let i = 0; i < 4; i++) expect((await history(fitsAt)).status).toBe('granted');
      expect(await history(fitsAt)).toMatchObject({ status: 'wait', heldBack: true });
      expect((await history(fitsAt + CANCEL_MARK_MARGIN_MS - 1)).heldBack).toBe(true);
      // The mark lapses by itself at its deadline (the wait + the margin): the whole pool again.
      expect(await history(fitsAt + CANCEL_MARK_MARGIN_MS)).toMatchObject({
        status: 'granted',
        cancelWaiting: false,
      });
    } finally {
      ra.disconnect();
      rb.disconnect();
    }
  });

  it("on Redis' clock the mark's key expires by itself, and leaving clears it", async () => {
    if (redis === undefined) return expect.fail(REDIS_MISSING);
    const cfg = createBudget({
      windowMs: 400,
      guardMs: 0,
      ipWeightPerWindow: 100,
      uidWeightPerWindow: 1000,
      safetyMargin: 1,
    }).config;
    const settings = { ...NO_SHARING, cancelReserve: 0.1 };
    const a = new RedisBudget(redis, 'expiry', 'a', cfg, settings);
    const b = new RedisBudget(redis, 'expiry', 'b', cfg, settings);
    const cancels = accountKeys('expiry')[5] ?? '';
    for (let i = 0; i < 10; i++) expect((await b.reserve('history', false, '')).status).toBe('granted');
    const refused = await a.reserve('cancelOrder', true, '');
    expect(refused).toMatchObject({ status: 'wait', cancelWaiting: true });
    const ttl = await redis.pttl(cancels);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(refused.waitMs + CANCEL_MARK_MARGIN_MS + 1);
    await new Promise((r) => setTimeout(r, ttl + 50));
    expect(await redis.exists(cancels)).toBe(0);
    // Refused again (b refills the pool), then a leaves: its mark goes with it.
    for (let i = 0; i < 10; i++) expect((await b.reserve('history', false, '')).status).toBe('granted');
    expect((await a.reserve('cancelOrder', true, '')).cancelWaiting).toBe(true);
    await a.leave('');
    expect(await redis.exists(cancels)).toBe(0);
    expect((await b.reserve('history', false, '')).cancelWaiting).toBe(false);
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
