// The weight budget and plan orders: plan_order, cancel_plan and currentPlan are charged their
// documented weights (from ENDPOINTS), plan_order and cancel_plan count toward the order-rate cap,
// and a flood of plan placements paced by the budget meets no 429 from the simulator (in-process,
// virtual time), while the same flood unpaced does.
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { RateLimitedError } from '../../src/core/errors.ts';
import { clientOid, symbolId } from '../../src/core/ids.ts';
import { costOf, createBudget, tryConsume, type BudgetState } from '../../src/execution/budget.ts';
import { SimPort } from '../../src/exchange/sim/sim-port.ts';
import { ticker } from '../exchange/sim/helpers.ts';

const BTC = symbolId('cmt_btcusdt');

describe('plan orders in the weight budget', () => {
  it('charges the documented weights and counts plan_order and cancel_plan toward the order-rate cap', () => {
    expect(costOf('planOrder')).toMatchObject({ ipWeight: 2, uidWeight: 5, orderRateCapped: true });
    expect(costOf('cancelPlan')).toMatchObject({ ipWeight: 2, uidWeight: 3, orderRateCapped: true });
    expect(costOf('currentPlan')).toMatchObject({ ipWeight: 3, uidWeight: 3, orderRateCapped: false });
    let s = createBudget();
    for (const e of ['planOrder', 'cancelPlan', 'currentPlan'] as const) {
      const r = tryConsume(s, 1000, e);
      expect(r.granted).toBe(true);
      s = r.state;
    }
    expect(s.totals).toEqual({ ipWeight: 7, uidWeight: 11, requests: 3 });
    // 9 of the venue's 10 order requests per second (safety margin 0.9): the 10th waits.
    let t = createBudget();
    for (let i = 0; i < 9; i++) {
      const r = tryConsume(t, 5000, i % 2 === 0 ? 'planOrder' : 'cancelPlan');
      expect(r.granted).toBe(true);
      t = r.state;
    }
    expect(tryConsume(t, 5000, 'planOrder').granted).toBe(false);
  });

  it('a flood of 600 plan placements (and cancels) paced by the budget meets 0 × 429; unpaced it meets 429s', async () => {
    const flood = async (paced: boolean): Promise<{ limited: number; sim: SimPort; state: BudgetState }> => {
      const clock = { t: 1_700_000_000_000, now: () => clock.t };
      const sim = new SimPort({ clock, seed: 9 });
      sim.applyTickers(clock.t, [ticker('cmt_btcusdt', '100.0', '100.1')]);
      let state = createBudget();
      let limited = 0;
      const send = async (
        endpoint: 'planOrder' | 'cancelPlan',
        run: () => Promise<unknown>,
      ): Promise<void> => {
        if (paced) {
          for (;;) {
            const r = tryConsume(state, clock.t, endpoint);
            state = r.state;
            if (r.granted) break;
            clock.t += r.waitMs;
          }
        } else {
          clock.t += 20;
        }
        try {
          await run();
        } catch (e) {
          if (!(e instanceof RateLimitedError)) throw e;
          limited++;
        }
      };
      for (let i = 0; i < 600; i++) {
        const oid = clientOid(`f${i}`);
        await send('planOrder', () =>
          sim.placePlan(BTC, {
            clientOid: oid,
            side: 'open_long',
            size: dec('0.01'),
            triggerPrice: dec('200'),
          }),
        );
        if (i % 3 === 0) await send('cancelPlan', () => sim.cancelPlan({ symbol: BTC, clientOid: oid }));
      }
      return { limited, sim, state };
    };
    const paced = await flood(true);
    expect(paced.limited).toBe(0);
    expect(paced.sim.stats().responses429).toBe(0);
    expect(paced.sim.stats().requests.byEndpoint['planOrder']).toBe(600);
    expect(paced.state.totals).toEqual({ ipWeight: 800 * 2, uidWeight: 600 * 5 + 200 * 3, requests: 800 });
    expect(paced.sim.stats().weightUsed).toEqual({ ip: 800 * 2, uid: 600 * 5 + 200 * 3 });
    const unpaced = await flood(false);
    expect(unpaced.limited).toBeGreaterThan(0);
  });
});
