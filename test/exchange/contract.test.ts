// The exchange contract: what every ExchangePort must do, run against the capi/v2 HTTP client
// talking to the simulator over loopback and against the in-process simulator port. A future
// adapter (or the real venue, by hand) can run `exchangeContract` too.
// HTTP-only cases then check that every error code the simulator answers reaches the client as the
// documented error class (auth → ExchangeError, 429 → RateLimitedError, 5xx and resets →
// OutcomeUnknownError, order-level codes → rejected outcomes).
import { afterEach, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { ExchangeError, OutcomeUnknownError, RateLimitedError } from '../../src/core/errors.ts';
import { clientOid, orderId, symbolId } from '../../src/core/ids.ts';
import type { RecordedPoll } from '../../src/core/market.ts';
import type { FaultProfile } from '../../src/exchange/sim/faults.ts';
import { SimPort } from '../../src/exchange/sim/sim-port.ts';
import type { ExchangePort, PlaceEntry } from '../../src/exchange/port.ts';
import { WeexClient } from '../../src/exchange/weex/client.ts';
import type { Credentials } from '../../src/exchange/weex/signer.ts';
import type { WeightLimits } from '../../src/exchange/sim/weights.ts';
import { polls, startSim, TEST_CREDS, type Started } from './sim/helpers.ts';

const BTC = symbolId('cmt_btcusdt');

interface Harness {
  readonly port: ExchangePort;
  /** Moves the market one recorded snapshot forward. */
  advance(): Promise<void>;
  close(): Promise<void>;
}

type HarnessFactory = (data: readonly RecordedPoll[]) => Promise<Harness>;

const limit = (
  oid: string,
  side: PlaceEntry['side'],
  size: string,
  price: string,
  orderType: PlaceEntry['orderType'] = 'normal',
): PlaceEntry => ({
  clientOid: clientOid(oid),
  side,
  orderType,
  size: dec(size),
  price: dec(price),
});
const market = (oid: string, side: PlaceEntry['side'], size: string): PlaceEntry => ({
  clientOid: clientOid(oid),
  side,
  orderType: 'normal',
  size: dec(size),
});

/** The contract every ExchangePort implementation must honour. */
function exchangeContract(name: string, make: HarnessFactory): void {
  describe(`exchange contract: ${name}`, () => {
    let h: Harness | undefined;
    afterEach(async () => {
      await h?.close();
      h = undefined;
    });

    it('serverTime, contracts and tickers', async () => {
      h = await make(polls([0, 0]));
      expect(Number.isSafeInteger(await h.port.serverTime())).toBe(true);
      const specs = await h.port.contracts();
      const btc = specs.find((c) => c.symbol === BTC);
      expect(btc?.sizeStep.toFixed()).toBe('0.0001');
      expect(btc?.priceTick.toFixed()).toBe('0.1');
      expect(btc?.takerFeeRate.toFixed()).toBe('0.0008');
      const t = await h.port.tickers();
      expect(t.find((x) => x.symbol === BTC)?.bestBid.toFixed()).toBe('100');
    });

    it('placeOrder: accepted with an order id; business refusals come back as rejected outcomes', async () => {
      h = await make(polls([0, 0]));
      const ok = await h.port.placeOrder(BTC, limit('p-1', 'open_long', '0.01', '99.0'));
      expect(ok.outcome).toBe('accepted');
      expect(ok.outcome === 'accepted' && ok.orderId).toMatch(/^\d{18}$/);
      expect(await h.port.placeOrder(BTC, limit('p-2', 'open_long', '0.00011', '99.0'))).toMatchObject({
        outcome: 'rejected',
        code: '40015',
      });
      expect(await h.port.placeOrder(BTC, limit('p-1', 'open_long', '0.01', '99.0'))).toMatchObject({
        outcome: 'rejected',
        code: '40015',
      });
      expect(await h.port.placeOrder(BTC, limit('p-3', 'close_long', '0.01', '99.0'))).toMatchObject({
        outcome: 'rejected',
        code: '40015',
      });
      expect(
        await h.port.placeOrder(symbolId('cmt_nopeusdt'), limit('p-4', 'open_long', '1', '1.0')),
      ).toMatchObject({
        outcome: 'rejected',
        code: '40020',
      });
    });

    it('placeBatch: one outcome per entry, in order', async () => {
      h = await make(polls([0, 0]));
      const out = await h.port.placeBatch(BTC, [
        limit('b-1', 'open_long', '0.01', '99.0'),
        limit('b-2', 'open_long', '0.000114', '99.0'),
        limit('b-3', 'open_short', '0.02', '101.0'),
      ]);
      expect(out.map((o) => [o.clientOid, o.outcome])).toEqual([
        ['b-1', 'accepted'],
        ['b-2', 'rejected'],
        ['b-3', 'accepted'],
      ]);
    });

    it('cancelOrder: by id or client_oid; an unknown or finished order answers result false / 50005', async () => {
      h = await make(polls([0, 0]));
      const a = await h.port.placeOrder(BTC, limit('c-1', 'open_long', '0.01', '99.0'));
      await h.port.placeOrder(BTC, limit('c-2', 'open_long', '0.01', '99.0'));
      const id = a.outcome === 'accepted' ? a.orderId : orderId('0');
      expect(await h.port.cancelOrder({ symbol: BTC, orderId: id })).toMatchObject({
        orderId: id,
        result: true,
      });
      expect(await h.port.cancelOrder({ symbol: BTC, clientOid: clientOid('c-2') })).toMatchObject({
        result: true,
        clientOid: 'c-2',
      });
      expect(await h.port.cancelOrder({ symbol: BTC, orderId: id })).toMatchObject({
        result: false,
        errCode: '50005',
      });
      expect(await h.port.cancelOrder({ symbol: BTC, clientOid: clientOid('never') })).toMatchObject({
        result: false,
        errCode: '50005',
      });
    });

    it('fills and history follow the market: maker fill of a resting order, taker fill of a market order, PnL on close', async () => {
      h = await make(polls([0, -10, 0, 30]));
      const rest = await h.port.placeOrder(BTC, limit('f-1', 'open_long', '0.01', '99.5'));
      const mkt = await h.port.placeOrder(BTC, market('f-2', 'open_long', '0.002'));
      expect(rest.outcome).toBe('accepted');
      expect(mkt.outcome).toBe('accepted');
      await h.advance(); // bid 99.0 / ask 99.1: crosses 99.5 by more than a tick
      await h.advance();
      await h.advance(); // bid 102.0
      const close = await h.port.placeOrder(BTC, market('f-3', 'close_long', '0.012'));
      expect(close.outcome).toBe('accepted');

      const page = await h.port.fills({ symbol: BTC, limit: 100 });
      expect(page.nextFlag).toBe(false);
      const byOrder = new Map(page.fills.map((f) => [f.orderId, f]));
      const fRest = rest.outcome === 'accepted' ? byOrder.get(rest.orderId) : undefined;
      const fMkt = mkt.outcome === 'accepted' ? byOrder.get(mkt.orderId) : undefined;
      const fClose = close.outcome === 'accepted' ? byOrder.get(close.orderId) : undefined;
      expect(fRest?.value.toFixed()).toBe('0.995');
      expect(fRest?.fee.toFixed()).toBe('0.000199');
      expect(fMkt?.value.toFixed()).toBe('0.2002');
      expect(fMkt?.fee.toFixed()).toBe('0.00016016');
      expect(fClose?.size.toFixed()).toBe('0.012');
      // 0.012 × 102.0 − (0.995 + 0.2002)
      expect(fClose?.realizedPnl.toFixed()).toBe('0.0288');
      expect(fClose?.tradeId).toMatch(/^\d{18}$/);
      const one = await h.port.fills({ symbol: BTC, limit: 1 });
      expect(one.fills).toHaveLength(1);
      expect(one.nextFlag).toBe(true);
      expect(one.totals).toBe(3);
      if (close.outcome === 'accepted')
        expect((await h.port.fills({ orderId: close.orderId })).fills).toHaveLength(1);

      const hist = await h.port.history({ symbol: BTC, pageSize: 10 });
      expect(hist.map((o) => [o.clientOid, o.status, o.type, o.orderType])).toEqual([
        ['f-3', 'filled', 'close_long', 'ioc'],
        ['f-2', 'filled', 'open_long', 'ioc'],
        ['f-1', 'filled', 'open_long', 'normal'],
      ]);
      expect(hist[0]?.price.toFixed()).toBe('0');
      expect(hist[0]?.totalProfits.toFixed()).toBe('0.0288');
      expect(hist[2]?.priceAvg.toFixed()).toBe('99.5');
    });

    it('planHistory: an empty page for a valid query', async () => {
      h = await make(polls([0]));
      expect(
        await h.port.planHistory({ symbol: BTC, startTime: 0, endTime: 1, delegateType: 1, pageSize: 10 }),
      ).toEqual({
        plans: [],
        nextPage: false,
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------

interface HttpOptions {
  readonly creds?: Credentials;
  readonly limits?: Partial<WeightLimits>;
  readonly faults?: FaultProfile;
}

async function httpHarness(
  data: readonly RecordedPoll[],
  o: HttpOptions = {},
): Promise<Harness & { sim: Started; client: WeexClient }> {
  const sim = await startSim({
    data,
    ...(o.limits ? { limits: o.limits } : {}),
    ...(o.faults ? { faults: o.faults } : {}),
  });
  const client = new WeexClient({
    baseUrl: sim.url,
    credentials: o.creds ?? TEST_CREDS,
    clock: { now: () => sim.clock.now() },
    retry: { maxAttempts: 1 },
  });
  await client.tickers(); // lockstep: the first tickers request serves snapshot 0
  return {
    sim,
    client,
    port: client,
    advance: async () => {
      await client.tickers();
    },
    close: async () => {
      await client.close();
      await sim.server.close();
    },
  };
}

function portHarness(data: readonly RecordedPoll[]): Promise<Harness> {
  let i = 0;
  const clock = { now: () => data[Math.min(i, data.length - 1)]?.t ?? 0 };
  const port = new SimPort({ clock, seed: 1 });
  const apply = (): void => {
    const p = data[Math.min(i, data.length - 1)];
    if (p) port.applyPoll(p);
  };
  apply();
  return Promise.resolve({
    port,
    advance: () => {
      i++;
      apply();
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  });
}

exchangeContract('WeexClient → capibot sim (HTTP, lockstep)', (d) => httpHarness(d));
exchangeContract('SimPort (in-process)', portHarness);

describe('WeexClient against the simulator: error codes reach the client as the documented classes', () => {
  const entry = limit('e-1', 'open_long', '0.01', '99.0');

  it('40006 wrong key, 40012 wrong passphrase, 40009 wrong secret → ExchangeError (auth)', async () => {
    for (const [creds, code] of [
      [{ ...TEST_CREDS, apiKey: 'nope' }, '40006'],
      [{ ...TEST_CREDS, passphrase: 'nope' }, '40012'],
      [{ ...TEST_CREDS, secret: 'nope' }, '40009'],
    ] as const) {
      const h = await httpHarness(polls([0]), { creds });
      try {
        const err = await h.client.history({}).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ExchangeError);
        expect((err as ExchangeError).venueCode).toBe(code);
        expect((err as ExchangeError).category).toBe('auth');
        expect((err as ExchangeError).httpStatus).toBe(400);
        await expect(h.client.placeOrder(BTC, entry)).rejects.toBeInstanceOf(ExchangeError);
      } finally {
        await h.close();
      }
    }
  });

  it('40008: a skewed client clock is refused, the client re-syncs and the request goes through', async () => {
    const h = await httpHarness(polls([0]));
    try {
      const skewed = new WeexClient({
        baseUrl: h.sim.url,
        credentials: TEST_CREDS,
        clock: { now: () => 1_000_000 }, // a stopped local clock: the measured offset goes stale
        retry: { maxAttempts: 1 },
        serverTimeMaxAgeMs: 1e9,
      });
      await skewed.serverTime();
      h.sim.clock.t += 45_000; // the server moved on, the local clock did not: timestamps are 45 s old
      expect(await skewed.history({})).toEqual([]);
      const stats = h.sim.server.venue.statsSnapshot();
      expect(stats.errors.byCode['40008']).toBe(1);
      await skewed.close();
    } finally {
      await h.close();
    }
  });

  it('429 (weights) → RateLimitedError, then 40020 → a rejected outcome', async () => {
    const h = await httpHarness(polls([0]), { limits: { uidWeightPerWindow: 10 } });
    try {
      expect((await h.client.history({})).length).toBe(0);
      await expect(h.client.history({})).rejects.toBeInstanceOf(RateLimitedError);
      await expect(h.client.placeOrder(BTC, entry)).rejects.toBeInstanceOf(RateLimitedError);
      h.sim.clock.t += 10_001;
      expect(await h.client.placeOrder(symbolId('cmt_nopeusdt'), entry)).toMatchObject({
        outcome: 'rejected',
        code: '40020',
      });
    } finally {
      await h.close();
    }
  });

  it('5xx and lost responses → OutcomeUnknownError; the order exists at the venue', async () => {
    const h = await httpHarness(polls([0]), {
      faults: {
        faults: [
          { kind: 'responseLost', probability: 1, endpoints: ['placeOrder'] },
          {
            kind: 'serverError',
            probability: 1,
            endpoints: ['batchOrders'],
            status: 502,
            afterProcessing: true,
          },
        ],
      },
    });
    try {
      const lost = await h.client.placeOrder(BTC, entry).catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(OutcomeUnknownError);
      const gw = await h.client
        .placeBatch(BTC, [limit('e-2', 'open_long', '0.01', '99.0')])
        .catch((e: unknown) => e);
      expect(gw).toBeInstanceOf(OutcomeUnknownError);
      expect((gw as OutcomeUnknownError).httpStatus).toBe(502);
      const hist = await h.client.history({});
      expect(hist.map((o) => o.clientOid).sort()).toEqual(['e-1', 'e-2']);
    } finally {
      await h.close();
    }
  });
});
