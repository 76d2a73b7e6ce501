// Fault injection: profiles parse (YAML or JSON) with clear errors; every fault kind does what it
// says over HTTP, is counted in /sim/v1/stats, and is deterministic for a seed.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import {
  FaultInjector,
  LATE_SWEEP_MIN,
  loadFaultProfile,
  parseFaultProfile,
  type FaultProfile,
} from '../../../src/exchange/sim/faults.ts';
import type { SimStatsSnapshot } from '../../../src/exchange/sim/stats.ts';
import { signedHeaders } from '../../../src/exchange/weex/signer.ts';

type Stats = SimStatsSnapshot & { market: unknown };
import { polls, raw, SERVER_NOW, signed, startSim, TEST_CREDS } from './helpers.ts';

const PLACE = '/capi/v2/order/placeOrder';
const limitBuy = (oid: string, price = '99.0') => ({
  symbol: 'cmt_btcusdt',
  client_oid: oid,
  size: '0.01',
  type: '1',
  order_type: '0',
  match_price: '0',
  price,
});

/** Sends a signed request; a reset connection comes back as 'reset'. */
async function attempt(
  url: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  query = '',
): Promise<number | 'reset'> {
  const bodyText = body === undefined ? '' : JSON.stringify(body);
  const h = signedHeaders(TEST_CREDS, { timestamp: String(SERVER_NOW), method, path, query, body: bodyText });
  try {
    const r = await request(`${url}${path}${query ? `?${query}` : ''}`, {
      method,
      headers: { ...h },
      ...(method === 'POST' ? { body: bodyText } : {}),
    });
    await r.body.text();
    return r.statusCode;
  } catch {
    return 'reset';
  }
}

async function stats(url: string): Promise<{ faults: { total: number; byKind: Record<string, number> } }> {
  return (await raw(url, 'GET', '/sim/v1/stats')).json as {
    faults: { total: number; byKind: Record<string, number> };
  };
}

