// The HTTP front door: shapes of every operation and every documented error code, over real HTTP
// on loopback with raw undici requests and the project's signer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLosslessJson } from '../../../src/exchange/weex/lossless-json.ts';
import {
  batchOrdersReplySchema,
  cancelOrderReplySchema,
  contractsSchema,
  fillsReplySchema,
  historySchema,
  placeOrderReplySchema,
  planHistoryReplySchema,
  tickersSchema,
  timeSchema,
} from '../../../src/exchange/weex/schemas.ts';
import type { SimStatsSnapshot } from '../../../src/exchange/sim/stats.ts';
import { signedHeaders } from '../../../src/exchange/weex/signer.ts';

type Stats = SimStatsSnapshot & { market: unknown };
import { polls, raw, SERVER_NOW, signed, startSim, TEST_CREDS, type Started } from './helpers.ts';

const P = {
  place: '/capi/v2/order/placeOrder',
  batch: '/capi/v2/order/batchOrders',
  cancel: '/capi/v2/order/cancel_order',
  fills: '/capi/v2/order/fills',
  history: '/capi/v2/order/history',
  plan: '/capi/v2/order/historyPlan',
  tickers: '/capi/v2/market/tickers',
  time: '/capi/v2/market/time',
  contracts: '/capi/v2/market/contracts',
};

const limitBuy = (oid: string, price = '90.0', size = '0.01') => ({
  symbol: 'cmt_btcusdt',
  client_oid: oid,
  size,
  type: '1',
  order_type: '0',
  match_price: '0',
  price,
});

function envelope(r: { status: number; json: unknown }, code: string, status = 400): void {
  expect(r.status).toBe(status);
  expect(r.json).toMatchObject({ code, requestTime: SERVER_NOW, data: null });
  expect(typeof (r.json as { msg: unknown }).msg).toBe('string');
}

let sim: Started;
const post = (path: string, body: unknown, ts = SERVER_NOW) =>
  signed(sim.url, { method: 'POST', path, body, ts });
const get = (path: string, query = '', ts = SERVER_NOW) =>
  signed(sim.url, { method: 'GET', path, query, ts });

beforeAll(async () => {
  sim = await startSim({ data: polls([0, -5, -10, 0, 20]), limits: { orderRequestsPerSecond: 1000 } });
});
afterAll(async () => {
  await sim.server.close();
});

