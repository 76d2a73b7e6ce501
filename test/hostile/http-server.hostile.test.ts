// The client against a hostile HTTP server on 127.0.0.1: HTML error pages, truncated JSON, wrong
// content types, garbage, a connection closed mid-headers, slowloris headers, an endless body, a
// server that accepts and never answers. For every one: only typed errors come out, nothing hangs
// past its timeout (the test's clock is an upper-bound guard only), memory stays bounded, and a
// placement (placeOrder, batchOrders) reaches the server exactly once — never retried.
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import {
  BadResponseError,
  ExchangeError,
  OutcomeUnknownError,
  RateLimitedError,
  TransportError,
} from '../../src/core/errors.ts';
import { clientOid, symbolId } from '../../src/core/ids.ts';
import { WeexClient, type WeexClientOptions } from '../../src/exchange/weex/client.ts';
import type { TransportTimeouts } from '../../src/exchange/weex/defaults.ts';
import {
  httpResponse,
  jsonResponse,
  startHostileServer,
  type Behaviour,
  type HostileServer,
} from './support/hostile-server.ts';
import { peakRssGrowth } from './support/memory.ts';
import { describeThrown, expectTypedOnly, within, type Outcome } from './support/typed.ts';

const HTTP_ERRORS = [
  TransportError,
  OutcomeUnknownError,
  BadResponseError,
  RateLimitedError,
  ExchangeError,
] as const;
const CREDS = { apiKey: 'hostile-key', secret: 'hostile-secret', passphrase: 'hostile-pass' };
const SYMBOL = symbolId('cmt_btcusdt');
const ENTRY = {
  clientOid: clientOid('cb_1'),
  side: 'open_long',
  orderType: 'normal',
  size: dec('0.01'),
  price: dec('90000'),
} as const;
const TIMEOUTS: TransportTimeouts = { connectMs: 1_000, headersMs: 600, bodyMs: 600, totalMs: 1_200 };
/**
 * For the servers that stall: shorter timeouts (undici runs its header/body timers at ~1 s
 * resolution, so a stalled attempt still takes about a second) and one attempt for reads, so that
 * the suite stays fast. Placements get one attempt whatever `retry` says.
 */
const STALL: Partial<WeexClientOptions> = {
  timeouts: { connectMs: 1_000, headersMs: 300, bodyMs: 300 },
  retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
};
/** Reads may make this many attempts; placements must make one. */
const ATTEMPTS = 3;
/** Slack on top of a configured timeout before the guard calls it a hang (loaded CI machines). */
const MARGIN_MS = 2_000;

const PATHS = {
  tickers: '/capi/v2/market/tickers',
  placeOrder: '/capi/v2/order/placeOrder',
  batchOrders: '/capi/v2/order/batchOrders',
} as const;
type Op = keyof typeof PATHS;
const OPS: readonly Op[] = ['tickers', 'placeOrder', 'batchOrders'];

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function hostile(b: Behaviour): Promise<HostileServer> {
  const s = await startHostileServer(b);
  cleanups.push(() => s.close());
  return s;
}

function client(s: HostileServer, opts: Partial<WeexClientOptions> = {}): WeexClient {
  const c = new WeexClient({
    baseUrl: s.url,
    credentials: CREDS,
    timeouts: TIMEOUTS,
    retry: { maxAttempts: ATTEMPTS, baseDelayMs: 1, maxDelayMs: 1 },
    sleep: () => Promise.resolve(),
    ...opts,
  });
  cleanups.push(() => c.close());
  return c;
}

function call(c: WeexClient, op: Op): Promise<unknown> {
  switch (op) {
    case 'tickers':
      return c.tickers();
    case 'placeOrder':
      return c.placeOrder(SYMBOL, ENTRY);
    case 'batchOrders':
      return c.placeBatch(SYMBOL, [ENTRY, { ...ENTRY, clientOid: clientOid('cb_2') }]);
  }
}

