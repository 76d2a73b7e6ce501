// Reply classification (pure): statuses, content types, envelopes, the venue-code table.
import { describe, expect, it } from 'vitest';
import {
  BadInputError,
  ExchangeError,
  OutcomeUnknownError,
  RateLimitedError,
  TransportError,
} from '../../../src/core/errors.ts';
import { interpretReply, type RawReply } from '../../../src/exchange/weex/reply.ts';
import { classifyNetworkError } from '../../../src/exchange/weex/transport.ts';
import { VENUE_ERRORS, classifyVenueCode } from '../../../src/exchange/weex/venue-errors.ts';

const JSON_CT = 'application/json;charset=UTF-8';
/** `contentType` null: no Content-Type header at all. */
const reply = (
  status: number,
  text: string,
  contentType: string | null = JSON_CT,
  retryAfter?: string,
): RawReply => ({
  status,
  text,
  contentType: contentType ?? undefined,
  retryAfter,
});
const run = (r: RawReply): unknown => interpretReply('fills', r, { defaultRetryAfterMs: 1234 });
const thrown = (r: RawReply): unknown => {
  try {
    run(r);
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
};

describe('interpretReply', () => {
  it('returns bare JSON payloads (lossless)', () => {
    expect(run(reply(200, '{"list":[],"id":719220560554361701}'))).toEqual({
      list: [],
      id: '719220560554361701',
    });
  });

  it('error envelope with HTTP 400 → ExchangeError with its category', () => {
    const e = thrown(
      reply(
        400,
        '{"code":"40020","msg":"Parameter symbol is invalid","requestTime":1765776928145,"data":null}',
      ),
    );
    expect(e).toBeInstanceOf(ExchangeError);
    expect(e).toMatchObject({
      venueCode: '40020',
      category: 'parameter',
      httpStatus: 400,
      endpoint: 'fills',
      retry: 'never',
    });
  });

  it('error envelope on HTTP 200 and numeric codes are recognised too', () => {
    expect(
      thrown(reply(200, '{"code":50005,"msg":"Order does not exist","requestTime":1,"data":null}')),
    ).toMatchObject({
      venueCode: '50005',
      category: 'not_found',
    });
  });

  it('HTTP 429, and envelope code "429", → RateLimitedError', () => {
    const a = thrown(reply(429, '{"code":"429","msg":"Too many requests"}', JSON_CT, '2'));
    expect(a).toBeInstanceOf(RateLimitedError);
    expect((a as RateLimitedError).retryAfterMs).toBe(2000);
    const b = thrown(reply(400, '{"code":"429","msg":"Too many requests","requestTime":1,"data":null}'));
    expect(b).toBeInstanceOf(RateLimitedError);
    expect((b as RateLimitedError).retryAfterMs).toBe(1234);
    expect(thrown(reply(429, '<html>slow down</html>', 'text/html'))).toBeInstanceOf(RateLimitedError);
  });

  it('5xx (even with a JSON body) → OutcomeUnknownError with the status', () => {
    for (const status of [500, 502, 503, 504, 521]) {
      const e = thrown(reply(status, '<html><body>Bad Gateway</body></html>', 'text/html'));
      expect(e).toBeInstanceOf(OutcomeUnknownError);
      expect((e as OutcomeUnknownError).httpStatus).toBe(status);
    }
  });

  it('200 with HTML, wrong or missing content type, or a truncated body → OutcomeUnknownError', () => {
    expect(thrown(reply(200, '<html>maintenance</html>', 'text/html'))).toBeInstanceOf(OutcomeUnknownError);
    expect(thrown(reply(200, '{"list":[]}', 'text/plain'))).toBeInstanceOf(OutcomeUnknownError);
    expect(thrown(reply(200, '{"list":[]}', null))).toBeInstanceOf(OutcomeUnknownError);
    expect(thrown(reply(200, '{"list":[{"tradeId":1'))).toBeInstanceOf(OutcomeUnknownError);
    expect(thrown(reply(200, ''))).toBeInstanceOf(OutcomeUnknownError);
    expect(thrown(reply(301, ''))).toBeInstanceOf(OutcomeUnknownError);
  });

  it('accepts +json media types', () => {
    expect(run(reply(200, '[]', 'application/problem+json'))).toEqual([]);
  });

  it('HTTP 404 with a Spring body → ExchangeError not_found', () => {
    const e = thrown(
      reply(
        404,
        '{"timestamp":"2026-02-19T04:32:23.817+00:00","status":404,"error":"Not Found","path":"/capi/v2/x"}',
      ),
    );
    expect(e).toMatchObject({ venueCode: 'HTTP_404', category: 'not_found', httpStatus: 404 });
    expect((e as Error).message).toContain('/capi/v2/x');
  });

  it('4xx without an envelope → ExchangeError classified by status', () => {
    expect(thrown(reply(403, '<html>forbidden</html>', 'text/html'))).toMatchObject({
      category: 'permission',
      httpStatus: 403,
    });
    expect(thrown(reply(401, ''))).toMatchObject({ category: 'auth' });
    expect(thrown(reply(409, 'x', 'text/plain'))).toMatchObject({ category: 'unknown' });
  });

  it('venue messages become one bounded, scrubbed line', () => {
    const e = interpretReplyError(
      '{"code":"40009","msg":"bad\\nsig for KEY123 ' + 'x'.repeat(400) + '","data":null}',
    );
    expect(e.message).not.toContain('\n');
    expect(e.message).not.toContain('KEY123');
    expect(e.venueMessage.length).toBeLessThanOrEqual(301);
  });
});

function interpretReplyError(text: string): ExchangeError {
  try {
    interpretReply('fills', reply(400, text), {
      defaultRetryAfterMs: 1,
      redact: (t) => t.split('KEY123').join('[redacted]'),
    });
  } catch (err) {
    if (err instanceof ExchangeError) return err;
    throw err;
  }
  throw new Error('expected an ExchangeError');
}

describe('venue error table', () => {
  it('classifies every documented code, and unknown codes as unknown', () => {
    const documented = [
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
      '40013',
      '40014',
      '40015',
      '40016',
      '40017',
      '40018',
      '40019',
      '40020',
      '40022',
      '50003',
      '50004',
      '50005',
      '50007',
      '40753',
      '40021',
      '40912',
      '40913',
    ];
    for (const c of documented) expect(VENUE_ERRORS[c], c).toBeDefined();
    expect(classifyVenueCode('40009').category).toBe('auth');
    expect(classifyVenueCode('40014').category).toBe('permission');
    expect(classifyVenueCode('40022')).toEqual({ category: 'permission', retry: 'never' });
    expect(VENUE_ERRORS['40022']?.httpStatus).toBe(403);
    expect(classifyVenueCode('40017').category).toBe('parameter');
    expect(classifyVenueCode('40015').category).toBe('business');
    expect(classifyVenueCode('50005').category).toBe('not_found');
    expect(classifyVenueCode('40008')).toEqual({ category: 'auth', retry: 'retryable' });
    expect(classifyVenueCode('99999')).toEqual({ category: 'unknown', retry: 'never' });
    expect(classifyVenueCode('toString')).toEqual({ category: 'unknown', retry: 'never' });
  });
});

describe('classifyNetworkError', () => {
  const withCode = (code: string): Error => Object.assign(new Error(code), { code });
  it('errors that prove nothing was sent → TransportError', () => {
    for (const c of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']) {
      expect(classifyNetworkError(withCode(c), 'fills')).toBeInstanceOf(TransportError);
    }
    const aggregate = Object.assign(
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]),
      {},
    );
    expect(classifyNetworkError(aggregate, 'fills')).toBeInstanceOf(TransportError);
  });
  it('everything else → OutcomeUnknownError; capibot errors pass through', () => {
    for (const c of [
      'UND_ERR_HEADERS_TIMEOUT',
      'UND_ERR_BODY_TIMEOUT',
      'UND_ERR_SOCKET',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
    ]) {
      expect(classifyNetworkError(withCode(c), 'placeOrder')).toBeInstanceOf(OutcomeUnknownError);
    }
    expect(classifyNetworkError(new Error('no code'), 'x')).toBeInstanceOf(OutcomeUnknownError);
    expect(classifyNetworkError(new DOMException('aborted', 'AbortError'), 'x')).toBeInstanceOf(
      OutcomeUnknownError,
    );
    const bad = new BadInputError('x');
    expect(classifyNetworkError(bad, 'x')).toBe(bad);
  });
});
