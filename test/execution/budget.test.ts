import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, type EndpointId } from '../../src/core/endpoints.ts';
import { ConfigError } from '../../src/core/errors.ts';
import {
  costOf,
  createBudget,
  effectiveLimits,
  onRateLimited,
  tryConsume,
  usage,
  type BudgetState,
  type RequestCost,
} from '../../src/execution/budget.ts';

const ENDPOINT_IDS = Object.keys(ENDPOINTS) as EndpointId[];

interface Grant {
  readonly t: number;
  readonly cost: RequestCost;
}

/** Checks every window of `len` ms starting at a grant (the worst windows start at one). */
function maxWindow(grants: readonly Grant[], len: number, weight: (c: RequestCost) => number): number {
  let max = 0;
  let j = 0;
  let sum = 0;
  // Two pointers over grants sorted by time: window [grants[i].t, grants[i].t + len).
  for (let i = 0; i < grants.length; i++) {
    while (j < grants.length && grants[j]!.t < grants[i]!.t + len) sum += weight(grants[j++]!.cost);
    max = Math.max(max, sum);
    sum -= weight(grants[i]!.cost);
  }
  return max;
}

const arbCost: fc.Arbitrary<EndpointId | RequestCost> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ENDPOINT_IDS) },
  {
    weight: 1,
    arbitrary: fc.record({
      ipWeight: fc.integer({ min: 0, max: 60 }),
      uidWeight: fc.integer({ min: 0, max: 60 }),
      orderRateCapped: fc.boolean(),
    }),
  },
);

/** A request stream: gaps between arrivals and what each costs; some arrivals are 429s instead. */
const arbArrivals = fc.array(
  fc.record({
    gap: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 400 })),
    cost: arbCost,
    rateLimited: fc.integer({ min: 0, max: 40 }).map((n) => n === 0),
  }),
  { minLength: 1, maxLength: 600 },
);

