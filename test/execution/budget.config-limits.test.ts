// The budget's configuration guards (each refused value names its field), the effective limits on
// each pool (margin, shrink factor, rounding, floor of one), recovery after a 429, strikes and
// back-off, and the usage figures.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import {
  DEFAULT_BUDGET_CONFIG,
  createBudget,
  effectiveLimits,
  factorAt,
  onRateLimited,
  tryConsume,
  usage,
  type BudgetConfig,
  type BudgetState,
} from '../../src/execution/budget.ts';

function refusal(config: Partial<BudgetConfig>): ConfigError | undefined {
  try {
    createBudget(config);
    return undefined;
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
}

const grant = (s: BudgetState, t: number, e: Parameters<typeof tryConsume>[2]): BudgetState => {
  const r = tryConsume(s, t, e);
  if (!r.granted) throw new Error(`refused at ${t}`);
  return r.state;
};

describe('budget: configuration guards', () => {
  const POSITIVE = [
    'windowMs',
    'ipWeightPerWindow',
    'uidWeightPerWindow',
    'orderRequestsPerSecond',
    'orderRateWindowMs',
    'backoffMs',
    'maxBackoffMs',
  ] as const;

  it('refuses a positive field that is zero, negative, NaN or infinite, naming the field', () => {
    for (const k of POSITIVE) {
      for (const v of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(refusal({ [k]: v })?.path).toBe(`budget.${k}`);
      }
    }
  });

  it('refuses a ratio outside (0, 1], naming the field, and accepts 1', () => {
    for (const k of ['safetyMargin', 'rateLimitShrink', 'minFactor'] as const) {
      for (const v of [0, -0.5, 1.01, Number.NaN]) expect(refusal({ [k]: v })?.path).toBe(`budget.${k}`);
      expect(refusal({ [k]: 1 })).toBeUndefined();
    }
  });

  it('refuses a negative or NaN guard and a recovery that is not above zero', () => {
    expect(refusal({ guardMs: -1 })?.path).toBe('budget.guardMs');
    expect(refusal({ guardMs: Number.NaN })?.path).toBe('budget.guardMs');
    expect(refusal({ guardMs: 0 })).toBeUndefined();
    expect(refusal({ recoveryPerSecond: 0 })?.path).toBe('budget.recoveryPerSecond');
    expect(refusal({ recoveryPerSecond: Number.NaN })?.path).toBe('budget.recoveryPerSecond');
    expect(refusal({ recoveryPerSecond: 1e-6 })).toBeUndefined();
  });

  it('accepts pools that, fully shrunk, still fit the heaviest endpoint (IP 40, UID 10) exactly', () => {
    // floor(pool × 0.5 × 0.5) must reach the heaviest weight; one less does not.
    const fit = { safetyMargin: 0.5, minFactor: 0.5 };
    expect(refusal({ ...fit, ipWeightPerWindow: 160 })).toBeUndefined();
    expect(refusal({ ...fit, ipWeightPerWindow: 159 })?.path).toBe('budget');
    expect(refusal({ ...fit, uidWeightPerWindow: 40 })).toBeUndefined();
    expect(refusal({ ...fit, uidWeightPerWindow: 39 })?.path).toBe('budget');
  });

  it('keeps the given values over the defaults, and counts each window guardMs longer', () => {
    const s = createBudget({ windowMs: 5_000, orderRateWindowMs: 500, guardMs: 20 });
    expect(s.config).toEqual({
      ...DEFAULT_BUDGET_CONFIG,
      windowMs: 5_000,
      orderRateWindowMs: 500,
      guardMs: 20,
    });
    expect(Object.isFrozen(s.config)).toBe(true);
    expect(s.weights.windowMs).toBe(5_020);
    expect(s.orders.windowMs).toBe(520);
  });
});

describe('budget: effective limits', () => {
  const c: BudgetConfig = {
    ...DEFAULT_BUDGET_CONFIG,
    ipWeightPerWindow: 1000,
    uidWeightPerWindow: 2000,
    orderRequestsPerSecond: 20,
    safetyMargin: 0.5,
  };

  it('each pool is floor(limit × margin × factor), pool by pool', () => {
    expect(effectiveLimits(c)).toEqual({ ip: 500, uid: 1000, orderRate: 10 });
    expect(effectiveLimits(c, 0.8)).toEqual({ ip: 400, uid: 800, orderRate: 8 });
    expect(effectiveLimits(c, 0.75)).toEqual({ ip: 375, uid: 750, orderRate: 7 });
  });

  it('rounds a product a hair below an integer up to it, and never goes below one', () => {
    // 100 × 0.57 is 56.99999999999999 in binary floating point.
    const hair = { ...c, ipWeightPerWindow: 100, uidWeightPerWindow: 100, orderRequestsPerSecond: 100 };
    expect(effectiveLimits({ ...hair, safetyMargin: 0.57 })).toEqual({ ip: 57, uid: 57, orderRate: 57 });
    expect(effectiveLimits({ ...c, safetyMargin: 0.001 }, 0.5)).toEqual({ ip: 1, uid: 1, orderRate: 1 });
  });

  it('is what usage reports, at any factor', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60_000 }), (dt) => {
        const s = onRateLimited(createBudget(c), 0);
        const f = factorAt(s, dt);
        const u = usage(s, dt);
        const l = effectiveLimits(s.config, f);
        expect([u.ip.limit, u.uid.limit, u.orderRate.limit]).toEqual([l.ip, l.uid, l.orderRate]);
      }),
    );
  });
});

