// Lockstep clock: every tickers request advances one recorded snapshot, so the same request sequence
// gives byte-identical responses; at the end of the data the last snapshot keeps being served.
import { describe, expect, it } from 'vitest';
import { raw, SERVER_NOW, signed, startSim, polls, type RawResponse } from './helpers.ts';

const place = (oid: string, type: string, price: string | undefined, size = '0.01') => ({
  symbol: 'cmt_btcusdt',
  client_oid: oid,
  size,
  type,
  order_type: '0',
  match_price: price === undefined ? '1' : '0',
  ...(price !== undefined ? { price } : {}),
});

/** A scripted session: orders, market steps, reads, refusals. Returns every response text. */
async function session(seed: number): Promise<string[]> {
  const s = await startSim({ data: polls([0, -3, -6, -9, 4, 12, 20]), seed });
  const out: string[] = [];
  const keep = (r: RawResponse) => out.push(`${r.status} ${r.text}`);
  const post = (path: string, body: unknown) => signed(s.url, { method: 'POST', path, body, ts: SERVER_NOW });
  const get = (path: string, query = '') => signed(s.url, { method: 'GET', path, query, ts: SERVER_NOW });
  try {
    keep(await raw(s.url, 'GET', '/capi/v2/market/tickers'));
    keep(await post('/capi/v2/order/placeOrder', place('a', '1', '99.6')));
    keep(await post('/capi/v2/order/placeOrder', place('b', '1', undefined, '0.02')));
    keep(
      await post('/capi/v2/order/batchOrders', {
        symbol: 'cmt_btcusdt',
        orderDataList: [place('c', '3', '101.5'), place('d', '2', '102.0')],
      }),
    );
    for (let i = 0; i < 8; i++) {
      keep(await raw(s.url, 'GET', '/capi/v2/market/tickers'));
      keep(await get('/capi/v2/order/fills', 'symbol=cmt_btcusdt'));
    }
    keep(await post('/capi/v2/order/cancel_order', { symbol: 'cmt_btcusdt', clientOid: 'd' }));
    keep(await post('/capi/v2/order/cancel_order', { symbol: 'cmt_btcusdt', clientOid: 'zz' }));
    keep(await get('/capi/v2/order/history', 'symbol=cmt_btcusdt'));
    keep(await post('/capi/v2/order/placeOrder', place('e', '1', '99.65')));
    keep(await raw(s.url, 'GET', '/sim/v1/orders'));
    keep(await raw(s.url, 'GET', '/sim/v1/stats'));
  } finally {
    await s.server.close();
  }
  return out;
}

describe('lockstep clock', () => {
  it('the same request sequence yields byte-identical responses', async () => {
    const a = await session(42);
    const b = await session(42);
    expect(b).toEqual(a);
    expect(a.join('\n')).toContain('"status":"filled"');
    const c = await session(43);
    expect(c).not.toEqual(a); // other ids
  });

  it('each tickers request advances one snapshot; the last one is served again at the end', async () => {
    const data = polls([0, 1, 2]);
    const s = await startSim({ data });
    try {
      const bids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await raw(s.url, 'GET', '/capi/v2/market/tickers');
        bids.push((r.json as { best_bid: string }[])[0]?.best_bid ?? '');
      }
      expect(bids).toEqual(['100.0', '100.1', '100.3', '100.3', '100.3']);
      const stats = (await raw(s.url, 'GET', '/sim/v1/stats')).json as { market: unknown };
      expect(stats.market).toEqual({ mode: 'lockstep', time: data[2]!.t, snapshotsApplied: 3, ended: true });
    } finally {
      await s.server.close();
    }
  });

  it('orders and fills carry recorded market time', async () => {
    const data = polls([0, -20]);
    const s = await startSim({ data });
    try {
      const body = place('t', '1', '99.5');
      await signed(s.url, { method: 'POST', path: '/capi/v2/order/placeOrder', body, ts: SERVER_NOW });
      await raw(s.url, 'GET', '/capi/v2/market/tickers');
      await raw(s.url, 'GET', '/capi/v2/market/tickers');
      const fills = (await raw(s.url, 'GET', '/sim/v1/fills')).json as { createdTime: number }[];
      expect(fills.map((f) => f.createdTime)).toEqual([data[1]!.t]);
      const orders = (await raw(s.url, 'GET', '/sim/v1/orders')).json as { createTime: string }[];
      expect(orders[0]?.createTime).toBe(String(data[0]!.t));
    } finally {
      await s.server.close();
    }
  });
});

describe('realtime clock', () => {
  it('maps recorded time onto the server clock × speed and catches up before each request', async () => {
    const data = polls([0, 1, 2, 3]);
    const s = await startSim({ data, clock: 'realtime', speed: 2 });
    const bid = async () =>
      ((await raw(s.url, 'GET', '/capi/v2/market/tickers')).json as { best_bid: string }[])[0]?.best_bid;
    try {
      expect(await bid()).toBe('100.0');
      s.clock.t += 499; // 998 ms of recording
      expect(await bid()).toBe('100.0');
      s.clock.t += 1; // 1000 ms
      expect(await bid()).toBe('100.1');
      s.clock.t += 10_000;
      expect(await bid()).toBe('100.6');
      const stats = (await raw(s.url, 'GET', '/sim/v1/stats')).json as {
        market: { ended: boolean; time: number };
      };
      expect(stats.market.ended).toBe(true);
      expect(stats.market.time).toBe(data[0]!.t + 21_000);
    } finally {
      await s.server.close();
    }
  });
});