describe('success shapes', () => {
  it('market endpoints are public and answer bare bodies', async () => {
    const t = await raw(sim.url, 'GET', P.time);
    expect(timeSchema.parse(t.json)).toEqual({
      epoch: '1800000000.000',
      iso: '2027-01-15T08:00:00.000Z',
      timestamp: SERVER_NOW,
    });
    const tk = await raw(sim.url, 'GET', P.tickers);
    expect(tickersSchema.parse(tk.json)[0]?.symbol).toBe('cmt_btcusdt');
    const c = await raw(sim.url, 'GET', `${P.contracts}?symbol=cmt_btcusdt`);
    expect(contractsSchema.parse(c.json)).toHaveLength(1);
    expect(c.json).toMatchObject([
      { symbol: 'cmt_btcusdt', size_increment: '4', tick_size: '1', priceEndStep: 1 },
    ]);
    envelope(await raw(sim.url, 'GET', `${P.contracts}?symbol=cmt_nope`), '40020');
  });

  it('placeOrder echoes client_oid with an 18-digit order id', async () => {
    const r = await post(P.place, limitBuy('shape-1'));
    expect(r.status).toBe(200);
    const body = placeOrderReplySchema.parse(r.json);
    expect(body.client_oid).toBe('shape-1');
    expect(body.order_id).toMatch(/^\d{18}$/);
    expect(r.text).toBe(`{"client_oid":"shape-1","order_id":"${body.order_id}"}`);
  });

  it('batchOrders answers per entry, with partial success', async () => {
    const r = await post(P.batch, {
      symbol: 'cmt_btcusdt',
      orderDataList: [
        { client_oid: 'b-1', size: '0.01', type: '1', order_type: '0', match_price: '0', price: '90.0' },
        { client_oid: 'b-2', size: '0.000114', type: '1', order_type: '0', match_price: '0', price: '90.0' },
        { client_oid: 'b-3', size: 'x', type: '1', order_type: '0', match_price: '0', price: '90.0' },
      ],
    });
    expect(r.status).toBe(200);
    const body = batchOrdersReplySchema.parse(r.json);
    expect(body.result).toBe(false);
    expect(body.order_info.map((e) => [e.client_oid, e.result, e.error_code])).toEqual([
      ['b-1', true, ''],
      ['b-2', false, '40015'],
      ['b-3', false, '40020'],
    ]);
    expect(body.order_info[1]?.error_message).toContain("stepSize '0.0001'");
    expect(body.order_info[2]?.error_message).toBe('Parameter orderDataList[2].size is invalid');
  });

  it('cancel_order answers the venue shape; an unknown or finished order is 50005', async () => {
    const placed = placeOrderReplySchema.parse((await post(P.place, limitBuy('c-1'))).json);
    const r = await post(P.cancel, { symbol: 'cmt_btcusdt', orderId: placed.order_id });
    expect(r.status).toBe(200);
    expect(cancelOrderReplySchema.parse(r.json)).toEqual({
      order_id: placed.order_id,
      client_oid: 'c-1',
      result: true,
      err_msg: null,
    });
    envelope(await post(P.cancel, { symbol: 'cmt_btcusdt', orderId: placed.order_id }), '50005');
    envelope(await post(P.cancel, { symbol: 'cmt_btcusdt', clientOid: 'never-placed' }), '50005');
    envelope(await post(P.cancel, { symbol: 'cmt_btcusdt' }), '40019');
  });

  it('fills carry every field; tradeId/orderId are 18-digit JSON numbers kept exact by a lossless parse', async () => {
    const placed = placeOrderReplySchema.parse(
      (await post(P.place, { ...limitBuy('f-1', '0', '0.002'), match_price: '1', price: undefined })).json,
    );
    const r = await get(P.fills, 'symbol=cmt_btcusdt&limit=10');
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/"tradeId":\d{18},"orderId":\d{18},/);
    const page = fillsReplySchema.parse(parseLosslessJson(r.text));
    const f = page.list.find((x) => x.orderId === placed.order_id);
    expect(f).toBeDefined();
    expect(Object.keys((parseLosslessJson(r.text) as { list: object[] }).list[0] ?? {})).toEqual([
      'tradeId',
      'orderId',
      'symbol',
      'marginMode',
      'separatedMode',
      'positionSide',
      'orderSide',
      'fillSize',
      'fillValue',
      'fillFee',
      'liquidateFee',
      'realizePnl',
      'direction',
      'liquidateType',
      'legacyOrdeDirection',
      'createdTime',
    ]);
    expect(f).toMatchObject({
      symbol: 'cmt_btcusdt',
      positionSide: 'LONG',
      orderSide: 'BUY',
      direction: 'OPEN_LONG',
      fillSize: '0.002',
    });
    expect(page.totals).toBeGreaterThanOrEqual(1);
    expect(page.nextFlag).toBe(false);
    envelope(await get(P.fills, 'limit=101'), '40020');
    envelope(await get(P.fills, 'startTime=5&endTime=4'), '40020');
    envelope(await get(P.fills, 'orderId=abc'), '40020');
  });

  it('history is a bare array with every history field, newest first, market orders as ioc / 0.0', async () => {
    const r = await get(P.history, 'symbol=cmt_btcusdt&pageSize=100');
    const rows = historySchema.parse(r.json);
    expect(rows.length).toBeGreaterThan(3);
    const first = (r.json as Record<string, unknown>[])[0] ?? {};
    expect(Object.keys(first)).toEqual([
      'symbol',
      'size',
      'client_oid',
      'createTime',
      'filled_qty',
      'fee',
      'order_id',
      'price',
      'price_avg',
      'status',
      'type',
      'order_type',
      'totalProfits',
      'contracts',
      'filledQtyContracts',
      'presetTakeProfitPrice',
      'presetStopLossPrice',
    ]);
    const market = (r.json as Record<string, unknown>[]).find((x) => x['client_oid'] === 'f-1');
    expect(market).toMatchObject({
      price: '0.0',
      order_type: 'ioc',
      status: 'filled',
      size: '0.002000',
      contracts: 2000,
    });
    const canceled = (r.json as Record<string, unknown>[]).find((x) => x['client_oid'] === 'c-1');
    expect(canceled).toMatchObject({ status: 'canceled', price: '90.0', price_avg: '0' });
    expect((await get(P.history, 'pageSize=1')).json).toHaveLength(1);
    expect((await get(P.history, 'limit=2')).json).toHaveLength(2);
    expect((await get(P.history, 'createDate=90')).json).toEqual(r.json);
    envelope(await get(P.history, 'createDate=91'), '40020');
    envelope(await get(P.history, 'createDate=-1'), '40020');
    envelope(await get(P.history, 'pageSize=0'), '40020');
  });

  it('historyPlan: symbol required, filters validated, an empty page', async () => {
    const r = await get(P.plan, 'symbol=cmt_btcusdt&startTime=1&endTime=2&delegateType=3&pageSize=10');
    expect(planHistoryReplySchema.parse(r.json)).toEqual({ list: [], nextPage: false });
    envelope(await get(P.plan, ''), '40019');
    envelope(await get(P.plan, 'symbol=cmt_btcusdt&delegateType=5'), '40020');
    envelope(await get(P.plan, 'symbol=cmt_btcusdt&pageSize=101'), '40020');
    envelope(await get(P.plan, 'symbol=zzz'), '40020');
  });
});