describe('budget: shrink, recovery and back-off', () => {
  it('the factor is 1 without a 429, then recovers linearly from the shrunk value up to 1', () => {
    const s0 = createBudget();
    expect(factorAt(s0, 0)).toBe(1);
    const s = onRateLimited(s0, 10_000);
    expect(factorAt(s, 10_000)).toBeCloseTo(0.8, 12);
    expect(factorAt(s, 15_000)).toBeCloseTo(0.85, 12);
    expect(factorAt(s, 30_000)).toBe(1);
    expect(factorAt(s, 100_000)).toBe(1);
    const fast = onRateLimited(createBudget({ recoveryPerSecond: 0.1 }), 0);
    expect(factorAt(fast, 1_000)).toBeCloseTo(0.9, 12);
  });

  it('shrinks from the current (partly recovered) factor, never below minFactor', () => {
    let s = onRateLimited(createBudget(), 0);
    s = onRateLimited(s, 10_000); // 0.9 × 0.8
    expect(s.factorAtShrink).toBeCloseTo(0.72, 12);
    for (let t = 10_001; t < 10_005; t++) s = onRateLimited(s, t);
    expect(s.factorAtShrink).toBe(0.5);
  });

  it('counts strikes within one window, restarts after a full window, and caps the back-off', () => {
    let s = onRateLimited(createBudget(), 0);
    expect(s.strikes).toBe(1);
    s = onRateLimited(s, 9_999);
    expect(s.strikes).toBe(2);
    expect(usage(s, 9_999).backoffMs).toBe(2_000);
    s = onRateLimited(s, 19_999); // exactly one window later: a new series
    expect(s.strikes).toBe(1);
    expect(usage(s, 19_999).backoffMs).toBe(1_000);
    let t = 20_000;
    for (let i = 0; i < 6; i++) s = onRateLimited(s, ++t);
    expect(s.strikes).toBe(7);
    expect(usage(s, t).backoffMs).toBe(10_000); // 1000 × 2^6 capped at maxBackoffMs
  });

  it('never shortens a back-off, and a Retry-After only lengthens it', () => {
    let s = onRateLimited(createBudget(), 0, 7_000);
    s = onRateLimited(s, 100);
    expect(s.backoffUntil).toBe(7_000);
    expect(onRateLimited(createBudget(), 0, 500).backoffUntil).toBe(1_000);
    expect(onRateLimited(createBudget(), 0).backoffUntil).toBe(1_000);
  });

  it('a 429 uses the budget clock when told an earlier time', () => {
    const s = grant(createBudget(), 5_000, 'history');
    const r = onRateLimited(s, 1_000);
    expect(r.clock).toBe(5_000);
    expect(r.shrunkAt).toBe(5_000);
    expect(r.backoffUntil).toBe(6_000);
  });
});

