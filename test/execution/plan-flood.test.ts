// A flood of plan orders through the Executor (planner → plan_order, cancel_plan lane, budget) against
// the in-process simulator on virtual time: every plan goes out once, alone, charged its documented
// weights, and the venue answers no 429.
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { VirtualTime } from '../../src/engine/virtual-time.ts';
import { SimPort } from '../../src/exchange/sim/sim-port.ts';
import { createBudget } from '../../src/execution/budget.ts';
import { Executor } from '../../src/execution/executor.ts';
import { ticker } from '../exchange/sim/helpers.ts';
import { oid, placement, runUntilEmpty, silentLog } from '../helpers/executor-harness.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import { symbolId } from '../../src/core/ids.ts';

const BTC = symbolId('cmt_btcusdt');

describe('plan orders through the executor', () => {
  it('600 plans and 200 cancels of them meet 0 × 429 and cost exactly their weights', async () => {
    const vt = new VirtualTime(1_700_000_000_000);
    const sim = new SimPort({ clock: vt.clock, seed: 3 });
    sim.applyTickers(vt.now(), [ticker('cmt_btcusdt', '100.0', '100.1')]);
    const events: OrderEvent[] = [];
    const ex = new Executor({
      port: sim,
      clock: vt.clock,
      timers: vt.timers,
      budget: createBudget(),
      onOrderEvent: (e) => events.push(e),
      onFatal: (e) => {
        throw e;
      },
      log: silentLog,
    });
    for (let i = 0; i < 600; i++) {
      ex.submitPlacement(placement(BTC, i, { triggerPrice: dec('200') }));
      if (i % 50 === 49) {
        ex.endOfTick();
        await runUntilEmpty({ vt, ex });
      }
    }
    ex.endOfTick();
    await runUntilEmpty({ vt, ex });
    for (let i = 0; i < 600; i += 3) ex.submitCancel({ symbol: BTC, clientOid: oid(i), plan: true });
    await runUntilEmpty({ vt, ex });

    const stats = sim.stats();
    expect(stats.responses429).toBe(0);
    expect(stats.requests.byEndpoint['planOrder']).toBe(600);
    expect(stats.requests.byEndpoint['cancelPlan']).toBe(200);
    expect(stats.requests.byEndpoint['placeOrder'] ?? 0).toBe(0);
    expect(stats.requests.byEndpoint['batchOrders'] ?? 0).toBe(0);
    expect(stats.weightUsed).toEqual({ ip: 800 * 2, uid: 600 * 5 + 200 * 3 });
    expect(events.filter((e) => e.kind === 'OrderAccepted')).toHaveLength(600);
    expect(events.filter((e) => e.kind === 'CancelAccepted')).toHaveLength(200);
    expect(sim.core.plans.all().filter((p) => p.status === 'untriggered')).toHaveLength(400);
  });
});
