// Shared builders for the simulator tests: wire tickers, order requests, signed HTTP requests.
import { request } from 'undici';
import { dec } from '../../../src/core/decimal.ts';
import type { RecordedPoll, WireTicker } from '../../../src/core/market.ts';
import type { OrderSide, OrderType } from '../../../src/core/orders.ts';
import { createSimServer, type SimServerSetup } from '../../../src/exchange/sim/create-sim.ts';
import { pollSourceFrom } from '../../../src/exchange/sim/market-clock.ts';
import type { SimOrderRequest } from '../../../src/exchange/sim/model.ts';
import type { SimServer } from '../../../src/exchange/sim/server.ts';
import { signedHeaders, type Credentials } from '../../../src/exchange/weex/signer.ts';

export function ticker(symbol: string, bid: string, ask: string, last: string = bid, ts = 1): WireTicker {
  return {
    symbol,
    last,
    best_bid: bid,
    best_ask: ask,
    high_24h: ask,
    low_24h: bid,
    volume_24h: '1000',
    timestamp: String(ts),
    priceChangePercent: '0',
    base_volume: '10',
  };
}

export function req(
  clientOid: string,
  side: OrderSide,
  size: string,
  price?: string,
  orderType: OrderType = 'normal',
): SimOrderRequest {
  return {
    clientOid,
    side,
    orderType,
    size: dec(size),
    ...(price !== undefined ? { price: dec(price) } : {}),
  };
}

export const TEST_CREDS: Credentials = { apiKey: 'k-test', secret: 's-test', passphrase: 'p-test' };

export interface SignedCall {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query?: string;
  readonly body?: unknown;
  /** Epoch ms for ACCESS-TIMESTAMP. */
  readonly ts: number;
  readonly creds?: Credentials;
}

export interface RawResponse {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
  readonly contentType: string | undefined;
}

/** One request with raw undici: exact texts, no client logic in between. */
export async function raw(
  base: string,
  method: 'GET' | 'POST',
  pathAndQuery: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  const r = await request(`${base}${pathAndQuery}`, {
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await r.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const ct = r.headers['content-type'];
  return { status: r.statusCode, text, json, contentType: Array.isArray(ct) ? ct[0] : ct };
}

/** A correctly signed request. */
export function signed(base: string, c: SignedCall): Promise<RawResponse> {
  const query = c.query ?? '';
  const body = c.body === undefined ? '' : typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
  const h = signedHeaders(c.creds ?? TEST_CREDS, {
    timestamp: String(c.ts),
    method: c.method,
    path: c.path,
    query,
    body,
  });
  return raw(
    base,
    c.method,
    query ? `${c.path}?${query}` : c.path,
    { ...h },
    c.method === 'POST' ? body : undefined,
  );
}

/** Market polls one second apart: BTC walks by `steps` (in 0.1 ticks) from 100.0 with a 0.1 spread. */
export function polls(steps: readonly number[], t0 = 1_700_000_000_000): RecordedPoll[] {
  let ticks = 1000;
  return steps.map((s, i) => {
    ticks += s;
    const bid = (ticks / 10).toFixed(1);
    const ask = ((ticks + 1) / 10).toFixed(1);
    return {
      t: t0 + i * 1000,
      tickers: [
        ticker('cmt_btcusdt', bid, ask, bid, t0 + i * 1000 - 5),
        ticker('cmt_ethusdt', '2000.00', '2000.01', '2000.00'),
      ],
    };
  });
}

/** A mutable server clock for tests. */
export class TestClock {
  t: number;
  constructor(t: number) {
    this.t = t;
  }
  now(): number {
    return this.t;
  }
}

export interface Started {
  readonly server: SimServer;
  readonly url: string;
  readonly clock: TestClock;
}

export const SERVER_NOW = 1_800_000_000_000;

export async function startSim(
  setup: Partial<SimServerSetup> & { data?: readonly RecordedPoll[] } = {},
): Promise<Started> {
  const clock = new TestClock(SERVER_NOW);
  const { data, ...rest } = setup;
  const server = await createSimServer({
    polls: pollSourceFrom(data ?? polls([0, 0, 0, 0, 0])),
    credentials: TEST_CREDS,
    serverClock: clock,
    ...rest,
  });
  const { url } = await server.listen(0);
  return { server, url, clock };
}
