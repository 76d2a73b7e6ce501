// The client over loopback HTTP: which headers go out, signatures over the exact bytes received,
// server-time sync and 40008 re-sync, core-type results, and input checks that send nothing.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { BadInputError, BadResponseError, ConfigError, ExchangeError } from '../../../src/core/errors.ts';
import { clientOid, orderId, symbolId } from '../../../src/core/ids.ts';
import { WeexClient, type WeexClientOptions } from '../../../src/exchange/weex/client.ts';
import {
  sendJson,
  startLocalServer,
  type Handler,
  type LocalServer,
  type RecordedRequest,
} from '../../helpers/local-server.ts';

const FIX = join(import.meta.dirname, '../../fixtures/weex-docs');
const fixture = (name: string): string => readFileSync(join(FIX, name), 'utf8');

const CREDS = { apiKey: 'key-1234567', secret: 's3cr3t-value', passphrase: 'pass-phrase-9' };
const SYMBOL = symbolId('cmt_btcusdt');
const P = {
  time: '/capi/v2/market/time',
  tickers: '/capi/v2/market/tickers',
  fills: '/capi/v2/order/fills',
  history: '/capi/v2/order/history',
  plan: '/capi/v2/order/historyPlan',
  place: '/capi/v2/order/placeOrder',
  batch: '/capi/v2/order/batchOrders',
  cancel: '/capi/v2/order/cancel_order',
} as const;

/** The server's clock runs this far ahead of the local one. */
const SERVER_AHEAD_MS = 45_000;

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** Answers market/time (server clock ahead), fixture texts per path, else `rest`. */
async function serve(routes: Partial<Record<string, string>>, rest?: Handler): Promise<LocalServer> {
  const s = await startLocalServer((req, res, n) => {
    if (req.path === P.time)
      return sendJson(res, 200, { epoch: '', iso: '', timestamp: Date.now() + SERVER_AHEAD_MS });
    const text = routes[req.path];
    if (text !== undefined) return sendJson(res, 200, text);
    if (rest) return rest(req, res, n);
    return sendJson(res, 404, { timestamp: '', status: 404, error: 'Not Found', path: req.path });
  });
  cleanups.push(() => s.close());
  return s;
}

function client(s: LocalServer, opts: Partial<WeexClientOptions> = {}): WeexClient {
  const c = new WeexClient({
    baseUrl: s.url,
    credentials: CREDS,
    timeouts: { connectMs: 1_000, headersMs: 2_000, bodyMs: 2_000 },
    sleep: () => Promise.resolve(),
    ...opts,
  });
  cleanups.push(() => c.close());
  return c;
}

/** Independent check: HMAC over the raw bytes as received (request target + body). */
function verifies(req: RecordedRequest, secret: string): boolean {
  const ts = String(req.headers['access-timestamp']);
  const message = Buffer.concat([Buffer.from(`${ts}${req.method}${req.url}`, 'utf8'), req.rawBody]);
  const expected = createHmac('sha256', secret).update(message).digest('base64');
  return req.headers['access-sign'] === expected;
}

const ACCESS = ['access-key', 'access-sign', 'access-passphrase', 'access-timestamp'];

