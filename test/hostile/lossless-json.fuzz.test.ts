// parseLosslessJson over arbitrary text and bytes, and the one place replies meet it
// (reply.ts interpretReply, called by the transport on every body). The parser itself may throw a
// SyntaxError (bad JSON) or a RangeError (nesting deeper than the stack): both are acceptable only
// because interpretReply turns every parse failure into a typed error, which is asserted here.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/core/endpoints.ts';
import { ExchangeError, OutcomeUnknownError, RateLimitedError } from '../../src/core/errors.ts';
import { parseLosslessJson } from '../../src/exchange/weex/lossless-json.ts';
import { interpretReply } from '../../src/exchange/weex/reply.ts';
import { arbitraryJsonText } from './support/near-miss.ts';
import { attempt, describeThrown, expectTypedOnly } from './support/typed.ts';

const REPLY_ERRORS = [OutcomeUnknownError, ExchangeError, RateLimitedError] as const;

/** Text as a hostile server sends it: random strings, random bytes decoded as UTF-8, JSON-ish pieces. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('utf8')),
  arbitraryJsonText,
  fc
    .array(
      fc.constantFrom(
        '{',
        '}',
        '[',
        ']',
        '"',
        ':',
        ',',
        '-',
        '0',
        '1',
        '9',
        'e',
        '.',
        'E',
        '+',
        'true',
        'null',
        ' ',
        '\\',
        'u',
      ),
      {
        maxLength: 80,
      },
    )
    .map((parts) => parts.join('')),
  // A valid JSON text cut short (a truncated body).
  fc.tuple(arbitraryJsonText, fc.nat()).map(([t, n]) => t.slice(0, t.length === 0 ? 0 : n % t.length)),
);

describe('parseLosslessJson on arbitrary input', () => {
  it('returns a value or throws SyntaxError / RangeError (stack depth), nothing else', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const r = attempt(() => parseLosslessJson(text));
        if (r.ok) return;
        const ok = r.error instanceof SyntaxError || r.error instanceof RangeError;
        expect(ok, describeThrown(r.error)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with JSON.parse on which texts are JSON (except duplicate keys it refuses)', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const lossless = attempt(() => parseLosslessJson(text));
        const native = attempt(() => JSON.parse(text) as unknown);
        if (lossless.ok) expect(native.ok, `lossless accepted what JSON.parse refuses: ${text}`).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('nesting far deeper than the stack is an error, not a crash of the process', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const r = attempt(() => parseLosslessJson(deep));
    if (!r.ok) expect(r.error instanceof SyntaxError || r.error instanceof RangeError).toBe(true);
  });
});

describe('interpretReply (the transport path that calls parseLosslessJson)', () => {
  const statuses = fc.oneof(
    fc.constantFrom(200, 201, 204, 400, 401, 403, 404, 418, 429, 500, 502, 503, 504),
    fc.integer({ min: 100, max: 599 }),
  );
  const contentTypes = fc.oneof(
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/problem+json',
      'text/html',
      'text/plain',
      'APPLICATION/JSON',
      '',
      ';',
      'application/jsonx',
    ),
    fc.string({ maxLength: 40 }),
    fc.constant(undefined),
  );
  const retryAfter = fc.oneof(
    fc.constant(undefined),
    fc.string({ maxLength: 12 }),
    fc.constantFrom('1', '-1', 'NaN', '1e400', '99999999999'),
  );

  it('any status, content type and body → a payload or a typed error', () => {
    const endpoints = Object.values(ENDPOINTS);
    fc.assert(
      fc.property(
        statuses,
        contentTypes,
        retryAfter,
        hostileText,
        fc.nat({ max: endpoints.length - 1 }),
        (status, contentType, ra, text, ei) => {
          const endpoint = endpoints[ei]!.id;
          const o = attempt(() =>
            interpretReply(
              endpoint,
              { status, contentType, retryAfter: ra, text },
              { defaultRetryAfterMs: 1_000 },
            ),
          );
          expectTypedOnly(o, REPLY_ERRORS);
          if (!o.ok && o.error instanceof RateLimitedError) {
            expect(Number.isFinite(o.error.retryAfterMs) && o.error.retryAfterMs >= 0).toBe(true);
          }
          if (!o.ok && o.error instanceof Error) expect(o.error.message.length).toBeLessThan(1_000);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a 2xx whose body does not parse is always outcome-unknown (never a payload)', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        if (attempt(() => parseLosslessJson(text)).ok) return;
        const o = attempt(() =>
          interpretReply(
            'placeOrder',
            { status: 200, contentType: 'application/json', retryAfter: undefined, text },
            {
              defaultRetryAfterMs: 1_000,
            },
          ),
        );
        expect(o.ok).toBe(false);
        expectTypedOnly(o, [OutcomeUnknownError]);
      }),
      { numRuns: 300 },
    );
  });
});
