// Plan orders over loopback HTTP: the client against `capibot sim` (lockstep: each tickers request
// serves the next snapshot). Reply shapes on the wire, triggering, cancel, paging checks, the
// order-rate cap shared by plan_order and cancel_plan, weights, and a lost plan_order reply.
import { afterEach, describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { ENDPOINTS } from '../../../src/core/endpoints.ts';
import { BadInputError, OutcomeUnknownError } from '../../../src/core/errors.ts';
import { clientOid, symbolId } from '../../../src/core/ids.ts';
import type { FaultProfile } from '../../../src/exchange/sim/faults.ts';
import { WeexClient } from '../../../src/exchange/weex/client.ts';
import { polls, raw, signed, startSim, TEST_CREDS, type Started } from '../sim/helpers.ts';

const BTC = symbolId('cmt_btcusdt');
const PLAN = '/capi/v2/order/plan_order';
const CANCEL = '/capi/v2/order/cancel_plan';
const CURRENT = '/capi/v2/order/currentPlan';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** BTC last: 100.0, 101.0, 102.0, 99.0 (one snapshot per tickers request). */
async function open(faults?: FaultProfile): Promise<{ sim: Started; client: WeexClient }> {
  const sim = await startSim({ data: polls([0, 10, 10, -30]), ...(faults ? { faults } : {}) });
  const client = new WeexClient({
    baseUrl: sim.url,
    credentials: TEST_CREDS,
    clock: { now: () => sim.clock.now() },
    retry: { maxAttempts: 1 },
  });
  cleanups.push(async () => {
    await client.close();
    await sim.server.close();
  });
  await client.tickers();
  return { sim, client };
}

const body = (oid: string, trigger: string, extra: Record<string, string> = {}) => ({
  symbol: 'cmt_btcusdt',
  client_oid: oid,
  size: '0.01',
  type: '1',
  match_type: '1',
  execute_price: '0',
  trigger_price: trigger,
  ...extra,
});

describe('plan orders over HTTP (client → capibot sim)', () => {
  it('plan_order answers {client_oid, order_id}; the plan triggers as the market rises; rows as the fixtures', async () => {
    const { sim, client } = await open();
    const r = await signed(sim.url, {
      method: 'POST',
      path: PLAN,
      body: body('h1', '101.5'),
      ts: sim.clock.t,
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json as object)).toEqual(['client_oid', 'order_id']);
    expect(r.json).toMatchObject({ client_oid: 'h1', order_id: expect.stringMatching(/^\d{18}$/) });

    const cur = await signed(sim.url, {
      method: 'GET',
      path: CURRENT,
      query: 'symbol=cmt_btcusdt',
      ts: sim.clock.t,
    });
    expect(Array.isArray(cur.json)).toBe(true);
    expect((cur.json as Record<string, unknown>[])[0]).toMatchObject({
      client_oid: 'h1',
      status: '0',
      type: '1',
      triggerPrice: '101.5',
      triggerTime: '',
      presetTakeProfitPrice: null,
    });

    await client.tickers(); // 101.0
    expect((await client.currentPlans({ symbol: BTC })).plans).toHaveLength(1);
    await client.tickers(); // 102.0: fires
    expect((await client.currentPlans({ symbol: BTC })).plans).toHaveLength(0);
    const page = await client.planHistory({ symbol: BTC, startTime: 0, endTime: 4_000_000_000_000 });
    expect(page.nextPage).toBe(false);
    expect(page.plans[0]).toMatchObject({ clientOid: 'h1', status: 'filled', side: 'open_long' });
    expect(page.plans[0]?.filledQty.toFixed()).toBe('0.01');
    const child = (await client.history({ symbol: BTC })).find((o) => o.clientOid === 'h1');
    expect(child?.status).toBe('filled');
  });

  it('placePlan / cancelPlan / currentPlans through the port; cancel_plan reply shape; a second cancel is 50005', async () => {
    const { sim, client } = await open();
    const placed = await client.placePlan(BTC, {
      clientOid: clientOid('h2'),
      side: 'open_short',
      size: dec('0.01'),
      triggerPrice: dec('90'),
      executePrice: dec('89.5'),
    });
    expect(placed.outcome).toBe('accepted');
    const id = placed.outcome === 'accepted' ? placed.orderId : '';
    const rows = (await client.currentPlans({})).plans;
    expect(rows.map((p) => [p.orderId, p.side, p.price.toFixed(), p.orderType])).toEqual([
      [id, 'open_short', '89.5', '0'],
    ]);

    const c = await signed(sim.url, {
      method: 'POST',
      path: CANCEL,
      body: { symbol: 'cmt_btcusdt', orderId: id },
      ts: sim.clock.t,
    });
    expect(c.json).toEqual({ order_id: id, client_oid: 'h2', result: true, err_msg: null });
    const again = await client.cancelPlan({ symbol: BTC, clientOid: clientOid('h2') });
    expect(again).toMatchObject({ result: false, errCode: '50005' });
    const rawAgain = await signed(sim.url, {
      method: 'POST',
      path: CANCEL,
      body: { symbol: 'cmt_btcusdt', orderId: id },
      ts: sim.clock.t,
    });
    expect(rawAgain.status).toBe(400);
    expect(rawAgain.json).toMatchObject({ code: '50005', data: null });
  });

  it('refusals: a limit plan without execute_price, bad paging, a missing symbol — and client checks that send nothing', async () => {
    const { sim, client } = await open();
    const noPrice = await signed(sim.url, {
      method: 'POST',
      path: PLAN,
      body: body('h3', '120', { match_type: '0' }),
      ts: sim.clock.t,
    });
    expect(noPrice.json).toMatchObject({ code: '40020', msg: 'Parameter execute_price is invalid' });
    const bad = await signed(sim.url, { method: 'GET', path: CURRENT, query: 'limit=101', ts: sim.clock.t });
    expect(bad.json).toMatchObject({ code: '40020' });
    const hist = await signed(sim.url, {
      method: 'GET',
      path: '/capi/v2/order/historyPlan',
      ts: sim.clock.t,
    });
    expect(hist.json).toMatchObject({ code: '40019' });
    const before = (await raw(sim.url, 'GET', '/sim/v1/stats')).json as { requests: { total: number } };
    await expect(client.currentPlans({ limit: 101 })).rejects.toBeInstanceOf(BadInputError);
    await expect(
      client.placePlan(BTC, {
        clientOid: clientOid('bad oid'),
        side: 'open_long',
        size: dec(1),
        triggerPrice: dec(1),
      }),
    ).rejects.toBeInstanceOf(BadInputError);
    const after = (await raw(sim.url, 'GET', '/sim/v1/stats')).json as { requests: { total: number } };
    expect(after.requests.total).toBe(before.requests.total);
  });

  it('plan_order and cancel_plan share the 10 req/s order cap; weights are the documented ones', async () => {
    const { sim } = await open();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await signed(sim.url, {
        method: 'POST',
        path: PLAN,
        body: body(`r${i}`, '150'),
        ts: sim.clock.t,
      });
      statuses.push(r.status);
    }
    for (let i = 0; i < 5; i++) {
      const r = await signed(sim.url, {
        method: 'POST',
        path: CANCEL,
        body: { symbol: 'cmt_btcusdt', clientOid: `r${i}` },
        ts: sim.clock.t,
      });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([...new Array<number>(10).fill(200), 429]);
    const stats = (await raw(sim.url, 'GET', '/sim/v1/stats')).json as {
      weightUsed: { ip: number; uid: number };
    };
    const p = ENDPOINTS.planOrder;
    const c = ENDPOINTS.cancelPlan;
    expect([p.ipWeight, p.uidWeight, c.ipWeight, c.uidWeight, ENDPOINTS.currentPlan.uidWeight]).toEqual([
      2, 5, 2, 3, 3,
    ]);
    // tickers (IP 40) + 6 plan_order + 4 cancel_plan (the refused one charges nothing).
    expect(stats.weightUsed).toMatchObject({ ip: 40 + 6 * 2 + 4 * 2, uid: 6 * 5 + 4 * 3 });
  });

  it('a lost plan_order reply is OutcomeUnknownError, sent once; the plan exists at the venue', async () => {
    const { sim, client } = await open({
      faults: [{ kind: 'responseLost', probability: 1, endpoints: ['planOrder'] }],
    });
    await expect(
      client.placePlan(BTC, {
        clientOid: clientOid('lost1'),
        side: 'open_long',
        size: dec('0.01'),
        triggerPrice: dec(130),
      }),
    ).rejects.toBeInstanceOf(OutcomeUnknownError);
    const plans = (await raw(sim.url, 'GET', '/sim/v1/plans')).json as {
      client_oid: string;
      origin: string;
    }[];
    expect(plans.map((p) => [p.client_oid, p.origin])).toEqual([['lost1', 'plan']]);
    const stats = (await raw(sim.url, 'GET', '/sim/v1/stats')).json as {
      requests: { byEndpoint: Record<string, number> };
    };
    expect(stats.requests.byEndpoint['planOrder']).toBe(1);
  });
});