describe('WeexClient headers and signatures', () => {
  it('public tickers go without any ACCESS-* header (and no time sync)', async () => {
    const s = await serve({ [P.tickers]: fixture('tickers.json') });
    const tickers = await client(s).tickers();
    expect(tickers[0]?.last.toFixed()).toBe('90755.3');
    expect(s.requests.map((r) => r.path)).toEqual([P.tickers]);
    const h = s.requests[0]!.headers;
    for (const name of ACCESS) expect(h[name]).toBeUndefined();
    expect(h['locale']).toBeUndefined();
  });

  it('signed GETs carry the headers, a 13-digit server-offset timestamp, and a signature over the exact bytes', async () => {
    const s = await serve({ [P.fills]: fixture('fills.18-digit-ids.json') });
    const c = client(s);
    const page = await c.fills({
      symbol: SYMBOL,
      orderId: orderId('719220560554361701'),
      startTime: 1,
      endTime: 2,
      limit: 100,
    });
    expect(page.fills.map((f) => f.tradeId)).toEqual(['719220560554361777', '9007199254740993123']);
    expect(page.nextFlag).toBe(true);
    expect(s.requests.map((r) => r.path)).toEqual([P.time, P.fills]);
    const req = s.to(P.fills)[0]!;
    expect(req.query).toBe('symbol=cmt_btcusdt&orderId=719220560554361701&startTime=1&endTime=2&limit=100');
    expect(req.headers['access-key']).toBe(CREDS.apiKey);
    expect(req.headers['access-passphrase']).toBe(CREDS.passphrase);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['locale']).toBe('en-US');
    const ts = Number(req.headers['access-timestamp']);
    expect(String(ts)).toMatch(/^\d{13}$/);
    expect(Math.abs(ts - (Date.now() + SERVER_AHEAD_MS))).toBeLessThan(5_000);
    expect(verifies(req, CREDS.secret)).toBe(true);
    expect(verifies(req, 'other-secret')).toBe(false);
  });

  it('signed POSTs sign the body bytes as sent; the time is synced only once', async () => {
    const s = await serve({
      [P.batch]: fixture('batchOrders.json'),
      [P.cancel]: fixture('cancel_order.json'),
    });
    const c = client(s);
    const entries = [
      {
        clientOid: clientOid('order12346'),
        side: 'open_long',
        orderType: 'normal',
        size: dec('0.0100'),
        price: dec('90000.5'),
      },
      { clientOid: clientOid('cb-mkt_2'), side: 'close_short', orderType: 'ioc', size: dec('1') },
    ] as const;
    const outcomes = await c.placeBatch(SYMBOL, entries);
    expect(outcomes[0]).toEqual({
      clientOid: 'order12346',
      outcome: 'accepted',
      orderId: '596476148997685805',
    });
    const cancel = await c.cancelOrder({ symbol: SYMBOL, clientOid: clientOid('cb-mkt_2') });
    expect(cancel.result).toBe(true);

    expect(s.to(P.time)).toHaveLength(1);
    const batch = s.to(P.batch)[0]!;
    expect(JSON.parse(batch.body)).toEqual({
      symbol: 'cmt_btcusdt',
      orderDataList: [
        {
          client_oid: 'order12346',
          size: '0.01',
          type: '1',
          order_type: '0',
          match_price: '0',
          price: '90000.5',
        },
        { client_oid: 'cb-mkt_2', size: '1', type: '4', order_type: '3', match_price: '1' },
      ],
    });
    expect(verifies(batch, CREDS.secret)).toBe(true);
    const cancelReq = s.to(P.cancel)[0]!;
    expect(JSON.parse(cancelReq.body)).toEqual({ symbol: 'cmt_btcusdt', clientOid: 'cb-mkt_2' });
    expect(verifies(cancelReq, CREDS.secret)).toBe(true);
  });

  it('after a 40008 it re-syncs the server time and resends once with a fresh timestamp', async () => {
    const s = await serve({}, (req, res, n) => {
      if (req.path !== P.place) return;
      if (n === 1)
        return sendJson(res, 400, {
          code: '40008',
          msg: 'Request timestamp expired',
          requestTime: 1,
          data: null,
        });
      sendJson(res, 200, fixture('placeOrder.echo-client-oid.json'));
    });
    const c = client(s);
    const outcome = await c.placeOrder(SYMBOL, {
      clientOid: clientOid('smt_tighten_1771475543800'),
      side: 'close_long',
      orderType: 'normal',
      size: dec('0.01'),
      price: dec('95000'),
    });
    expect(outcome).toEqual({
      clientOid: 'smt_tighten_1771475543800',
      outcome: 'accepted',
      orderId: '719220560554361701',
    });
    expect(s.requests.map((r) => r.path)).toEqual([P.time, P.place, P.time, P.place]);
    const [first, second] = s.to(P.place);
    expect(first!.body).toBe(second!.body);
    expect(verifies(second!, CREDS.secret)).toBe(true);
    expect(Math.abs(c.serverOffsetMs - SERVER_AHEAD_MS)).toBeLessThan(2_000);
  });
});

describe('WeexClient server time in on-40008 mode', () => {
  it('sends only the request itself; after a 40008 it measures the server time and resends', async () => {
    const s = await serve({}, (req, res, n) => {
      if (req.path !== P.fills) return;
      const ts = Number(req.headers['access-timestamp']);
      // The exchange's rule: more than 30 s away from its clock is expired.
      if (Math.abs(ts - (Date.now() + SERVER_AHEAD_MS)) > 30_000) {
        return sendJson(res, 400, {
          code: '40008',
          msg: 'Request timestamp expired',
          requestTime: 1,
          data: null,
        });
      }
      sendJson(res, 200, n === 2 ? fixture('fills.json') : '[]');
    });
    const c = client(s, { serverTimeSync: 'on-40008' });
    const page = await c.fills({});
    expect(page.fills).toHaveLength(1);
    expect(s.requests.map((r) => r.path)).toEqual([P.fills, P.time, P.fills]);
    await c.fills({});
    expect(s.requests.map((r) => r.path)).toEqual([P.fills, P.time, P.fills, P.fills]);
  });
});

