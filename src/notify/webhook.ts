// One delivery: a POST with a timeout, retried with doubling back-off after a timeout, a network
// error, a 5xx or a 429 (whose Retry-After is honoured, up to a minute). Any other 4xx is final: the
// request itself is wrong (a bad chat id, a revoked webhook) and would fail the same way again.
// Never throws; the outcome says what happened. The URL is never part of an outcome (it is a secret).
import type { WebhookRequest } from './templates.ts';

export interface DeliveryOptions {
  readonly timeoutMs: number;
  readonly retries: number;
  readonly backoffMs: number;
  /** Stops waiting and retrying (shutdown). */
  readonly signal?: AbortSignal;
  /** For tests: default setTimeout-based sleep. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type DeliveryOutcome =
  | { readonly ok: true; readonly attempts: number; readonly status: number }
  | { readonly ok: false; readonly attempts: number; readonly reason: string };

const MAX_WAIT_MS = 60_000;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function deliver(
  url: string,
  req: WebhookRequest,
  o: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const wait = o.sleep ?? sleep;
  const stopped = (): boolean => o.signal?.aborted === true;
  let reason = 'not sent';
  for (let attempt = 1; attempt <= o.retries + 1; attempt++) {
    if (stopped()) return { ok: false, attempts: attempt - 1, reason: 'stopped' };
    let retryAfterMs: number | undefined;
    try {
      const signals = [AbortSignal.timeout(o.timeoutMs), ...(o.signal !== undefined ? [o.signal] : [])];
      const res = await fetch(url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal: AbortSignal.any(signals),
        redirect: 'error',
      });
      // The body is not needed; reading it to the end frees the connection.
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return { ok: true, attempts: attempt, status: res.status };
      reason = `HTTP ${res.status}`;
      if (res.status !== 429 && res.status < 500) return { ok: false, attempts: attempt, reason };
      const ra = Number(res.headers.get('retry-after'));
      if (res.status === 429 && Number.isFinite(ra) && ra > 0)
        retryAfterMs = Math.min(ra * 1000, MAX_WAIT_MS);
    } catch (e) {
      reason =
        e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')
          ? 'timeout'
          : 'network error';
      if (stopped()) return { ok: false, attempts: attempt, reason: 'stopped' };
    }
    if (attempt <= o.retries) {
      const backoff = Math.min(o.backoffMs * 2 ** (attempt - 1), MAX_WAIT_MS);
      await wait(Math.max(backoff, retryAfterMs ?? 0), o.signal);
    }
  }
  return { ok: false, attempts: o.retries + 1, reason };
}
