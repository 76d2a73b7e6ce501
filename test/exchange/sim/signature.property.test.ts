// Only correctly signed requests are accepted: one changed byte anywhere in the signed material
// (query text, body text, timestamp) is refused with 40009, or 40005/40008 for the timestamp.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../../src/exchange/weex/signer.ts';
import { raw, SERVER_NOW, startSim, TEST_CREDS, type Started } from './helpers.ts';

let sim: Started;
beforeAll(async () => {
  // Generous limits: the property sends many requests at one server instant.
  sim = await startSim({
    limits: { ipWeightPerWindow: 1e6, uidWeightPerWindow: 1e6, orderRequestsPerSecond: 1e6 },
  });
});
afterAll(async () => {
  await sim.server.close();
});

const QUERY_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.=&';
const BODY_CHARS = `${QUERY_CHARS}{}[]:," `;

interface Case {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query: string;
  readonly body: string;
}

const cases: readonly Case[] = [
  { method: 'GET', path: '/capi/v2/order/fills', query: 'symbol=cmt_btcusdt&limit=10', body: '' },
  { method: 'GET', path: '/capi/v2/order/history', query: 'symbol=cmt_btcusdt&pageSize=5', body: '' },
  {
    method: 'POST',
    path: '/capi/v2/order/cancel_order',
    query: '',
    body: JSON.stringify({ symbol: 'cmt_btcusdt', clientOid: 'nope-1' }),
  },
  {
    method: 'POST',
    path: '/capi/v2/order/placeOrder',
    query: '',
    body: JSON.stringify({
      symbol: 'cmt_btcusdt',
      client_oid: 'sig',
      size: '0.01',
      type: '1',
      order_type: '0',
      match_price: '0',
      price: '50.0',
    }),
  },
];

function replaceAt(s: string, i: number, c: string): string {
  return s.slice(0, i) + c + s.slice(i + 1);
}

async function send(c: Case, ts: string, sentQuery: string, sentBody: string, signedTs = ts) {
  const h = signedHeaders(TEST_CREDS, {
    timestamp: signedTs,
    method: c.method,
    path: c.path,
    query: c.query,
    body: c.body,
  });
  const headers = { ...h, 'ACCESS-TIMESTAMP': ts };
  return raw(
    sim.url,
    c.method,
    sentQuery ? `${c.path}?${sentQuery}` : c.path,
    headers,
    c.method === 'POST' ? sentBody : undefined,
  );
}

const code = (r: { json: unknown }): string | undefined => (r.json as { code?: string } | undefined)?.code;
const AUTH_CODES = new Set([
  '40001',
  '40002',
  '40003',
  '40005',
  '40006',
  '40007',
  '40008',
  '40009',
  '40011',
  '40012',
]);

describe('signatures', () => {
  it('an untampered request passes authentication', async () => {
    for (const c of cases) {
      const r = await send(c, String(SERVER_NOW), c.query, c.body);
      expect(AUTH_CODES.has(code(r) ?? '')).toBe(false);
    }
  });

  it('tampering one byte of the query or body gives 40009', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...cases), fc.nat(), fc.nat(), async (c, pos, pick) => {
        const part = c.method === 'GET' ? 'query' : 'body';
        const text = part === 'query' ? c.query : c.body;
        const i = pos % text.length;
        const alphabet = part === 'query' ? QUERY_CHARS : BODY_CHARS;
        const ch = alphabet[pick % alphabet.length] ?? 'x';
        fc.pre(text[i] !== ch);
        const tampered = replaceAt(text, i, ch);
        const r = await send(
          c,
          String(SERVER_NOW),
          part === 'query' ? tampered : c.query,
          part === 'body' ? tampered : c.body,
        );
        expect(r.status).toBe(400);
        expect(code(r)).toBe('40009');
      }),
      { numRuns: 80 },
    );
  });

  it('tampering one character of the timestamp gives 40009, 40008 or 40005', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...cases),
        fc.integer({ min: 0, max: 12 }),
        fc.constantFrom(...'0123456789x. -'),
        async (c, i, ch) => {
          const ts = String(SERVER_NOW - 1234);
          fc.pre(ts[i] !== ch);
          const tampered = replaceAt(ts, i, ch);
          const r = await send(c, tampered, c.query, c.body, ts);
          const got = code(r);
          if (!/^\d{13}$/.test(tampered)) expect(got).toBe('40005');
          else if (Math.abs(Number(tampered) - SERVER_NOW) > 30_000) expect(got).toBe('40008');
          else expect(got).toBe('40009');
        },
      ),
      { numRuns: 80 },
    );
  });

  it('a signature over a different path or method is refused', async () => {
    const c = cases[0]!;
    const h = signedHeaders(TEST_CREDS, {
      timestamp: String(SERVER_NOW),
      method: 'GET',
      path: '/capi/v2/order/history',
      query: c.query,
      body: '',
    });
    const r = await raw(sim.url, 'GET', `${c.path}?${c.query}`, { ...h });
    expect(code(r)).toBe('40009');
  });
});