describe('error codes', () => {
  const base = () =>
    signedHeaders(TEST_CREDS, {
      timestamp: String(SERVER_NOW),
      method: 'GET',
      path: P.history,
      query: '',
      body: '',
    });
  const without = (name: string) => Object.fromEntries(Object.entries(base()).filter(([k]) => k !== name));

  it('missing headers: 40001 key, 40002 sign, 40003 timestamp, 40011 passphrase', async () => {
    envelope(await raw(sim.url, 'GET', P.history, without('ACCESS-KEY')), '40001');
    envelope(await raw(sim.url, 'GET', P.history, without('ACCESS-SIGN')), '40002');
    envelope(await raw(sim.url, 'GET', P.history, without('ACCESS-TIMESTAMP')), '40003');
    envelope(await raw(sim.url, 'GET', P.history, without('ACCESS-PASSPHRASE')), '40011');
    const r = await raw(sim.url, 'GET', P.history, without('ACCESS-KEY'));
    expect(r.json).toEqual({
      code: '40001',
      msg: 'Header "ACCESS_KEY" is required',
      requestTime: SERVER_NOW,
      data: null,
    });
  });

  it('timestamps: 40005 not 13 digits, 40008 outside ±30 s (both directions)', async () => {
    envelope(await get(P.history, '', Math.floor(SERVER_NOW / 1000)), '40005');
    envelope(
      await raw(sim.url, 'GET', P.history, { ...base(), 'ACCESS-TIMESTAMP': '17000000000x0' }),
      '40005',
    );
    envelope(await get(P.history, '', SERVER_NOW - 30_001), '40008');
    envelope(await get(P.history, '', SERVER_NOW + 30_001), '40008');
    expect((await get(P.history, '', SERVER_NOW - 30_000)).status).toBe(200);
    expect((await get(P.history, '', SERVER_NOW + 30_000)).status).toBe(200);
  });

  it('40006 wrong key, 40012 wrong passphrase, 40009 wrong signature', async () => {
    envelope(
      await signed(sim.url, {
        method: 'GET',
        path: P.history,
        ts: SERVER_NOW,
        creds: { ...TEST_CREDS, apiKey: 'other' },
      }),
      '40006',
    );
    envelope(
      await signed(sim.url, {
        method: 'GET',
        path: P.history,
        ts: SERVER_NOW,
        creds: { ...TEST_CREDS, passphrase: 'other' },
      }),
      '40012',
    );
    envelope(
      await signed(sim.url, {
        method: 'GET',
        path: P.history,
        ts: SERVER_NOW,
        creds: { ...TEST_CREDS, secret: 'other' },
      }),
      '40009',
    );
    const r = await signed(sim.url, {
      method: 'GET',
      path: P.history,
      ts: SERVER_NOW,
      creds: { ...TEST_CREDS, secret: 'other' },
    });
    expect((r.json as { msg: string }).msg).toBe('API verification failed');
  });

  it('40007 wrong content type on POST', async () => {
    const body = JSON.stringify(limitBuy('ct-1'));
    const h = signedHeaders(TEST_CREDS, {
      timestamp: String(SERVER_NOW),
      method: 'POST',
      path: P.place,
      query: '',
      body,
    });
    envelope(await raw(sim.url, 'POST', P.place, { ...h, 'Content-Type': 'text/plain' }, body), '40007');
    const ok = await raw(
      sim.url,
      'POST',
      P.place,
      { ...h, 'Content-Type': 'application/json; charset=utf-8' },
      body,
    );
    expect(ok.status).toBe(200);
  });

  it('40017 body not JSON or batch over 20 entries; 40019 empty parameter; 40020 invalid parameter', async () => {
    envelope(await post(P.place, '{not json'), '40017');
    envelope(await post(P.place, '[1,2]'), '40017');
    const entry = { size: '0.01', type: '1', order_type: '0', match_price: '0', price: '90.0' };
    const many = Array.from({ length: 21 }, (_, i) => ({ ...entry, client_oid: `big-${i}` }));
    const big = await post(P.batch, { symbol: 'cmt_btcusdt', orderDataList: many });
    envelope(big, '40017');
    expect((big.json as { msg: string }).msg).toContain('at most 20');
    envelope(await post(P.batch, { symbol: 'cmt_btcusdt', orderDataList: [] }), '40019');
    envelope(await post(P.place, { ...limitBuy('e-1'), symbol: undefined }), '40019');
    envelope(await post(P.place, { ...limitBuy('e-2'), price: undefined }), '40019');
    envelope(await post(P.place, { ...limitBuy('e-3'), symbol: 'cmt_nopeusdt' }), '40020');
    envelope(await post(P.place, { ...limitBuy('e-4'), type: '9' }), '40020');
    envelope(await post(P.place, { ...limitBuy('e-5'), client_oid: 'has space' }), '40020');
    const r = await post(P.place, { ...limitBuy('e-6'), symbol: 'cmt_nopeusdt' });
    expect(r.json).toEqual({
      code: '40020',
      msg: 'Parameter symbol is invalid',
      requestTime: SERVER_NOW,
      data: null,
    });
  });

  it('40015 business rejections: step size, duplicate client_oid', async () => {
    const r = await post(P.place, limitBuy('s-1', '90.0', '0.000114'));
    envelope(r, '40015');
    expect((r.json as { msg: string }).msg).toBe(
      "INVALID_ARGUMENT: The order size must be greater than 0 and matches the stepSize '0.0001' requirement. Current size is '0.000114'",
    );
    expect((await post(P.place, limitBuy('dup-1'))).status).toBe(200);
    envelope(await post(P.place, limitBuy('dup-1')), '40015');
  });

  it('unknown paths: 404 with a Spring-style body; wrong method: 405', async () => {
    const r = await raw(sim.url, 'GET', '/capi/v2/order/plan_orders');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      timestamp: '2027-01-15T08:00:00.000Z',
      status: 404,
      error: 'Not Found',
      path: '/capi/v2/order/plan_orders',
    });
    expect((await raw(sim.url, 'POST', P.tickers, {}, '')).status).toBe(405);
  });
});