/** Worst case of one operation: every attempt runs into every timeout. */
function worstCaseMs(op: Op, opts: Partial<WeexClientOptions> = {}): number {
  const { connectMs, headersMs, bodyMs } = { ...TIMEOUTS, ...opts.timeouts };
  const attempts = op === 'tickers' ? (opts.retry?.maxAttempts ?? ATTEMPTS) : 1;
  return attempts * (connectMs + headersMs + bodyMs);
}

/** Runs `op` against the server; asserts no hang, typed errors only, placements sent once. */
async function expectTyped(
  s: HostileServer,
  op: Op,
  opts: Partial<WeexClientOptions> = {},
): Promise<Outcome<unknown>> {
  const c = client(s, opts);
  const before = s.count(PATHS[op]);
  const o = await within(call(c, op), worstCaseMs(op, opts) + MARGIN_MS);
  expect(o, `${op} hung past its timeouts`).not.toBe('hung');
  const outcome = o as Outcome<unknown>;
  expectTypedOnly(outcome, HTTP_ERRORS);
  const sent = s.count(PATHS[op]) - before;
  if (op === 'tickers') expect(sent).toBeGreaterThanOrEqual(1);
  else expect(sent, `${op} must be sent exactly once`).toBe(1);
  return outcome;
}

/** Runs every operation at once (each on its own client) and expects `cls` from each. */
async function allOps(
  s: HostileServer,
  opts: Partial<WeexClientOptions>,
  cls: (typeof HTTP_ERRORS)[number],
): Promise<void> {
  const outcomes = await Promise.all(OPS.map((op) => expectTyped(s, op, opts)));
  for (const o of outcomes) expectError(o, cls);
}

function expectError(o: Outcome<unknown>, cls: (typeof HTTP_ERRORS)[number]): void {
  expect(o.ok, 'expected an error').toBe(false);
  const e = (o as { error: unknown }).error;
  expect(e instanceof cls, describeThrown(e)).toBe(true);
}

const HTML =
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>cloudflare</h1></body></html>';