describe('WeexClient results and outcomes', () => {
  it('history and plan history map into core types (numeric and word statuses)', async () => {
    const s = await serve({
      [P.history]: fixture('history.numeric-createTime.json'),
      [P.plan]: fixture('historyPlan.word-status.json'),
    });
    const c = client(s);
    const rows = await c.history({ symbol: SYMBOL, pageSize: 10, createDate: 7 });
    expect(rows[0]).toMatchObject({
      orderId: '719220560554361701',
      status: 'filled',
      createTime: 1771475543805,
    });
    expect(s.to(P.history)[0]!.query).toBe('symbol=cmt_btcusdt&pageSize=10&createDate=7');
    const plans = await c.planHistory({ symbol: SYMBOL, startTime: 1, endTime: 2, delegateType: 3 });
    expect(plans.plans[0]?.status).toBe('untriggered');
    expect(s.to(P.plan)[0]!.query).toBe('symbol=cmt_btcusdt&startTime=1&endTime=2&delegateType=3');
  });

  it('a 40015 business rejection of a placement is a rejected outcome; an auth error throws', async () => {
    const s = await serve({}, (req, res) => {
      if (req.path === P.place) return sendJson(res, 400, fixture('error-40015.live-message.json'));
      if (req.path === P.batch)
        return sendJson(res, 400, {
          code: '40009',
          msg: 'API verification failed',
          requestTime: 1,
          data: null,
        });
    });
    const c = client(s);
    const entry = {
      clientOid: clientOid('a1'),
      side: 'open_long',
      orderType: 'normal',
      size: dec('0.000114'),
      price: dec('1'),
    } as const;
    const r = await c.placeOrder(SYMBOL, entry);
    expect(r).toMatchObject({ outcome: 'rejected', code: '40015' });
    expect(r.outcome === 'rejected' && r.message).toContain('stepSize');
    await expect(c.placeBatch(SYMBOL, [entry])).rejects.toMatchObject({
      venueCode: '40009',
      category: 'auth',
    });
  });

  it('cancel of an order that is gone (50005) resolves result:false; the raw call throws not_found', async () => {
    const s = await serve({}, (req, res) =>
      sendJson(res, 400, { code: '50005', msg: 'Order does not exist', requestTime: 1, data: null }),
    );
    const c = client(s);
    expect(await c.cancelOrder({ symbol: SYMBOL, orderId: orderId('1') })).toEqual({
      orderId: '1',
      result: false,
      errCode: '50005',
      errMsg: 'Order does not exist',
    });
    const raw = c.rawCancelOrder({ symbol: SYMBOL, orderId: orderId('1') });
    await expect(raw).rejects.toBeInstanceOf(ExchangeError);
    await expect(raw).rejects.toMatchObject({ category: 'not_found' });
  });

  it('a reply of the wrong shape → BadResponseError naming the field, never a credential', async () => {
    const bad = JSON.parse(fixture('fills.bare-array.json')) as Record<string, unknown>[];
    bad[0]!['fillSize'] = 12;
    const s = await serve({ [P.fills]: JSON.stringify(bad) });
    const e = await client(s)
      .fills({})
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(BadResponseError);
    expect((e as BadResponseError).where).toBe('[0].fillSize');
    const text = `${(e as Error).message} ${JSON.stringify(e)}`;
    for (const v of Object.values(CREDS)) expect(text).not.toContain(v);
  });

  it('checks input before sending anything', async () => {
    const s = await serve({});
    const c = client(s);
    const bad: Promise<unknown>[] = [
      c.fills({ limit: 101 }),
      c.history({ createDate: 91 }),
      c.cancelOrder({ symbol: SYMBOL }),
      c.cancelOrder({ symbol: SYMBOL, orderId: orderId('1'), clientOid: clientOid('x') }),
      c.placeBatch(SYMBOL, []),
      c.placeBatch(
        SYMBOL,
        Array.from({ length: 21 }, (_, i) => ({
          clientOid: clientOid(`o${i}`),
          side: 'open_long' as const,
          orderType: 'normal' as const,
          size: dec('1'),
          price: dec('1'),
        })),
      ),
      c.placeOrder(SYMBOL, {
        clientOid: clientOid('x'.repeat(41)),
        side: 'open_long',
        orderType: 'normal',
        size: dec('1'),
      }),
      c.placeOrder(SYMBOL, {
        clientOid: clientOid('ok'),
        side: 'open_long',
        orderType: 'normal',
        size: dec('0'),
      }),
      c.placeOrder(SYMBOL, {
        clientOid: clientOid('ok'),
        side: 'open_long',
        orderType: 'normal',
        size: dec('1'),
        price: dec('-5'),
      }),
    ];
    for (const p of bad) await expect(p).rejects.toBeInstanceOf(BadInputError);
    expect(s.requests).toHaveLength(0);
  });

  it('a signed call without credentials is a ConfigError and sends nothing', async () => {
    const s = await serve({});
    const c = new WeexClient({ baseUrl: s.url });
    cleanups.push(() => c.close());
    await expect(c.fills({})).rejects.toBeInstanceOf(ConfigError);
    expect(s.requests).toHaveLength(0);
  });

  it('rejects a base URL with a path', () => {
    expect(() => new WeexClient({ baseUrl: 'http://127.0.0.1:1/prefix' })).toThrow(ConfigError);
    expect(() => new WeexClient({ baseUrl: 'ftp://x' })).toThrow(ConfigError);
  });
});
