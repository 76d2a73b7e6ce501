// Request signing for capi/v2 (weex-facts.md §2):
//   ACCESS-SIGN = Base64(HMAC-SHA256(secret, timestamp + METHOD + requestPath + ("?" + query if any) + body))
// computed over exactly the bytes sent. The timestamp is 13-digit epoch milliseconds.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface Credentials {
  readonly apiKey: string;
  readonly secret: string;
  readonly passphrase: string;
}

export interface SignInput {
  readonly timestamp: string;
  readonly method: 'GET' | 'POST';
  /** Path starting with /capi/v2/, without the query. */
  readonly path: string;
  /** Raw query text after `?` exactly as sent; empty for none. */
  readonly query: string;
  /** Exact body text sent; empty for GET. */
  readonly body: string;
}

export function preHash(i: SignInput): string {
  return i.timestamp + i.method.toUpperCase() + i.path + (i.query ? `?${i.query}` : '') + i.body;
}

export function sign(secret: string, i: SignInput): string {
  return createHmac('sha256', secret).update(preHash(i), 'utf8').digest('base64');
}

/** Constant-time check of a received signature (used by the simulator). */
export function verifySignature(secret: string, i: SignInput, signature: string): boolean {
  const expected = Buffer.from(sign(secret, i));
  const got = Buffer.from(signature);
  return expected.length === got.length && timingSafeEqual(expected, got);
}

export interface SignedHeaders {
  readonly 'ACCESS-KEY': string;
  readonly 'ACCESS-SIGN': string;
  readonly 'ACCESS-PASSPHRASE': string;
  readonly 'ACCESS-TIMESTAMP': string;
  readonly 'Content-Type': 'application/json';
  readonly locale?: string;
}

export function signedHeaders(creds: Credentials, i: SignInput, locale?: string): SignedHeaders {
  return {
    'ACCESS-KEY': creds.apiKey,
    'ACCESS-SIGN': sign(creds.secret, i),
    'ACCESS-PASSPHRASE': creds.passphrase,
    'ACCESS-TIMESTAMP': i.timestamp,
    'Content-Type': 'application/json',
    ...(locale ? { locale } : {}),
  };
}