describe('budget: usage and totals', () => {
  it('reports used, limit and remaining per pool, never a negative remainder', () => {
    let s = createBudget();
    for (let i = 0; i < 80; i++) s = grant(s, i, 'batchOrders'); // IP 5, UID 10 each
    s = grant(s, 80, 'placeOrder'); // IP 2, UID 5, order-rate capped
    const u = usage(s, 100);
    expect(u.ip).toEqual({ used: 402, limit: 900, remaining: 498 });
    expect(u.uid).toEqual({ used: 805, limit: 900, remaining: 95 });
    expect(u.orderRate).toEqual({ used: 1, limit: 9, remaining: 8 });
    expect(u.windowMs).toBe(10_000);
    expect(u.totals).toEqual({ ipWeight: 402, uidWeight: 805, requests: 81 });
    const shrunk = usage(onRateLimited(s, 100), 100);
    expect(shrunk.uid).toEqual({ used: 805, limit: 720, remaining: 0 });
    expect(shrunk.backoffMs).toBe(1_000);
    expect(usage(onRateLimited(s, 100), 5_000).backoffMs).toBe(0);
    // The order-rate window (1 s + 50 ms guard) empties long before the weight window.
    expect(usage(s, 80 + 1_050).orderRate.used).toBe(0);
    expect(usage(s, 80 + 1_049).orderRate.used).toBe(1);
  });

  it('a refused request changes no totals; zero-weight requests are granted and counted', () => {
    const s = createBudget();
    const free = { ipWeight: 0, uidWeight: 0, orderRateCapped: false };
    const r = tryConsume(s, 0, free);
    expect(r.granted).toBe(true);
    expect(r.state.totals).toEqual({ ipWeight: 0, uidWeight: 0, requests: 1 });
    const full = { ipWeight: 900, uidWeight: 0, orderRateCapped: false };
    const s2 = grant(s, 0, full);
    const refused = tryConsume(s2, 1, { ipWeight: 1, uidWeight: 0, orderRateCapped: false });
    expect(refused.granted).toBe(false);
    expect(refused.state.totals).toEqual({ ipWeight: 900, uidWeight: 0, requests: 1 });
    expect(refused.state.clock).toBe(1);
    // Only the pools a request weighs on can refuse it.
    expect(tryConsume(s2, 1, { ipWeight: 0, uidWeight: 5, orderRateCapped: false }).granted).toBe(true);
    const uidFull = grant(s, 0, { ipWeight: 0, uidWeight: 900, orderRateCapped: false });
    expect(tryConsume(uidFull, 1, { ipWeight: 5, uidWeight: 0, orderRateCapped: false }).granted).toBe(true);
    expect(tryConsume(uidFull, 1, { ipWeight: 0, uidWeight: 1, orderRateCapped: false }).granted).toBe(false);
  });

  it('waits out a back-off before anything else', () => {
    const s = onRateLimited(createBudget(), 1_000);
    const r = tryConsume(s, 1_200, 'tickers');
    expect(r.granted ? 0 : r.waitMs).toBe(800);
    expect(tryConsume(s, 2_000, 'tickers').granted).toBe(true);
  });

  it('a pool over its shrunk limit refuses only the requests that weigh on it', () => {
    const ipOnly = { ipWeight: 900, uidWeight: 0, orderRateCapped: false };
    const uidOnly = { ipWeight: 0, uidWeight: 900, orderRateCapped: false };
    // Each pool full at t = 0, then a 429: limits drop below what is already used.
    const ipFull = onRateLimited(grant(createBudget(), 0, ipOnly), 1);
    const uidFull = onRateLimited(grant(createBudget(), 0, uidOnly), 1);
    expect(usage(ipFull, 2_000).ip.used).toBeGreaterThan(usage(ipFull, 2_000).ip.limit);
    expect(tryConsume(ipFull, 2_000, { ipWeight: 0, uidWeight: 5, orderRateCapped: false }).granted).toBe(
      true,
    );
    expect(tryConsume(ipFull, 2_000, { ipWeight: 1, uidWeight: 0, orderRateCapped: false }).granted).toBe(
      false,
    );
    expect(tryConsume(uidFull, 2_000, { ipWeight: 5, uidWeight: 0, orderRateCapped: false }).granted).toBe(
      true,
    );
    expect(tryConsume(uidFull, 2_000, { ipWeight: 0, uidWeight: 1, orderRateCapped: false }).granted).toBe(
      false,
    );
  });
});
