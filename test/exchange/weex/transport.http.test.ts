// Failure classification over real HTTP on 127.0.0.1: every way a reply can go wrong ends as
// exactly one typed error, reads are retried where safe, placements never.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import {
  ExchangeError,
  OutcomeUnknownError,
  RateLimitedError,
  TransportError,
} from '../../../src/core/errors.ts';
import { clientOid, symbolId } from '../../../src/core/ids.ts';
import { WeexClient, type WeexClientOptions } from '../../../src/exchange/weex/client.ts';
import {
  closedPort,
  sendJson,
  startLocalServer,
  startSilentServer,
  type Handler,
  type LocalServer,
} from '../../helpers/local-server.ts';

const TICKERS = [
  {
    symbol: 'cmt_btcusdt',
    last: '90755.3',
    best_ask: '90755.4',
    best_bid: '90755.3',
    high_24h: '91130.0',
    low_24h: '90097.3',
    volume_24h: '2321170547.37995',
    timestamp: '1764482511864',
    priceChangePercent: '0.000474',
    base_volume: '25615.0755',
  },
];
const CREDS = { apiKey: 'test-key', secret: 'test-secret', passphrase: 'test-pass' };
const TIME_PATH = '/capi/v2/market/time';
const TICKERS_PATH = '/capi/v2/market/tickers';
const PLACE_PATH = '/capi/v2/order/placeOrder';
const ENTRY = {
  clientOid: clientOid('cb_1'),
  side: 'open_long',
  orderType: 'normal',
  size: dec('0.01'),
  price: dec('90000'),
} as const;

function sendTime(res: ServerResponse): void {
  sendJson(res, 200, { epoch: '0', iso: '', timestamp: Date.now() });
}

/** Serves market/time; everything else goes to `rest`. */
const withTime =
  (rest: Handler): Handler =>
  (req, res, n) =>
    req.path === TIME_PATH ? sendTime(res) : rest(req, res, n);

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function serve(handler: Handler): Promise<LocalServer> {
  const s = await startLocalServer(handler);
  cleanups.push(() => s.close());
  return s;
}

