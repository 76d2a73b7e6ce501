// The whole client path (transport → reply → zod → mapper) fed hostile replies over loopback HTTP:
// near misses of the documented replies, arbitrary JSON, wrapped and enveloped variants, odd
// statuses. Every ExchangePort method resolves with core types or rejects with one of the typed
// errors of the HTTP adapter; a placement is sent exactly once whatever comes back.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import {
  BadResponseError,
  ExchangeError,
  OutcomeUnknownError,
  RateLimitedError,
  TransportError,
} from '../../src/core/errors.ts';
import { clientOid, orderId, symbolId } from '../../src/core/ids.ts';
import { WeexClient } from '../../src/exchange/weex/client.ts';
import { startLocalServer, type LocalServer } from '../helpers/local-server.ts';
import { FIXTURES_DIR, replyText } from './support/near-miss.ts';
import { expectTypedOnly, settle } from './support/typed.ts';

const RUNS = 60;
const HTTP_ERRORS = [
  TransportError,
  OutcomeUnknownError,
  BadResponseError,
  RateLimitedError,
  ExchangeError,
] as const;
const CREDS = { apiKey: 'fuzz-key', secret: 'fuzz-secret', passphrase: 'fuzz-pass' };
const SYMBOL = symbolId('cmt_btcusdt');
const ENTRY = {
  clientOid: clientOid('order12346'),
  side: 'open_long',
  orderType: 'normal',
  size: dec('0.01'),
  price: dec('90000'),
} as const;
const ENTRY2 = {
  clientOid: clientOid('cb_2'),
  side: 'close_short',
  orderType: 'ioc',
  size: dec('0.02'),
} as const;
const TIME_PATH = '/capi/v2/market/time';

interface Reply {
  status: number;
  contentType: string;
  text: string;
}

/** What the server answers next on every path but market/time. */
let next: Reply = { status: 200, contentType: 'application/json', text: '{}' };
let timeReply: Reply | undefined;
let server: LocalServer;

function answer(res: ServerResponse, r: Reply): void {
  res.writeHead(r.status, {
    'content-type': r.contentType,
    'content-length': String(Buffer.byteLength(r.text)),
  });
  res.end(r.text);
}

beforeAll(async () => {
  server = await startLocalServer((req, res) => {
    if (req.path === TIME_PATH) {
      return answer(
        res,
        timeReply ?? {
          status: 200,
          contentType: 'application/json',
          text: JSON.stringify({ timestamp: Date.now() }),
        },
      );
    }
    return answer(res, next);
  });
});
afterAll(async () => {
  await server.close();
});

function newClient(): WeexClient {
  return new WeexClient({
    baseUrl: server.url,
    credentials: CREDS,
    timeouts: { connectMs: 2_000, headersMs: 2_000, bodyMs: 2_000 },
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    sleep: () => Promise.resolve(),
  });
}

/** Status and content type: mostly a normal JSON 200, sometimes anything. */
const envelope = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ status: 200, contentType: 'application/json' }) },
  {
    weight: 1,
    arbitrary: fc.record({
      status: fc.constantFrom(200, 201, 202, 204, 400, 401, 403, 404, 409, 429, 500, 502, 503),
      contentType: fc.constantFrom(
        'application/json',
        'application/json;charset=UTF-8',
        'text/html',
        'text/plain',
      ),
    }),
  },
);

function arbReply(fixtures: readonly string[]): fc.Arbitrary<Reply> {
  return fc.tuple(envelope, replyText(fixtures)).map(([e, text]) => ({ ...e, text }));
}

type Call = (c: WeexClient) => Promise<unknown>;