describe('weights', () => {
  it('IP window: HTTP 429 with code "429" once the rolling 10 s weight is spent; it frees up as time passes', async () => {
    const s = await startSim({ limits: { ipWeightPerWindow: 100 } });
    try {
      expect((await raw(s.url, 'GET', P.tickers)).status).toBe(200); // 40
      expect((await raw(s.url, 'GET', P.tickers)).status).toBe(200); // 80
      const r = await raw(s.url, 'GET', P.tickers);
      expect(r.status).toBe(429);
      expect(r.json).toEqual({ code: '429', msg: 'Too many requests', requestTime: SERVER_NOW, data: null });
      expect((await raw(s.url, 'GET', P.time)).status).toBe(200); // 81: still fits
      s.clock.t += 10_001;
      expect((await raw(s.url, 'GET', P.tickers)).status).toBe(200);
      const stats = (await raw(s.url, 'GET', '/sim/v1/stats')).json as Stats;
      expect(stats.rateLimited).toEqual({ total: 1, byScope: { ip: 1, uid: 0, orderRate: 0 } });
      expect(stats.weightUsed).toEqual({ ip: 121, uid: 0 });
      expect(stats.responses429).toBe(1);
    } finally {
      await s.server.close();
    }
  });

  it('UID window and the 10 requests/second cap on placeOrder and cancel_order', async () => {
    const s = await startSim({ limits: { uidWeightPerWindow: 30 } });
    try {
      const q = (ts: number) => signed(s.url, { method: 'GET', path: P.history, ts });
      expect((await q(SERVER_NOW)).status).toBe(200);
      expect((await q(SERVER_NOW)).status).toBe(200);
      expect((await q(SERVER_NOW)).status).toBe(200);
      envelope(await q(SERVER_NOW), '429', 429);
    } finally {
      await s.server.close();
    }
    const o = await startSim();
    try {
      const codes: number[] = [];
      for (let i = 0; i < 11; i++) {
        const r = await signed(o.url, {
          method: 'POST',
          path: P.place,
          body: limitBuy(`r-${i}`),
          ts: SERVER_NOW,
        });
        codes.push(r.status);
      }
      expect(codes).toEqual([...Array<number>(10).fill(200), 429]);
      o.clock.t += 1000;
      expect(
        (await signed(o.url, { method: 'POST', path: P.place, body: limitBuy('r-x'), ts: o.clock.t })).status,
      ).toBe(200);
      const stats = (await raw(o.url, 'GET', '/sim/v1/stats')).json as Stats;
      expect(stats.rateLimited.byScope.orderRate).toBe(1);
      expect(stats.requests.byEndpoint['placeOrder']).toBe(12);
    } finally {
      await o.server.close();
    }
  });
});

describe('inspection API', () => {
  it('lists every order and fill in wire shapes (ids as strings) and the stats', async () => {
    const orders = (await raw(sim.url, 'GET', '/sim/v1/orders')).json as Record<string, unknown>[];
    expect(historySchema.parse(orders).length).toBe(orders.length);
    expect(orders.some((o) => o['client_oid'] === 'shape-1')).toBe(true);
    const fills = (await raw(sim.url, 'GET', '/sim/v1/fills')).json as Record<string, unknown>[];
    expect(fills.length).toBeGreaterThan(0);
    expect(typeof fills[0]?.['tradeId']).toBe('string');
    const stats = (await raw(sim.url, 'GET', '/sim/v1/stats')).json as Stats;
    expect(stats.requests.byEndpoint['placeOrder']).toBeGreaterThan(0);
    expect(stats.errors.byCode['40009']).toBeGreaterThan(0);
    expect(stats.market).toMatchObject({ mode: 'lockstep' });
    expect((await raw(sim.url, 'GET', '/sim/v1/nope')).status).toBe(404);
  });
});