describe('budget: never exceeded', () => {
  it('no window of the exchange (plus guard) ever holds more than the effective budget, whatever arrives', () => {
    fc.assert(
      fc.property(
        arbArrivals,
        fc.constantFrom(0.9, 0.5, 1),
        fc.boolean(),
        (arrivals, safetyMargin, retryAtWait) => {
          let state = createBudget({ safetyMargin });
          const c = state.config;
          const limits = effectiveLimits(c);
          const grants: Grant[] = [];
          let now = 1_000_000;
          let backoffUntil = -Infinity;
          for (const a of arrivals) {
            now += a.gap;
            if (a.rateLimited) {
              state = onRateLimited(state, now);
              backoffUntil = usage(state, now).backoffMs + now;
              continue;
            }
            let r = tryConsume(state, now, a.cost);
            // Sometimes the caller waits exactly as told and tries again.
            if (!r.granted && retryAtWait && Number.isFinite(r.waitMs)) {
              now += r.waitMs;
              r = tryConsume(r.state, now, a.cost);
            }
            state = r.state;
            if (r.granted) {
              expect(now).toBeGreaterThanOrEqual(backoffUntil);
              grants.push({ t: now, cost: costOf(a.cost) });
            }
          }
          expect(maxWindow(grants, c.windowMs + c.guardMs, (x) => x.ipWeight)).toBeLessThanOrEqual(limits.ip);
          expect(maxWindow(grants, c.windowMs + c.guardMs, (x) => x.uidWeight)).toBeLessThanOrEqual(
            limits.uid,
          );
          expect(
            maxWindow(grants, c.orderRateWindowMs + c.guardMs, (x) => (x.orderRateCapped ? 1 : 0)),
          ).toBeLessThanOrEqual(limits.orderRate);
          expect(usage(state, now).totals.requests).toBe(grants.length);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('waitMs is exact: refused one ms before, granted at the time it names (no 429 in play)', () => {
    fc.assert(
      fc.property(arbArrivals, (arrivals) => {
        let state = createBudget();
        let now = 0;
        for (const a of arrivals) {
          now += a.gap;
          const r = tryConsume(state, now, a.cost);
          if (!r.granted && Number.isFinite(r.waitMs)) {
            expect(r.waitMs).toBeGreaterThan(0);
            if (r.waitMs > 1) expect(tryConsume(r.state, now + r.waitMs - 1, a.cost).granted).toBe(false);
            expect(tryConsume(r.state, now + r.waitMs, a.cost).granted).toBe(true);
          }
          state = r.state;
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('budget: readable cases', () => {
  // The margin applies to the 10 req/s order cap too (9 per second): arrival jitter at the exchange
  // above the 50 ms guard otherwise meets 429s on cancel bursts (seen over loopback under load).
  it('applies the safety margin: 900 of 1000 per 10 s, and 9 of 10 order requests per second', () => {
    const s = createBudget();
    const u = usage(s, 0);
    expect(u.ip).toEqual({ used: 0, limit: 900, remaining: 900 });
    expect(u.uid.limit).toBe(900);
    expect(u.orderRate.limit).toBe(9);
  });

  it('grants batchOrders until the UID pool is spent, then names the wait until the oldest expires', () => {
    let s: BudgetState = createBudget();
    for (let i = 0; i < 90; i++) {
      const r = tryConsume(s, 1_000 + i, 'batchOrders');
      expect(r.granted).toBe(true);
      s = r.state;
    }
    const refused = tryConsume(s, 2_000, 'batchOrders');
    expect(refused.granted).toBe(false);
    // The first grant (t = 1000) leaves the 10 s window (+ 50 ms guard) at 11 050.
    expect(refused.granted ? 0 : refused.waitMs).toBe(11_050 - 2_000);
    expect(usage(s, 2_000).uid).toEqual({ used: 900, limit: 900, remaining: 0 });
    // A public read costs no UID weight: it still passes.
    expect(tryConsume(s, 2_000, 'tickers').granted).toBe(true);
  });

  it('caps placeOrder at 10 per second, but not batchOrders', () => {
    let s: BudgetState = createBudget();
    for (let i = 0; i < 10; i++) s = (tryConsume(s, 0, 'placeOrder') as { state: BudgetState }).state;
    const r = tryConsume(s, 0, 'cancelOrder');
    expect(r.granted).toBe(false);
    expect(r.granted ? 0 : r.waitMs).toBe(1_050);
    expect(tryConsume(s, 0, 'batchOrders').granted).toBe(true);
  });

  it('a 429 backs off, shrinks the budget by 0.8, and the budget recovers gradually', () => {
    let s = createBudget();
    s = onRateLimited(s, 10_000);
    expect(usage(s, 10_000).backoffMs).toBe(1_000);
    expect(usage(s, 10_000).ip.limit).toBe(720);
    const early = tryConsume(s, 10_500, 'fills');
    expect(early.granted).toBe(false);
    expect(early.granted ? 0 : early.waitMs).toBe(500);
    expect(tryConsume(s, 11_000, 'fills').granted).toBe(true);
    expect(usage(s, 20_000).ip.limit).toBe(810); // 0.8 + 10 s × 0.01 = 0.9
    expect(usage(s, 40_000).ip.limit).toBe(900);
  });

  it('doubles the back-off for 429s in a row and honours a longer Retry-After', () => {
    let s = createBudget();
    s = onRateLimited(s, 0);
    s = onRateLimited(s, 1_000);
    expect(usage(s, 1_000).backoffMs).toBe(2_000);
    s = onRateLimited(s, 3_000, 7_000);
    expect(usage(s, 3_000).backoffMs).toBe(7_000);
    expect(usage(s, 3_000).factor).toBeGreaterThanOrEqual(0.5);
  });

  it('never lets its clock step back', () => {
    let s = createBudget();
    s = (tryConsume(s, 5_000, 'history') as { state: BudgetState }).state;
    const r = tryConsume(s, 4_000, 'history');
    expect(r.granted).toBe(true);
    expect(r.state.clock).toBe(5_000);
  });

  it('refuses a configuration in which an endpoint could never fit', () => {
    expect(() => createBudget({ ipWeightPerWindow: 50, minFactor: 0.5 })).toThrow(ConfigError);
    expect(() => createBudget({ safetyMargin: 1.5 })).toThrow(ConfigError);
  });

  it('a request costing more than the budget never fits (waitMs is Infinity)', () => {
    const r = tryConsume(createBudget(), 0, { ipWeight: 901, uidWeight: 0, orderRateCapped: false });
    expect(r.granted).toBe(false);
    expect(r.granted ? 0 : r.waitMs).toBe(Number.POSITIVE_INFINITY);
  });
});
