// CSRF defence of the mutating routes. The browser sends Basic-auth credentials by itself, so a page
// on another site could try to make it POST to the console. Refused unless ALL hold:
//  1. the custom header `X-Capibot-Console: 1` is present: a cross-site page can only send it after a
//     CORS preflight, which the console never grants (OPTIONS answers 405 without any CORS header);
//  2. the body is `application/json` (also preflighted cross-site);
//  3. `Sec-Fetch-Site`, when the browser sends it, is `same-origin` (or `none`: typed by the user);
//  4. `Origin` (else `Referer`), when present, is the console's own origin as the Host header names
//     it (http or https, for a TLS proxy in front) or one of console.allowedOrigins.
// Clients that send neither Origin nor Referer (curl, scripts) are not browsers and hold the token
// explicitly; they pass 3 and 4 but still need 1 and 2.
import type { IncomingMessage } from 'node:http';

export const CSRF_HEADER = 'x-capibot-console';

/** Why the request is refused, or undefined when it passes. */
export function csrfProblem(req: IncomingMessage, allowedOrigins: readonly string[]): string | undefined {
  if (req.headers[CSRF_HEADER] !== '1') return `missing the ${CSRF_HEADER}: 1 header`;
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') return 'the body must be application/json';
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `cross-site request (${site})`;
  const host = req.headers.host;
  const allowed = new Set(allowedOrigins.map((o) => o.toLowerCase()));
  if (host !== undefined && /^[A-Za-z0-9.:[\]-]+$/.test(host)) {
    allowed.add(`http://${host.toLowerCase()}`);
    allowed.add(`https://${host.toLowerCase()}`);
  }
  const origin = req.headers.origin;
  if (origin !== undefined)
    return allowed.has(origin.toLowerCase()) ? undefined : `origin ${origin} not allowed`;
  const referer = req.headers.referer;
  if (referer !== undefined) {
    let from: string;
    try {
      from = new URL(referer).origin.toLowerCase();
    } catch {
      return 'malformed Referer';
    }
    return allowed.has(from) ? undefined : 'referer not allowed';
  }
  return undefined;
}
