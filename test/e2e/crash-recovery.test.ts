// Crash test, end to end (ARCHITECTURE.md invariant 10): `capibot run` trades an aggressive strategy
// against `capibot sim --clock realtime` (child processes, real HTTP) and is killed with SIGKILL at
// seeded random moments, four times, each time restarted on the same store; a last run stops
// gracefully. Then the store must agree with the simulator's inspection API:
//   - no client_oid twice at the exchange (nothing was ever placed twice);
//   - no exchange order with our prefix missing from the store (no orphan), same order id and status;
//   - no store order that claims to be at the exchange but is not;
//   - every exchange fill in the store exactly once, attributed to the right client_oid.
// The recording is dated a year before the wall clock, so the run must keep the venue's time from
// its tickers (history and fills windows computed from the wall clock would find nothing).
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
} from '../helpers/capibot-processes.ts';
import { venueProblems } from '../helpers/venue-consistency.ts';

const SEED = 20_240_719;
const KILLS = 4;
const T0 = 1_764_482_511_000;

/** Mild faults on top of the kills: lost replies (orders that exist but were never acknowledged), dup rows. */
const FAULTS = {
  faults: [
    { kind: 'responseLost', probability: 0.05, endpoints: ['placeOrder', 'batchOrders', 'cancelOrder'] },
    { kind: 'duplicateRows', probability: 0.2 },
    { kind: 'staleHistory', probability: 0.2, lagMs: 500 },
  ],
};

describe('capibot run killed with SIGKILL at random moments (end to end)', () => {
  const venue = crashVenue('crash', { seed: SEED, t0: T0 }, FAULTS);

  it('restarts converge: no duplicate, no orphan, no lost or double-counted fill', async () => {
    const { dir, sim } = venue();
    const storePath = join(dir, 'store.sqlite');
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      paperRunConfigYaml({
        baseUrl: sim.url,
        storePath,
        strategyFile: resolve('test/fixtures/strategies/churn.ts'),
      }),
    );
    // Killed anywhere from start-up (recovery) to well into trading.
    await killAndRestart(config, {
      kills: KILLS,
      seed: SEED + 1,
      minMs: 1_200,
      spreadMs: 3_300,
      lastRunS: 6,
    });

    const orders = await inspect<WireOrder[]>(sim.url, '/sim/v1/orders');
    const fills = await inspect<WireFill[]>(sim.url, '/sim/v1/fills');
    const store = new SqliteStore({ path: storePath, lease: false });
    try {
      const local = store.allOrders();
      const localFills = store.allFills();

      // The run did trade: orders, fills and restarts all happened.
      expect(orders.length).toBeGreaterThan(8);
      expect(fills.length).toBeGreaterThan(3);
      expect(local.filter((o) => o.triggerPrice !== undefined)).toEqual([]);

      const problems = venueProblems({ prefix: 'cb', orders, fills, local, localFills });
      expect(problems).toEqual([]);
    } finally {
      store.close();
    }
  }, 60_000);
});