const CASES: readonly {
  name: string;
  path: string;
  fixtures: readonly string[];
  call: Call;
  placement?: boolean;
}[] = [
  {
    name: 'contracts',
    path: '/capi/v2/market/contracts',
    fixtures: ['contracts.json', 'contracts.hackathon-guide.json'],
    call: (c) => c.contracts(),
  },
  {
    name: 'tickers',
    path: '/capi/v2/market/tickers',
    fixtures: ['tickers.json', 'tickers.no-mark-index.json', 'success-wrapper.json'],
    call: (c) => c.tickers(),
  },
  {
    name: 'placeOrder',
    path: '/capi/v2/order/placeOrder',
    fixtures: ['placeOrder.json', 'placeOrder.echo-client-oid.json', 'error-40015.live-message.json'],
    call: (c) => c.placeOrder(SYMBOL, ENTRY),
    placement: true,
  },
  {
    name: 'batchOrders',
    path: '/capi/v2/order/batchOrders',
    fixtures: ['batchOrders.json', 'error-40020.json'],
    call: (c) => c.placeBatch(SYMBOL, [ENTRY, ENTRY2]),
    placement: true,
  },
  {
    name: 'cancel_order',
    path: '/capi/v2/order/cancel_order',
    fixtures: ['cancel_order.json', 'cancel_order.older-variant.json'],
    call: (c) => c.cancelOrder({ symbol: SYMBOL, orderId: orderId('596476148997685805') }),
  },
  {
    name: 'history',
    path: '/capi/v2/order/history',
    fixtures: ['history.json', 'current.json', 'history.numeric-createTime.json'],
    call: (c) => c.history({ symbol: SYMBOL }),
  },
  {
    name: 'fills',
    path: '/capi/v2/order/fills',
    fixtures: ['fills.json', 'fills.18-digit-ids.json', 'fills.bare-array.json', 'fills.under-data.json'],
    call: (c) => c.fills({ symbol: SYMBOL }),
  },
  {
    name: 'historyPlan',
    path: '/capi/v2/order/historyPlan',
    fixtures: ['historyPlan.json', 'historyPlan.word-status.json'],
    call: (c) => c.planHistory({ symbol: SYMBOL, startTime: 1_742_000_000_000, endTime: 1_742_300_000_000 }),
  },
];

describe('WeexClient against hostile replies (loopback HTTP)', () => {
  for (const c of CASES) {
    it(`${c.name}: a result or a typed error${c.placement ? '; sent exactly once' : ''}`, async () => {
      const client = newClient();
      try {
        await fc.assert(
          fc.asyncProperty(arbReply(c.fixtures), async (reply) => {
            next = reply;
            const before = server.to(c.path).length;
            const o = await settle(c.call(client));
            expectTypedOnly(o, HTTP_ERRORS);
            if (c.placement) expect(server.to(c.path).length - before).toBe(1);
          }),
          { numRuns: RUNS },
        );
      } finally {
        await client.close();
      }
    });
  }

  // Regression: market/time {"timestamp":0} used to be accepted; the offset became -1.7e12 ms and the
  // next signed request threw InvariantViolation. ServerClock now refuses an implausible time as a
  // BadResponseError, so the signed request fails typed.
  it('market/time {"timestamp":0}: the next signed request fails typed, not as InvariantViolation', async () => {
    timeReply = { status: 200, contentType: 'application/json', text: '{"timestamp":0}' };
    next = {
      status: 200,
      contentType: 'application/json',
      text: readFileSync(join(FIXTURES_DIR, 'history.json'), 'utf8'),
    };
    const client = newClient();
    try {
      expectTypedOnly(await settle(client.history({ symbol: SYMBOL })), HTTP_ERRORS);
    } finally {
      timeReply = undefined;
      await client.close();
    }
  });

  // A hostile market/time reply must not turn the next signed request into a crash: the signed
  // request either goes out with a plausible timestamp or fails with a typed HTTP error.
  it('market/time: a hostile server time, then a signed request', async () => {
    const history = readFileSync(join(FIXTURES_DIR, 'history.json'), 'utf8');
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            arbReply(['time.json']),
            fc
              .constantFrom(
                '0',
                '1',
                '-1',
                '9999999999999999',
                '"9999999999999999"',
                '1e15',
                '99999999999999',
                '"0"',
              )
              .map((t) => ({ status: 200, contentType: 'application/json', text: `{"timestamp":${t}}` })),
          ),
          async (reply) => {
            timeReply = reply;
            next = { status: 200, contentType: 'application/json', text: history };
            const client = newClient();
            try {
              expectTypedOnly(await settle(client.serverTime()), HTTP_ERRORS);
              expectTypedOnly(await settle(client.history({ symbol: SYMBOL })), HTTP_ERRORS);
            } finally {
              await client.close();
            }
          },
        ),
        { numRuns: RUNS },
      );
    } finally {
      timeReply = undefined;
    }
  });
});
