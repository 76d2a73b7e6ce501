// Crash test with plan (trigger) orders in flight, end to end (issue #18): as crash-recovery.test.ts,
// with the churn strategy also placing plan orders a few dozen ticks from the last price (some fire
// and fill within seconds, others are still untriggered when the strategy cancels them or the runner
// is killed) and lost replies on plan_order and cancel_plan too. `capibot run` is SIGKILLed at seeded
// moments, restarted on the same store, and a last run stops gracefully. Then, against the
// simulator's /sim/v1/plans, /sim/v1/orders and /sim/v1/fills (test/helpers/venue-consistency.ts):
//   - no plan client_oid twice at the venue (a plan is never placed twice);
//   - every venue plan with our prefix known to the store (no orphan), with the right ids: the store's
//     `planOrderId ?? orderId` is the plan's id; a fired plan's `orderId` is its child's;
//   - store statuses consistent: untriggered ↔ untriggered, fired ↔ the child's status, ended
//     without a child ↔ canceled;
//   - every fill of a child in the store exactly once, attributed to the plan's client_oid;
//   - and everything crash-recovery.test.ts requires of the regular orders.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import {
  crashVenue,
  inspect,
  killAndRestart,
  paperRunConfigYaml,
  type WireFill,
  type WireOrder,
  type WirePlan,
} from '../helpers/capibot-processes.ts';
import { venueProblems } from '../helpers/venue-consistency.ts';

const SEED = 20_250_918;
const KILLS = 4;
const T0 = 1_764_482_511_000;

/** Lost replies on every placement and cancel, plans included; duplicated and stale history rows. */
const FAULTS = {
  faults: [
    {
      kind: 'responseLost',
      probability: 0.08,
      endpoints: ['placeOrder', 'batchOrders', 'cancelOrder', 'planOrder', 'cancelPlan'],
    },
    {
      kind: 'duplicateRows',
      probability: 0.2,
      endpoints: ['history', 'fills', 'historyPlan', 'currentPlan'],
    },
    { kind: 'staleHistory', probability: 0.2, lagMs: 500, endpoints: ['history', 'historyPlan'] },
  ],
};

describe('capibot run with plan orders in flight, killed with SIGKILL at random moments (end to end)', () => {
  const venue = crashVenue('crash-plans', { seed: SEED, t0: T0 }, FAULTS);

  it('restarts converge: no plan placed twice, no orphan, ids and statuses linked, fills once', async () => {
    const { dir, sim } = venue();
    const storePath = join(dir, 'store.sqlite');
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      paperRunConfigYaml({
        baseUrl: sim.url,
        storePath,
        strategyFile: resolve('test/fixtures/strategies/churn.ts'),
        params: '{ plans: true }',
        // Plan orders settle from plan rows only: poll them as often as order history.
        planHistoryMs: 800,
      }),
    );
    await killAndRestart(config, {
      kills: KILLS,
      seed: SEED + 1,
      minMs: 1_500,
      spreadMs: 3_000,
      lastRunS: 7,
    });

    const plans = await inspect<WirePlan[]>(sim.url, '/sim/v1/plans');
    const orders = await inspect<WireOrder[]>(sim.url, '/sim/v1/orders');
    const fills = await inspect<WireFill[]>(sim.url, '/sim/v1/fills');
    const store = new SqliteStore({ path: storePath, lease: false });
    try {
      const local = store.allOrders();
      const localFills = store.allFills();

      // The run did what the test is about: plans placed, some fired and filled, some canceled.
      const ours = plans.filter((p) => p.client_oid?.startsWith('cb-') === true);
      const fired = ours.filter((p) => p.childOrderId !== undefined);
      const children = new Set(fired.map((p) => p.childOrderId));
      expect(ours.length).toBeGreaterThan(4);
      expect(fired.length).toBeGreaterThan(0);
      expect(fills.filter((f) => children.has(f.orderId)).length).toBeGreaterThan(0);
      expect(ours.filter((p) => p.reason === 'canceled by request').length).toBeGreaterThan(0);
      expect(orders.length).toBeGreaterThan(8);

      const problems = venueProblems({ prefix: 'cb', orders, fills, plans, local, localFills });
      expect(problems).toEqual([]);
    } finally {
      store.close();
    }
  }, 60_000);
});