function client(baseUrl: string, opts: Partial<WeexClientOptions> = {}): WeexClient {
  const c = new WeexClient({
    baseUrl,
    credentials: CREDS,
    timeouts: { connectMs: 1_000, headersMs: 300, bodyMs: 300 },
    retry: { maxAttempts: 1 },
    sleep: () => Promise.resolve(),
    random: () => 0.5,
    ...opts,
  });
  cleanups.push(() => c.close());
  return c;
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('transport over loopback HTTP', () => {
  it('error envelope with HTTP 400 → ExchangeError with venue code, category and status; not retried', async () => {
    const s = await serve((_req, res) =>
      sendJson(res, 400, {
        code: '40020',
        msg: 'Parameter symbol is invalid',
        requestTime: 1765776928145,
        data: null,
      }),
    );
    const e = await failure(client(s.url, { retry: { maxAttempts: 3 } }).rawTickers());
    expect(e).toBeInstanceOf(ExchangeError);
    expect(e).toMatchObject({
      venueCode: '40020',
      category: 'parameter',
      httpStatus: 400,
      endpoint: 'tickers',
    });
    expect(s.requests).toHaveLength(1);
  });

  it('HTTP 429 → RateLimitedError; a read retries it and succeeds', async () => {
    const s = await serve((_req, res, n) =>
      n === 1
        ? sendJson(res, 429, { code: '429', msg: 'Too many requests', requestTime: 1, data: null })
        : sendJson(res, 200, TICKERS),
    );
    expect(await failure(client(s.url).rawTickers())).toBeInstanceOf(RateLimitedError);
    const delays: number[] = [];
    const c = client(s.url, {
      retry: { maxAttempts: 3 },
      sleep: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
      defaultRetryAfterMs: 777,
    });
    expect(await c.rawTickers()).toEqual(TICKERS);
    expect(delays).toEqual([]); // request 2 of the server already succeeds
  });

  it('a 429 body inside HTTP 200 is rate limiting too', async () => {
    const s = await serve((_req, res) =>
      sendJson(res, 200, { code: '429', msg: 'Too many requests', requestTime: 1, data: null }),
    );
    expect(await failure(client(s.url).rawTickers())).toBeInstanceOf(RateLimitedError);
  });

  it('a 502 HTML page → OutcomeUnknownError (httpStatus 502)', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>');
    });
    const e = await failure(client(s.url).rawTickers());
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect((e as OutcomeUnknownError).httpStatus).toBe(502);
  });

  it('a truncated body (connection dropped mid-body) → OutcomeUnknownError', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
      res.write('[{"symbol":"cmt_btcusdt","last":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect(await failure(client(s.url).rawTickers())).toBeInstanceOf(OutcomeUnknownError);
  });

  it('a complete but cut-off JSON text → OutcomeUnknownError', async () => {
    const s = await serve((_req, res) => sendJson(res, 200, '[{"symbol":"cmt_btcusdt","last":"1'));
    expect(await failure(client(s.url).rawTickers())).toBeInstanceOf(OutcomeUnknownError);
  });

  it('a wrong content type on 200 → OutcomeUnknownError', async () => {
    const s = await serve((_req, res) => sendJson(res, 200, TICKERS, { 'content-type': 'text/plain' }));
    expect(await failure(client(s.url).rawTickers())).toBeInstanceOf(OutcomeUnknownError);
  });

  it('HTTP 404 with a Spring body → ExchangeError not_found', async () => {
    const s = await serve((req, res) =>
      sendJson(res, 404, {
        timestamp: '2026-02-19T04:32:23.817+00:00',
        status: 404,
        error: 'Not Found',
        path: req.path,
      }),
    );
    expect(await failure(client(s.url).rawTickers())).toMatchObject({
      category: 'not_found',
      httpStatus: 404,
    });
  });

  it('a timeout on GET is retried, then succeeds', async () => {
    const s = await serve((_req, res, n) => {
      if (n === 1) return; // never answers
      sendJson(res, 200, TICKERS);
    });
    const c = client(s.url, { retry: { maxAttempts: 3 } });
    expect(await c.rawTickers()).toEqual(TICKERS);
    expect(s.to(TICKERS_PATH)).toHaveLength(2);
  });

  it('a timeout on a POST placement → OutcomeUnknownError, NOT retried: the server saw exactly one', async () => {
    const s = await serve(withTime(() => undefined)); // placeOrder never answers
    const c = client(s.url, { retry: { maxAttempts: 5 } });
    const e = await failure(c.placeOrder(symbolId('cmt_btcusdt'), ENTRY));
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(s.to(PLACE_PATH)).toHaveLength(1);
  });

  it('a 502 on batchOrders → OutcomeUnknownError, not retried', async () => {
    const s = await serve(
      withTime((_req, res) =>
        sendJson(res, 502, '<html>bad gateway</html>', { 'content-type': 'text/html' }),
      ),
    );
    const c = client(s.url, { retry: { maxAttempts: 5 } });
    const e = await failure(
      c.placeBatch(symbolId('cmt_btcusdt'), [ENTRY, { ...ENTRY, clientOid: clientOid('cb_2') }]),
    );
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(s.to('/capi/v2/order/batchOrders')).toHaveLength(1);
  });

  it('an oversized streamed body is bounded: the client stops reading and fails', async () => {
    const cap = 64 * 1024;
    const limit = 64 * 1024 * 1024;
    let written = 0;
    let closedEarly = false;
    const s = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      let closed = false;
      res.on('close', () => {
        closed = true;
      });
      while (!closed && written < limit) {
        written += chunk.length;
        if (!res.write(chunk)) {
          await new Promise((r) => {
            res.once('drain', r);
            res.once('close', r);
          });
        }
      }
      closedEarly = closed;
      if (!closed) res.end(']');
    });
    const e = await failure(client(s.url, { maxResponseBytes: cap }).rawTickers());
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect((e as Error).message).toContain('cap');
    await new Promise((r) => setTimeout(r, 50));
    expect(closedEarly).toBe(true);
    expect(written).toBeLessThan(limit);
  });

  it('an oversized declared Content-Length fails before reading the body', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      res.write('[');
    });
    const e = await failure(client(s.url, { maxResponseBytes: 1024 }).rawTickers());
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect((e as Error).message).toContain('exceeds');
  });

  it('a server that accepts and never answers → OutcomeUnknownError after the headers timeout', async () => {
    const silent = await startSilentServer();
    cleanups.push(() => silent.close());
    const e = await failure(client(silent.url).rawTickers());
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(silent.connections()).toBe(1);
  });

  it('connection refused → TransportError (nothing was sent); reads retry it', async () => {
    const port = await closedPort();
    const sleeps: number[] = [];
    const c = client(`http://127.0.0.1:${port}`, {
      retry: { maxAttempts: 2 },
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    });
    expect(await failure(c.rawTickers())).toBeInstanceOf(TransportError);
    expect(sleeps).toHaveLength(1);
  });

  it('a placement whose server-time sync cannot connect fails as TransportError (not sent)', async () => {
    const port = await closedPort();
    const e = await failure(client(`http://127.0.0.1:${port}`).placeOrder(symbolId('cmt_btcusdt'), ENTRY));
    expect(e).toBeInstanceOf(TransportError);
    expect((e as TransportError).endpoint).toBe('placeOrder');
  });

  it('an aborted signal stops the request before sending', async () => {
    const s = await serve((_req, res) => sendJson(res, 200, TICKERS));
    const ac = new AbortController();
    ac.abort();
    expect(await failure(client(s.url, { signal: ac.signal }).rawTickers())).toBeInstanceOf(TransportError);
    expect(s.requests).toHaveLength(0);
  });

  it('reports every attempt to onResponse and awaits beforeRequest first', async () => {
    const s = await serve((_req, res, n) =>
      n === 1 ? sendJson(res, 503, 'x', { 'content-type': 'text/plain' }) : sendJson(res, 200, TICKERS),
    );
    const seen: string[] = [];
    const c = client(s.url, {
      retry: { maxAttempts: 2 },
      beforeRequest: (e) => {
        seen.push(`before:${e.id}`);
        return Promise.resolve();
      },
      onResponse: (e, status) => void seen.push(`${e.id}:${status}`),
    });
    await c.rawTickers();
    expect(seen).toEqual(['before:tickers', 'tickers:503', 'before:tickers', 'tickers:200']);
  });
});
