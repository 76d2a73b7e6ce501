// Authentication of signed capi/v2 requests as the venue checks it (weex-facts.md §2, §11): header
// presence (40001/40002/40003/40011), a 13-digit millisecond timestamp (40005) within ±30 s of server
// time (40008), the key (40006) and passphrase (40012), the POST content type (40007), and finally the
// signature (40009) recomputed over the exact query text and body text received. Pure.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { VENUE_LIMITS } from '../../core/endpoints.ts';
import { verifySignature, type Credentials } from '../weex/signer.ts';
import { REJECT, type VenueReject } from './venue-errors.ts';

export interface SignedRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** Raw text after `?`, exactly as received; empty for none. */
  readonly query: string;
  /** Raw body text as received; empty for none. */
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True for `application/json`, with or without parameters (`; charset=utf-8`). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return (contentType?.split(';')[0] ?? '').trim().toLowerCase() === 'application/json';
}

export function authenticate(
  req: SignedRequest,
  creds: Credentials,
  serverNow: number,
  toleranceMs: number = VENUE_LIMITS.timestampToleranceMs,
): VenueReject | undefined {
  const key = header(req.headers, 'access-key');
  const sign = header(req.headers, 'access-sign');
  const ts = header(req.headers, 'access-timestamp');
  const passphrase = header(req.headers, 'access-passphrase');
  if (key === undefined) return REJECT.missingKey;
  if (sign === undefined) return REJECT.missingSign;
  if (ts === undefined) return REJECT.missingTimestamp;
  if (passphrase === undefined) return REJECT.missingPassphrase;
  if (!/^\d{13}$/.test(ts)) return REJECT.badTimestamp;
  if (Math.abs(serverNow - Number(ts)) > toleranceMs) return REJECT.expired;
  if (!sameText(key, creds.apiKey)) return REJECT.badKey;
  if (!sameText(passphrase, creds.passphrase)) return REJECT.badPassphrase;
  if (req.method === 'POST' && !isJsonMediaType(header(req.headers, 'content-type')))
    return REJECT.badContentType;
  const ok = verifySignature(
    creds.secret,
    { timestamp: ts, method: req.method, path: req.path, query: req.query, body: req.body },
    sign,
  );
  return ok ? undefined : REJECT.badSign;
}
