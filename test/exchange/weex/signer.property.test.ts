// The signature equals an independent recomputation (node:crypto directly, written here from the
// documented rule) for arbitrary paths, queries and bodies.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { preHash, sign, signedHeaders, verifySignature } from '../../../src/exchange/weex/signer.ts';

/** Base64(HMAC-SHA256(secret, timestamp + METHOD + path + ("?" + query if any) + body)). */
function reference(
  secret: string,
  ts: string,
  method: string,
  path: string,
  query: string,
  body: string,
): string {
  const message = query === '' ? `${ts}${method}${path}${body}` : `${ts}${method}${path}?${query}${body}`;
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(message, 'utf8'))
    .digest('base64');
}

const timestamp = fc.integer({ min: 1_000_000_000_000, max: 9_999_999_999_999 }).map(String);
const segment = fc.stringMatching(/^[A-Za-z0-9_.~-]{1,20}$/);
const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/capi/v2/${s.join('/')}`);
const query = fc.oneof(
  fc.constant(''),
  fc
    .array(fc.tuple(segment, fc.string({ unit: 'grapheme', maxLength: 20 })), { minLength: 1, maxLength: 6 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')),
);
const body = fc.oneof(
  fc.constant(''),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ unit: 'grapheme' }),
);
const secret = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 64 });
const method = fc.constantFrom('GET' as const, 'POST' as const);

describe('signer (property)', () => {
  it('sign() equals an independent HMAC-SHA256/Base64 recomputation', () => {
    fc.assert(
      fc.property(secret, timestamp, method, path, query, body, (s, ts, m, p, q, b) => {
        const got = sign(s, { timestamp: ts, method: m, path: p, query: q, body: b });
        expect(got).toBe(reference(s, ts, m, p, q, b));
        expect(got).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      }),
      { numRuns: 500 },
    );
  });

  it('the pre-hash has a "?" exactly when there is a query', () => {
    fc.assert(
      fc.property(timestamp, method, path, query, body, (ts, m, p, q, b) => {
        const text = preHash({ timestamp: ts, method: m, path: p, query: q, body: b });
        expect(text.startsWith(`${ts}${m}${p}`)).toBe(true);
        expect(text.slice(ts.length + m.length + p.length).startsWith('?')).toBe(q !== '');
      }),
    );
  });

  it('signed headers carry the same timestamp and a verifiable signature; a changed byte fails', () => {
    fc.assert(
      fc.property(secret, timestamp, method, path, query, body, (s, ts, m, p, q, b) => {
        const input = { timestamp: ts, method: m, path: p, query: q, body: b };
        const h = signedHeaders({ apiKey: 'k', secret: s, passphrase: 'p' }, input, 'en-US');
        expect(h['ACCESS-TIMESTAMP']).toBe(ts);
        expect(h['Content-Type']).toBe('application/json');
        expect(verifySignature(s, input, h['ACCESS-SIGN'])).toBe(true);
        expect(verifySignature(s, { ...input, body: `${b} ` }, h['ACCESS-SIGN'])).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
