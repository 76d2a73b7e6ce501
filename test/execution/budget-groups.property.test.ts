// consumeGroups (the backtest's way of charging the rounds a sleeping reconciliation loop slept
// through) must decide exactly as tryConsume per request would: same groups granted, same totals and
// clock, and a state that answers every later request the same.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, type EndpointId } from '../../src/core/endpoints.ts';
import { consumeGroups, type ChargeGroup } from '../../src/execution/budget-groups.ts';
import {
  createBudget,
  onRateLimited,
  tryConsume,
  usage,
  type BudgetState,
  type RequestCost,
} from '../../src/execution/budget.ts';

const ENDPOINT_IDS = Object.keys(ENDPOINTS) as EndpointId[];
const READS = ENDPOINT_IDS.filter((e) => !ENDPOINTS[e].orderRateCapped);

/** The reference: tryConsume per request; a group with a refused request is not granted, and stops. */
function oneByOne(
  state: BudgetState,
  groups: readonly ChargeGroup[],
): { granted: number; state: BudgetState } {
  let granted = 0;
  for (const g of groups) {
    let next = state;
    for (const e of g.endpoints) {
      const r = tryConsume(next, g.at, e);
      if (!r.granted) return { granted, state };
      next = r.state;
    }
    state = next;
    granted++;
  }
  return { granted, state };
}

const arbCost = (capped: boolean): fc.Arbitrary<EndpointId | RequestCost> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...(capped ? ENDPOINT_IDS : READS)) },
    {
      weight: 1,
      arbitrary: fc.record({
        ipWeight: fc.integer({ min: 0, max: 40 }),
        uidWeight: fc.integer({ min: 0, max: 40 }),
        orderRateCapped: capped ? fc.boolean() : fc.constant(false),
      }),
    },
  );

/** Gaps from none to several windows: rounds close together fill the window, long sleeps empty it. */
const arbGap = fc.oneof(
  fc.integer({ min: 0, max: 5 }),
  // Around the window (10 s plus the 50 ms guard): an entry expires exactly at its end.
  fc.constantFrom(3_350, 5_025, 10_049, 10_050, 10_051),
  fc.integer({ min: 0, max: 3_000 }),
  fc.integer({ min: 0, max: 60_000 }),
);

const arbCase = (capped: boolean) =>
  fc.record({
    ipLimit: fc.integer({ min: 100, max: 400 }),
    uidLimit: fc.integer({ min: 100, max: 400 }),
    before: fc.array(
      fc.record({ gap: arbGap, cost: arbCost(capped), rateLimited: fc.integer({ min: 0, max: 15 }) }),
      { maxLength: 60 },
    ),
    // Groups may start before the budget's clock (it never steps back).
    lead: fc.integer({ min: -2_000, max: 5_000 }),
    groups: fc.array(
      // A group may be empty (a plan round with no window due).
      fc.record({ gap: arbGap, endpoints: fc.array(arbCost(capped), { minLength: 0, maxLength: 4 }) }),
      { minLength: 1, maxLength: 120 },
    ),
    probes: fc.array(fc.record({ after: arbGap, cost: arbCost(true) }), { minLength: 1, maxLength: 6 }),
  });

type Case = ReturnType<typeof arbCase> extends fc.Arbitrary<infer T> ? T : never;

function check(c: Case): void {
  let state = createBudget({ ipWeightPerWindow: c.ipLimit, uidWeightPerWindow: c.uidLimit });
  let t = 1_700_000_000_000;
  for (const b of c.before) {
    t += b.gap;
    if (b.rateLimited === 0) state = onRateLimited(state, t);
    else {
      const r = tryConsume(state, t, b.cost);
      if (r.granted) state = r.state;
    }
  }
  let at = t + c.lead;
  const groups: ChargeGroup[] = c.groups.map((g) => {
    at += g.gap;
    return { at, endpoints: g.endpoints };
  });

  const want = oneByOne(state, groups);
  const got = consumeGroups(state, groups);
  expect(got.granted).toBe(want.granted);
  expect(got.state.totals).toEqual(want.state.totals);
  expect(got.state.clock).toBe(want.state.clock);

  // Every later request is answered alike.
  let a = want.state;
  let b = got.state;
  // From the last granted time on: a refused group's later time must not have expired anything.
  let now = Number.isFinite(a.clock) ? a.clock : at;
  for (const p of c.probes) {
    now += p.after;
    const ua = usage(a, now);
    const ub = usage(b, now);
    expect([ub.ip.used, ub.uid.used, ub.orderRate.used]).toEqual([
      ua.ip.used,
      ua.uid.used,
      ua.orderRate.used,
    ]);
    const ra = tryConsume(a, now, p.cost);
    const rb = tryConsume(b, now, p.cost);
    expect(rb.granted).toBe(ra.granted);
    if (!ra.granted && !rb.granted) expect(rb.waitMs).toBe(ra.waitMs);
    a = ra.state;
    b = rb.state;
  }
}

describe('budget: consumeGroups decides as tryConsume per request', () => {
  it('reads only (the one-pass window), from any prior state, through refusals and 429 back-offs', () => {
    fc.assert(fc.property(arbCase(false), check), { numRuns: 400 });
  });

  it('with order-rate-capped requests among them', () => {
    fc.assert(fc.property(arbCase(true), check), { numRuns: 150 });
  });

  it('a long quiet spell: thousands of rounds, only the last window of them enters the log', () => {
    const state = createBudget();
    const groups: ChargeGroup[] = [];
    for (let i = 0; i < 5_000; i++) groups.push({ at: 1_700_000_000_000 + i * 3_500, endpoints: ['fills'] });
    const got = consumeGroups(state, groups);
    expect(got.granted).toBe(5_000);
    expect(got.state.totals.requests).toBe(5_000);
    // 10 s window + 50 ms guard: the rounds of the last 10.05 s (3 of them) are still in it.
    expect(got.state.weights.end - got.state.weights.start).toBe(3);
    expect(usage(got.state, got.state.clock).ip.used).toBe(3 * ENDPOINTS.fills.ipWeight);
  });
});