/** One-shot misbehaviours: each ends the exchange on its own (no timeout needed). */
const SCENARIOS: readonly { name: string; behaviour: Behaviour; expect?: (typeof HTTP_ERRORS)[number] }[] = [
  {
    name: 'HTML page with 200',
    behaviour: (s) => s.end(jsonResponse(200, HTML, 'text/html')),
    expect: OutcomeUnknownError,
  },
  {
    name: 'HTML page with 502',
    behaviour: (s) => s.end(jsonResponse(502, HTML, 'text/html')),
    expect: OutcomeUnknownError,
  },
  {
    name: 'HTML page with 500 labelled JSON',
    behaviour: (s) => s.end(jsonResponse(500, HTML)),
    expect: OutcomeUnknownError,
  },
  {
    name: 'HTML page with 200 labelled JSON',
    behaviour: (s) => s.end(jsonResponse(200, HTML)),
    expect: OutcomeUnknownError,
  },
  {
    name: 'HTML page with 429',
    behaviour: (s) => s.end(jsonResponse(429, HTML, 'text/html')),
    expect: RateLimitedError,
  },
  {
    name: 'HTML page with 403',
    behaviour: (s) => s.end(jsonResponse(403, HTML, 'text/html')),
    expect: ExchangeError,
  },
  {
    name: 'truncated JSON (complete HTTP message)',
    behaviour: (s) => s.end(jsonResponse(200, '{"order_id":"5964')),
    expect: OutcomeUnknownError,
  },
  {
    name: 'body shorter than Content-Length, then close',
    behaviour: (s) =>
      s.end(
        httpResponse(200, { 'content-type': 'application/json', 'content-length': '200' }, '{"order_id":'),
      ),
    expect: OutcomeUnknownError,
  },
  {
    name: 'chunked body cut after the first chunk',
    behaviour: (s) =>
      s.end(
        httpResponse(
          200,
          { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          'c\r\n{"order_id":\r\n',
        ),
      ),
    expect: OutcomeUnknownError,
  },
  {
    name: 'malformed chunk size',
    behaviour: (s) =>
      s.end(
        httpResponse(
          200,
          { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          'zz\r\n{}\r\n0\r\n\r\n',
        ),
      ),
    expect: OutcomeUnknownError,
  },
  {
    name: 'valid JSON as text/plain',
    behaviour: (s) => s.end(jsonResponse(200, '{"order_id":"1"}', 'text/plain')),
    expect: OutcomeUnknownError,
  },
  {
    name: 'valid JSON without a content type',
    behaviour: (s) => s.end(httpResponse(200, { 'content-length': '16' }, '{"order_id":"1"}')),
    expect: OutcomeUnknownError,
  },
  {
    name: 'invalid UTF-8 body',
    behaviour: (s) => {
      const body = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]);
      s.write(
        httpResponse(200, { 'content-type': 'application/json', 'content-length': String(body.length) }, ''),
      );
      s.end(body);
    },
    expect: OutcomeUnknownError,
  },
  { name: 'empty 200', behaviour: (s) => s.end(jsonResponse(200, '')), expect: OutcomeUnknownError },
  {
    name: '204 No Content',
    behaviour: (s) => s.end('HTTP/1.1 204 No Content\r\n\r\n'),
    expect: OutcomeUnknownError,
  },
  {
    name: 'redirect elsewhere',
    behaviour: (s) =>
      s.end(httpResponse(302, { location: 'http://127.0.0.1:1/', 'content-length': '0' }, '')),
    expect: OutcomeUnknownError,
  },
  {
    name: 'connection closed mid status line',
    behaviour: (s) => s.end('HTTP/1.1 2'),
    expect: OutcomeUnknownError,
  },
  {
    name: 'connection closed mid headers',
    behaviour: (s) => s.end('HTTP/1.1 200 OK\r\nContent-Type: appl'),
    expect: OutcomeUnknownError,
  },
  {
    name: 'connection reset right after the request',
    behaviour: (s) => s.resetAndDestroy(),
    expect: OutcomeUnknownError,
  },
  { name: 'connection closed without a byte', behaviour: (s) => s.end(), expect: OutcomeUnknownError },
  {
    name: 'not HTTP at all',
    behaviour: (s) => s.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'),
    expect: OutcomeUnknownError,
  },
  {
    name: 'a 256 KiB header line',
    behaviour: (s) =>
      s.end(
        httpResponse(
          200,
          { 'x-junk': 'a'.repeat(256 * 1024), 'content-length': '2', 'content-type': 'application/json' },
          '{}',
        ),
      ),
    expect: OutcomeUnknownError,
  },
  {
    name: 'two Content-Length headers that disagree',
    behaviour: (s) =>
      s.end(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\ncontent-length: 40\r\n\r\n{}`,
      ),
    expect: OutcomeUnknownError,
  },
];

describe('hostile one-shot replies', () => {
  for (const sc of SCENARIOS) {
    for (const op of OPS) {
      it(`${sc.name} → ${op}: typed error, placements sent once`, async () => {
        const s = await hostile(sc.behaviour);
        const o = await expectTyped(s, op);
        if (sc.expect) expectError(o, sc.expect);
      });
    }
  }
});

describe('hostile servers that stall', () => {
  it('accepts the request and never answers → OutcomeUnknownError after the headers timeout; placements once', async () => {
    const s = await hostile(() => undefined);
    await allOps(s, STALL, OutcomeUnknownError);
  });

  it('slowloris headers (one byte every 50 ms, never finished) → OutcomeUnknownError; placements once', async () => {
    const drip = (socket: Socket): void => {
      const text = `HTTP/1.1 200 OK\r\nX-Slow: ${'a'.repeat(100_000)}`;
      let i = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || i >= text.length) return clearInterval(timer);
        socket.write(text[i++] ?? 'a');
      }, 50);
      socket.on('close', () => clearInterval(timer));
    };
    const s = await hostile(drip);
    await allOps(s, STALL, OutcomeUnknownError);
  });

  it('headers, then a body that never starts → OutcomeUnknownError after the body timeout', async () => {
    const s = await hostile((socket) =>
      socket.write(httpResponse(200, { 'content-type': 'application/json', 'content-length': '100' }, '')),
    );
    await allOps(s, STALL, OutcomeUnknownError);
  });

  it('a "100 Continue" and then silence → OutcomeUnknownError', async () => {
    const s = await hostile((socket) => socket.write('HTTP/1.1 100 Continue\r\n\r\n'));
    await allOps(s, STALL, OutcomeUnknownError);
  });

  // Regression: a server dripping one byte every 100 ms is never idle for bodyMs and never reaches the
  // size cap (4 MiB at 10 B/s is ~5 days); only the whole-reply deadline (totalMs, by default
  // headersMs + bodyMs) ends it, as OutcomeUnknownError.
  it('a body dripped one byte every 100 ms → fails at the whole-reply deadline', async () => {
    const s = await hostile((socket) => {
      socket.write(
        httpResponse(
          200,
          { 'content-type': 'application/json', 'content-length': '1000000' },
          '{"order_id":"',
        ),
      );
      const timer = setInterval(() => {
        if (socket.destroyed) return clearInterval(timer);
        socket.write('1');
      }, 100);
      socket.on('close', () => clearInterval(timer));
    });
    const c = client(s, STALL);
    const o = await within(call(c, 'placeOrder'), worstCaseMs('placeOrder', STALL) + MARGIN_MS);
    // Drop the dripping connection first: closing the client waits for its requests in flight.
    await s.close();
    expect(o, 'placeOrder is still waiting on a dripped body past headersMs + bodyMs').not.toBe('hung');
    if (o !== 'hung') expectError(o, OutcomeUnknownError);
    expect(s.count(PATHS.placeOrder)).toBe(1);
  });
});

describe('an endless body', () => {
  /** Streams `chunk` forever (respecting backpressure) until the client drops the connection. */
  function endless(
    headers: Record<string, string>,
    frame: (b: Buffer) => Buffer | string,
  ): Behaviour & { written: () => number } {
    let written = 0;
    const b: Behaviour = (socket) => {
      socket.write(httpResponse(200, headers, ''));
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = (): void => {
        while (!socket.destroyed) {
          const data = frame(chunk);
          written += data.length;
          if (!socket.write(data)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    };
    return Object.assign(b, { written: () => written });
  }

  const VARIANTS = [
    {
      name: 'chunked, never ending',
      make: () =>
        endless({ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, (b) =>
          Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]),
        ),
    },
    {
      name: 'close-delimited (no length), never ending',
      make: () => endless({ 'content-type': 'application/json', connection: 'close' }, (b) => b),
    },
  ];

  for (const v of VARIANTS) {
    it(`${v.name}: stops at the size cap with bounded memory; placements once`, async () => {
      const cap = 1024 * 1024;
      for (const op of OPS) {
        const behaviour = v.make();
        const s = await hostile(behaviour);
        const { result: o, growth } = await peakRssGrowth(() =>
          expectTyped(s, op, { maxResponseBytes: cap }),
        );
        expectError(o, OutcomeUnknownError);
        expect((o as { error: Error }).error.message).toMatch(/cap/);
        expect(growth, `RSS grew by ${Math.round(growth / 1e6)} MB`).toBeLessThan(64 * 1024 * 1024);
        // The client stopped reading: the server could not push much past the cap.
        await new Promise((r) => setTimeout(r, 50));
        const attempts = op === 'tickers' ? ATTEMPTS : 1;
        expect(behaviour.written()).toBeLessThan(attempts * (cap + 32 * 1024 * 1024));
        await s.close();
      }
    });
  }

  it('with the default 4 MiB cap: stops with bounded memory', async () => {
    const behaviour = VARIANTS[0]!.make();
    const s = await hostile(behaviour);
    const { result: o, growth } = await peakRssGrowth(() => expectTyped(s, 'placeOrder'));
    expectError(o, OutcomeUnknownError);
    expect(growth, `RSS grew by ${Math.round(growth / 1e6)} MB`).toBeLessThan(64 * 1024 * 1024);
  });

  it('a declared Content-Length of a terabyte is refused before reading', async () => {
    const s = await hostile((socket) =>
      socket.write(
        httpResponse(200, { 'content-type': 'application/json', 'content-length': String(1024 ** 4) }, '{'),
      ),
    );
    await allOps(s, STALL, OutcomeUnknownError);
  });
});
