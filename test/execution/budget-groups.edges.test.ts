// consumeGroups at the edges the random property rarely reaches: no groups, a group exactly at the
// end of a back-off, pools over a shrunk limit with requests that do not weigh on them, and limits that
// recover between groups.
import { describe, expect, it } from 'vitest';
import { consumeGroups } from '../../src/execution/budget-groups.ts';
import {
  createBudget,
  onRateLimited,
  tryConsume,
  type BudgetState,
  type RequestCost,
} from '../../src/execution/budget.ts';

const cost = (ipWeight: number, uidWeight: number): RequestCost => ({
  ipWeight,
  uidWeight,
  orderRateCapped: false,
});

function granted(s: BudgetState, t: number, c: RequestCost): BudgetState {
  const r = tryConsume(s, t, c);
  if (!r.granted) throw new Error(`refused at ${t}`);
  return r.state;
}

describe('consumeGroups: edges', () => {
  it('grants nothing and keeps the state when there are no groups', () => {
    const s = createBudget();
    const r = consumeGroups(s, []);
    expect(r.granted).toBe(0);
    expect(r.state).toEqual(s);
  });

  it('grants a group exactly at the end of a back-off, not one ms before', () => {
    const s = onRateLimited(createBudget(), 1_000); // back-off until 2 000
    expect(consumeGroups(s, [{ at: 1_999, endpoints: ['tickers'] }]).granted).toBe(0);
    expect(consumeGroups(s, [{ at: 2_000, endpoints: ['tickers'] }]).granted).toBe(1);
  });

  it('a pool over its shrunk limit refuses only the requests that weigh on it', () => {
    const ipFull = onRateLimited(granted(createBudget(), 0, cost(900, 0)), 1);
    const uidFull = onRateLimited(granted(createBudget(), 0, cost(0, 900)), 1);
    expect(consumeGroups(ipFull, [{ at: 2_000, endpoints: [cost(0, 5)] }]).granted).toBe(1);
    expect(consumeGroups(ipFull, [{ at: 2_000, endpoints: [cost(1, 0)] }]).granted).toBe(0);
    expect(consumeGroups(uidFull, [{ at: 2_000, endpoints: [cost(5, 0)] }]).granted).toBe(1);
    expect(consumeGroups(uidFull, [{ at: 2_000, endpoints: [cost(0, 1)] }]).granted).toBe(0);
  });

  it('weighs each group against the limits at its own time, as they recover after a 429', () => {
    const s = onRateLimited(createBudget(), 0); // factor 0.8, back to 1 after 20 s
    const groups = [
      { at: 1_000, endpoints: [cost(700, 0)] }, // limit 729 at 1 s
      { at: 30_000, endpoints: [cost(850, 0)] }, // limit 900 at 30 s; the first has expired
    ];
    const r = consumeGroups(s, groups);
    expect(r.granted).toBe(2);
    expect(r.state.totals.ipWeight).toBe(1_550);
  });
});

describe('consumeGroups: the window boundary', () => {
  it('a request leaves the window between two groups exactly when tryConsume lets it go', () => {
    const config = { ipWeightPerWindow: 100, uidWeightPerWindow: 100, safetyMargin: 1 };
    // The first instant tryConsume grants again after a full pool at 0: the window's edge.
    const full = granted(createBudget(config), 0, cost(100, 100));
    let edge = 1;
    while (!tryConsume(full, edge, cost(1, 1)).granted) edge++;
    // Half the pool at 0; a first group at 1 keeps it live; a second group of ten fills (50) fits
    // only once the request at 0 has left the window (entries are first expired at the first group).
    const half = granted(createBudget(config), 0, cost(50, 50));
    const ten = new Array<'fills'>(10).fill('fills');
    const twoGroups = (at: number) =>
      consumeGroups(half, [
        { at: 1, endpoints: ['fills'] },
        { at, endpoints: ten },
      ]).granted;
    expect(twoGroups(edge - 1)).toBe(1);
    expect(twoGroups(edge)).toBe(2);
  });
});

describe('consumeGroups: a request that fills a pool to its limit exactly', () => {
  it('is granted on either pool, as tryConsume grants it', () => {
    const config = { ipWeightPerWindow: 100, uidWeightPerWindow: 100, safetyMargin: 1 };
    // fills weighs IP 5 / UID 5: 95 used leaves exactly its weight.
    for (const used of [cost(95, 0), cost(0, 95), cost(95, 95)]) {
      const s = granted(createBudget(config), 0, used);
      expect(tryConsume(s, 1, 'fills').granted).toBe(true);
      expect(consumeGroups(s, [{ at: 1, endpoints: ['fills'] }]).granted).toBe(1);
      const over = granted(s, 0, cost(1, 1));
      expect(consumeGroups(over, [{ at: 1, endpoints: ['fills'] }]).granted).toBe(0);
    }
  });
});