describe('fault profiles', () => {
  it('parse from YAML and JSON', () => {
    const yaml = `
seed: 9
faults:
  - kind: latency
    probability: 0.5
    minMs: 10
    maxMs: 50
  - kind: responseLost
    probability: 0.1
    endpoints: [placeOrder, batchOrders]
  - kind: serverError
    probability: 0.1
    status: 502
    afterProcessing: true
  - kind: staleHistory
    probability: 1
    lagMs: 5000
  - kind: lateFills
    probability: 0.3
    delayMs: 2000
`;
    const p = parseFaultProfile(yaml, 'f.yaml');
    expect(p.seed).toBe(9);
    expect(p.faults.map((f) => f.kind)).toEqual([
      'latency',
      'responseLost',
      'serverError',
      'staleHistory',
      'lateFills',
    ]);
    const j = parseFaultProfile(
      JSON.stringify({ faults: [{ kind: 'serverError', probability: 1 }] }),
      'f.json',
    );
    expect(j.faults[0]).toEqual({ kind: 'serverError', probability: 1, status: 503, afterProcessing: false });
  });

  it('refuse bad profiles with a ConfigError naming the file and the field', async () => {
    const bad = (text: string) => {
      try {
        parseFaultProfile(text, 'faults.yaml');
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad('faults: [{kind: latency, probability: 2, ms: 1}]')).toMatch(
      /^faults\.yaml: faults\.0\.probability/,
    );
    expect(bad('faults: [{kind: latency, probability: 1}]')).toContain('either `ms`');
    expect(bad('faults: [{kind: teleport, probability: 1}]')).toContain('faults.yaml');
    expect(bad('faults: [{kind: responseLost, probability: 1, endpoints: [nope]}]')).toContain('faults.0');
    expect(bad('faults: [{kind: staleHistory, probability: 1}]')).toContain('faults.yaml');
    expect(bad('faults: [{kind: rateLimited, probability: 1, extra: 1}]')).toContain('faults.yaml');
    expect(bad('{ not: yaml: [')).toContain('not valid YAML/JSON');
    const dir = await mkdtemp(join(tmpdir(), 'capibot-faults-'));
    await expect(loadFaultProfile(join(dir, 'missing.yaml'))).rejects.toBeInstanceOf(ConfigError);
    await writeFile(join(dir, 'ok.json'), '{"faults":[]}');
    expect(await loadFaultProfile(join(dir, 'ok.json'))).toEqual({ faults: [] });
  });

  it('decisions are deterministic by seed and follow the probabilities', () => {
    const profile: FaultProfile = {
      faults: [
        { kind: 'responseLost', probability: 0.3 },
        { kind: 'rateLimited', probability: 0.5 },
      ],
    };
    const run = (seed: number) => {
      const f = new FaultInjector(profile, seed);
      return Array.from({ length: 400 }, () => f.decide('placeOrder')).map(
        (d) => `${+d.responseLost}${+d.rateLimited}`,
      );
    };
    expect(run(1)).toEqual(run(1));
    expect(run(2)).not.toEqual(run(1));
    const lost = run(1).filter((x) => x[0] === '1').length;
    expect(lost).toBeGreaterThan(80);
    expect(lost).toBeLessThan(160);
  });
});

describe('late fills', () => {
  it('count each hidden fill once, and forget it once it shows: the injector holds the hidden ones', () => {
    const delayMs = 2_000;
    const f = new FaultInjector({ faults: [{ kind: 'lateFills', probability: 1, delayMs }] }, 1);
    // A fill every 10 ms for 200 s of market time, asked for when made and again 1 s later (hidden
    // both times), most never asked for again once they show.
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const t = i * 10;
      expect(f.fillVisible(`t${i}`, t, t)).toBe(false);
      expect(f.fillVisible(`t${i}`, t, t + 1_000)).toBe(false);
    }
    expect(f.counts().lateFills).toBe(n);
    // Hidden now: the fills of the last 2 s (200). Swept when the map doubles: at most twice that,
    // or LATE_SWEEP_MIN.
    const hiddenNow = delayMs / 10;
    expect(f.footprint().lateHidden).toBeLessThanOrEqual(Math.max(LATE_SWEEP_MIN, 2 * hiddenNow));
    // A fill seen shown leaves at once, and is never hidden (nor counted) again.
    const last = `t${n - 1}`;
    const made = (n - 1) * 10;
    const before = f.footprint().lateHidden ?? 0;
    expect(f.fillVisible(last, made, made + delayMs)).toBe(true);
    expect(f.footprint().lateHidden).toBe(before - 1);
    expect(f.fillVisible(last, made, made + delayMs + 1)).toBe(true);
    expect(f.counts().lateFills).toBe(n);
  });
});

describe('faults over HTTP', () => {
  it('responseLost: the order is placed, the connection is reset, the fault is counted', async () => {
    const s = await startSim({
      faults: { faults: [{ kind: 'responseLost', probability: 1, endpoints: ['placeOrder'] }] },
    });
    try {
      expect(await attempt(s.url, 'POST', PLACE, limitBuy('lost-1'))).toBe('reset');
      const orders = (await raw(s.url, 'GET', '/sim/v1/orders')).json as { client_oid: string }[];
      expect(orders.map((o) => o.client_oid)).toEqual(['lost-1']);
      // The retry a naive bot would send: refused as a duplicate client_oid.
      expect(await attempt(s.url, 'POST', PLACE, limitBuy('lost-1'))).toBe('reset');
      expect(((await raw(s.url, 'GET', '/sim/v1/orders')).json as unknown[]).length).toBe(1);
      expect((await stats(s.url)).faults.byKind['responseLost']).toBe(2);
    } finally {
      await s.server.close();
    }
  });

  it('resetBeforeProcessing: nothing is placed', async () => {
    const s = await startSim({
      faults: { faults: [{ kind: 'resetBeforeProcessing', probability: 1, endpoints: ['placeOrder'] }] },
    });
    try {
      expect(await attempt(s.url, 'POST', PLACE, limitBuy('rb-1'))).toBe('reset');
      expect((await raw(s.url, 'GET', '/sim/v1/orders')).json).toEqual([]);
      expect((await stats(s.url)).faults.byKind['resetBeforeProcessing']).toBe(1);
    } finally {
      await s.server.close();
    }
  });

  it('serverError: 5xx before processing (nothing placed) or after (placed)', async () => {
    const s = await startSim({
      faults: {
        faults: [
          {
            kind: 'serverError',
            probability: 1,
            endpoints: ['placeOrder'],
            status: 503,
            afterProcessing: false,
          },
          {
            kind: 'serverError',
            probability: 1,
            endpoints: ['batchOrders'],
            status: 500,
            afterProcessing: true,
          },
        ],
      },
    });
    try {
      const r = await signed(s.url, { method: 'POST', path: PLACE, body: limitBuy('se-1'), ts: SERVER_NOW });
      expect(r.status).toBe(503);
      expect(r.contentType).toBe('text/html');
      const b = await signed(s.url, {
        method: 'POST',
        path: '/capi/v2/order/batchOrders',
        body: { symbol: 'cmt_btcusdt', orderDataList: [{ ...limitBuy('se-2'), symbol: undefined }] },
        ts: SERVER_NOW,
      });
      expect(b.status).toBe(500);
      expect(b.json).toMatchObject({ status: 500, error: 'Internal Server Error' });
      const orders = (await raw(s.url, 'GET', '/sim/v1/orders')).json as { client_oid: string }[];
      expect(orders.map((o) => o.client_oid)).toEqual(['se-2']);
      expect((await stats(s.url)).faults.byKind['serverError']).toBe(2);
    } finally {
      await s.server.close();
    }
  });

  it('rateLimited: an injected 429 envelope, counted apart from the limiter', async () => {
    const s = await startSim({
      faults: { faults: [{ kind: 'rateLimited', probability: 1, endpoints: ['tickers'] }] },
    });
    try {
      const r = await raw(s.url, 'GET', '/capi/v2/market/tickers');
      expect(r.status).toBe(429);
      expect(r.json).toEqual({ code: '429', msg: 'Too many requests', requestTime: SERVER_NOW, data: null });
      const st = (await raw(s.url, 'GET', '/sim/v1/stats')).json as Stats;
      expect(st.faults.byKind.rateLimited).toBe(1);
      expect(st.rateLimited.total).toBe(0);
      expect(st.responses429).toBe(1);
    } finally {
      await s.server.close();
    }
  });

  it('latency: the injected sleep is awaited and counted', async () => {
    const slept: number[] = [];
    const s = await startSim({
      faults: { faults: [{ kind: 'latency', probability: 1, minMs: 10, maxMs: 20, endpoints: ['time'] }] },
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    try {
      for (let i = 0; i < 5; i++) expect((await raw(s.url, 'GET', '/capi/v2/market/time')).status).toBe(200);
      expect(slept).toHaveLength(5);
      expect(slept.every((ms) => ms >= 10 && ms <= 20)).toBe(true);
      expect((await stats(s.url)).faults.byKind['latency']).toBe(5);
    } finally {
      await s.server.close();
    }
  });

  it('staleHistory: history lags behind by lagMs of market time', async () => {
    const data = polls([0, -20, 0, 0, 0, 0, 0]);
    const s = await startSim({
      data,
      faults: { faults: [{ kind: 'staleHistory', probability: 1, lagMs: 3000 }] },
    });
    const history = async () =>
      (await signed(s.url, { method: 'GET', path: '/capi/v2/order/history', ts: SERVER_NOW })).json as {
        status: string;
      }[];
    try {
      await signed(s.url, { method: 'POST', path: PLACE, body: limitBuy('st-1', '99.5'), ts: SERVER_NOW });
      expect(await history()).toEqual([]); // created at t0, seen as of t0 − 3 s
      await raw(s.url, 'GET', '/capi/v2/market/tickers'); // t0
      await raw(s.url, 'GET', '/capi/v2/market/tickers'); // t0+1 s: fills
      expect(((await raw(s.url, 'GET', '/sim/v1/orders')).json as { status: string }[])[0]?.status).toBe(
        'filled',
      );
      for (let i = 0; i < 2; i++) await raw(s.url, 'GET', '/capi/v2/market/tickers'); // t0+3 s
      expect((await history()).map((o) => o.status)).toEqual(['open']);
      await raw(s.url, 'GET', '/capi/v2/market/tickers'); // t0+4 s
      expect((await history()).map((o) => o.status)).toEqual(['filled']);
      expect((await stats(s.url)).faults.byKind['staleHistory']).toBe(3);
    } finally {
      await s.server.close();
    }
  });

  it('duplicateRows: one history row comes twice', async () => {
    const s = await startSim({
      faults: { faults: [{ kind: 'duplicateRows', probability: 1, endpoints: ['history'] }] },
    });
    try {
      for (const oid of ['d-1', 'd-2', 'd-3'])
        await signed(s.url, { method: 'POST', path: PLACE, body: limitBuy(oid), ts: SERVER_NOW });
      const rows = (await signed(s.url, { method: 'GET', path: '/capi/v2/order/history', ts: SERVER_NOW }))
        .json as { order_id: string }[];
      expect(rows).toHaveLength(4);
      expect(new Set(rows.map((r) => r.order_id)).size).toBe(3);
      expect((await stats(s.url)).faults.byKind['duplicateRows']).toBe(1);
    } finally {
      await s.server.close();
    }
  });

  it('lateFills: a fill shows up in fills only after delayMs of market time', async () => {
    const s = await startSim({
      data: polls([0, 0, 0, 0]),
      faults: { faults: [{ kind: 'lateFills', probability: 1, delayMs: 2000 }] },
    });
    const fills = async () =>
      (
        (await signed(s.url, { method: 'GET', path: '/capi/v2/order/fills', ts: SERVER_NOW })).json as {
          list: unknown[];
        }
      ).list;
    try {
      await signed(s.url, { method: 'POST', path: PLACE, body: limitBuy('lf-1', '101.0'), ts: SERVER_NOW });
      expect(((await raw(s.url, 'GET', '/sim/v1/fills')).json as unknown[]).length).toBe(1);
      expect(await fills()).toEqual([]);
      await raw(s.url, 'GET', '/capi/v2/market/tickers');
      await raw(s.url, 'GET', '/capi/v2/market/tickers'); // +1 s
      expect(await fills()).toEqual([]);
      await raw(s.url, 'GET', '/capi/v2/market/tickers'); // +2 s
      expect(await fills()).toHaveLength(1);
      expect((await stats(s.url)).faults.byKind['lateFills']).toBe(1);
    } finally {
      await s.server.close();
    }
  });

  it('the same seed injects the same faults for the same request sequence', async () => {
    const profile: FaultProfile = {
      faults: [
        { kind: 'responseLost', probability: 0.3, endpoints: ['placeOrder'] },
        { kind: 'serverError', probability: 0.2, status: 502, afterProcessing: false },
        { kind: 'rateLimited', probability: 0.1 },
      ],
    };
    const outcomes = async (seed: number) => {
      const s = await startSim({ faults: profile, seed, limits: { orderRequestsPerSecond: 1000 } });
      try {
        const out: (number | 'reset')[] = [];
        for (let i = 0; i < 30; i++) {
          out.push(await attempt(s.url, 'POST', PLACE, limitBuy(`det-${i}`)));
          out.push(await attempt(s.url, 'GET', '/capi/v2/order/history'));
        }
        return { out, stats: (await stats(s.url)).faults };
      } finally {
        await s.server.close();
      }
    };
    const a = await outcomes(5);
    const b = await outcomes(5);
    expect(b).toEqual(a);
    expect(a.stats.total).toBeGreaterThan(0);
    expect(a.out.filter((x) => x === 'reset').length).toBe(a.stats.byKind['responseLost']);
    const c = await outcomes(6);
    expect(c.out).not.toEqual(a.out);
  });
});
