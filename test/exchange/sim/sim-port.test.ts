// The in-process port: the same venue behind ExchangePort, driven by a virtual clock.
import { describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { OutcomeUnknownError, RateLimitedError } from '../../../src/core/errors.ts';
import { clientOid, orderId, symbolId } from '../../../src/core/ids.ts';
import { NO_REQUEST_FAULTS } from '../../../src/exchange/sim/faults.ts';
import { queryParams } from '../../../src/exchange/sim/params.ts';
import { SimPort } from '../../../src/exchange/sim/sim-port.ts';
import { fillFromWire, orderReportFromWire } from '../../../src/exchange/weex/mappers.ts';
import { fillsReplySchema, historySchema } from '../../../src/exchange/weex/schemas.ts';
import { polls } from './helpers.ts';

const BTC = symbolId('cmt_btcusdt');

function port(opts: Partial<ConstructorParameters<typeof SimPort>[0]> = {}) {
  const clock = {
    t: 0,
    now() {
      return this.t;
    },
  };
  const data = polls([0, -10, -10, 10]);
  const p = new SimPort({ clock, seed: 3, ...opts });
  const step = (i: number) => {
    const poll = data[i]!;
    clock.t = poll.t;
    p.applyPoll(poll);
  };
  step(0);
  return { p, clock, step, data };
}

describe('SimPort', () => {
  it('answers every operation with core types', async () => {
    const { p, step, data } = port();
    expect(await p.serverTime()).toBe(data[0]!.t);
    expect((await p.contracts()).map((c) => c.symbol)).toEqual(['cmt_btcusdt', 'cmt_ethusdt']);
    const t = await p.tickers();
    expect(t[0]?.bestAsk.toFixed()).toBe('100.1');

    const a = await p.placeOrder(BTC, {
      clientOid: clientOid('a'),
      side: 'open_long',
      orderType: 'normal',
      size: dec('0.01'),
      price: dec('99.5'),
    });
    expect(a.outcome).toBe('accepted');
    const rejected = await p.placeOrder(BTC, {
      clientOid: clientOid('b'),
      side: 'open_long',
      orderType: 'normal',
      size: dec('0.00011'),
    });
    expect(rejected).toMatchObject({ outcome: 'rejected', code: '40015' });
    const batch = await p.placeBatch(BTC, [
      {
        clientOid: clientOid('c'),
        side: 'open_long',
        orderType: 'normal',
        size: dec('0.01'),
        price: dec('90.0'),
      },
      {
        clientOid: clientOid('a'),
        side: 'open_long',
        orderType: 'normal',
        size: dec('0.01'),
        price: dec('90.0'),
      },
    ]);
    expect(batch.map((o) => o.outcome)).toEqual(['accepted', 'rejected']);

    step(1);
    const page = await p.fills({ symbol: BTC });
    expect(page.fills).toHaveLength(1);
    expect(page.fills[0]?.size.toFixed()).toBe('0.01');
    expect(page.fills[0]?.tradeId).toMatch(/^\d{18}$/);
    expect(page.totals).toBe(1);
    const at = page.fills[0]!.createdTime;
    expect(at).toBe(data[1]!.t);
    expect((await p.fills({ startTime: at, endTime: at })).fills).toHaveLength(1);
    expect((await p.fills({ startTime: at + 1 })).fills).toHaveLength(0);
    expect((await p.fills({ endTime: at - 1 })).fills).toHaveLength(0);
    expect((await p.fills({ symbol: symbolId('cmt_ethusdt') })).fills).toHaveLength(0);

    const c = batch[0]!;
    const cancel = await p.cancelOrder({ symbol: BTC, clientOid: clientOid('c') });
    expect(cancel).toMatchObject({ result: true, clientOid: 'c' });
    expect(c.outcome === 'accepted' && cancel.orderId).toBe(c.outcome === 'accepted' ? c.orderId : false);
    expect(await p.cancelOrder({ symbol: BTC, orderId: orderId('123') })).toEqual({
      orderId: '123',
      result: false,
      errCode: '50005',
      errMsg: 'Order does not exist',
    });

    const history = await p.history({ symbol: BTC });
    expect(history.map((h) => [h.clientOid, h.status])).toEqual([
      ['c', 'canceled'],
      ['a', 'filled'],
    ]);
    expect(await p.planHistory({ symbol: BTC, startTime: 0, endTime: 1 })).toEqual({
      plans: [],
      nextPage: false,
    });

    const s = p.stats();
    expect(s.requests.byEndpoint).toMatchObject({
      placeOrder: 2,
      batchOrders: 1,
      cancelOrder: 2,
      fills: 5,
      history: 1,
      historyPlan: 1,
    });
    expect(s.weightUsed.uid).toBeGreaterThan(0);
  });

  it('meets 429s where live would: 11 placements within one virtual second', async () => {
    const { p, clock } = port();
    const place = (i: number) =>
      p.placeOrder(BTC, {
        clientOid: clientOid(`r${i}`),
        side: 'open_long',
        orderType: 'normal',
        size: dec('0.01'),
        price: dec('90.0'),
      });
    for (let i = 0; i < 10; i++) expect((await place(i)).outcome).toBe('accepted');
    const err = await place(10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterMs).toBe(1001);
    clock.t += 1000;
    expect((await place(11)).outcome).toBe('accepted');
    expect(p.stats().rateLimited.byScope.orderRate).toBe(1);
  });

  it('injects faults in-process: a lost response after the order was placed', async () => {
    const { p } = port({
      faults: { faults: [{ kind: 'responseLost', probability: 1, endpoints: ['placeOrder'] }] },
    });
    const err = await p
      .placeOrder(BTC, {
        clientOid: clientOid('x'),
        side: 'open_long',
        orderType: 'normal',
        size: dec('0.01'),
        price: dec('90.0'),
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((await p.history({})).map((h) => h.clientOid)).toEqual(['x']);
    expect(p.stats().faults.byKind.responseLost).toBe(1);
  });

  it("keeps past revisions of its orders only when its faults can make history stale", async () => {
    const entry = (id: string) => ({
      clientOid: clientOid(id),
      side: 'open_long' as const,
      orderType: 'normal' as const,
      size: dec('0.01'),
      price: dec('90.0'),
    });
    const plain = port();
    await plain.p.placeOrder(BTC, entry('r1'));
    await plain.p.cancelOrder({ symbol: BTC, clientOid: clientOid('r1') });
    expect(plain.p.footprint()['core.revisions']).toBe(0);
    await expect(plain.p.history({})).resolves.toHaveLength(1);

    const stale = port({ faults: { faults: [{ kind: 'staleHistory', probability: 1, lagMs: 5_000 }] } });
    await stale.p.placeOrder(BTC, entry('r1'));
    stale.clock.t += 10_000;
    await stale.p.cancelOrder({ symbol: BTC, clientOid: clientOid('r1') });
    expect(stale.p.footprint()['core.revisions']).toBe(1);
    // History as of 5 s ago: the order as it stood then, still open.
    expect((await stale.p.history({})).map((h) => h.status)).toEqual(['open']);
  });
});

describe('SimPort: the backtest round shortcut', () => {
  const entry = (id: string, price: string) => ({
    clientOid: clientOid(id),
    side: 'open_long' as const,
    orderType: 'normal' as const,
    size: dec('0.01'),
    price: dec(price),
  });

  it('changes its state version with every order change, and only then', async () => {
    const { p, step } = port();
    const v0 = p.stateVersion();
    await p.history({ symbol: BTC, pageSize: 100 });
    expect(p.stateVersion()).toBe(v0);
    await p.placeOrder(BTC, entry('v1', '80'));
    const v1 = p.stateVersion();
    expect(v1).not.toBe(v0);
    step(1); // the market moves, far from the resting bid
    expect(p.stateVersion()).toBe(v1);
    await p.placeOrder(BTC, entry('v2', '200')); // marketable: fills at once
    expect(p.stateVersion()).not.toBe(v1);
  });

  it('counts and weighs reads not sent, as if sent; never with faults', () => {
    const { p } = port();
    expect(p.chargeUnsent(['fills', 'history'])).toBe(true);
    expect(p.stats().requests.byEndpoint).toMatchObject({ fills: 1, history: 1 });
    const faulty = port({ faults: { faults: [{ kind: 'responseLost', probability: 0.1 }] } }).p;
    expect(faulty.chargeUnsent(['fills'])).toBe(false);
  });

  it('makes a history or fills report once per order revision or fill, as the HTTP client decodes the reply', async () => {
    const { p, step } = port();
    // What the HTTP client makes of the venue's reply, decoded afresh.
    const bodyOf = (endpoint: 'history' | 'fills', query: string): unknown => {
      const reply = p.venue.dispatch(endpoint, queryParams(query), undefined, NO_REQUEST_FAULTS, 0);
      return reply.ok ? reply.body : undefined;
    };
    const fresh = {
      history: () =>
        historySchema.parse(bodyOf('history', 'symbol=cmt_btcusdt&pageSize=100')).map(orderReportFromWire),
      fills: () => fillsReplySchema.parse(bodyOf('fills', 'symbol=cmt_btcusdt')).list.map(fillFromWire),
    };
    await p.placeOrder(BTC, entry('m1', '80')); // rests
    await p.placeOrder(BTC, entry('m2', '200')); // fills at once
    const h1 = await p.history({ symbol: BTC, pageSize: 100 });
    const f1 = await p.fills({ symbol: BTC });
    expect(h1).toEqual(fresh.history());
    expect(f1.fills).toEqual(fresh.fills());
    expect(f1).toMatchObject({ nextFlag: false, totals: 1 });
    expect(await p.cancelOrder({ symbol: BTC, clientOid: clientOid('m1') })).toMatchObject({ result: true });
    step(1);
    const h2 = await p.history({ symbol: BTC, pageSize: 100 });
    const f2 = await p.fills({ symbol: BTC });
    expect(h2).toEqual(fresh.history());
    expect(f2.fills).toEqual(fresh.fills());
    const byOid = (rows: typeof h1, oid: string) => rows.find((r) => r.clientOid === clientOid(oid));
    // Unchanged since: the same decoded objects; changed (m1 canceled): decoded anew.
    expect(byOid(h2, 'm2')).toBe(byOid(h1, 'm2'));
    expect(f2.fills[0]).toBe(f1.fills[0]);
    expect(byOid(h2, 'm1')).not.toBe(byOid(h1, 'm1'));
    expect(byOid(h2, 'm1')?.status).not.toBe(byOid(h1, 'm1')?.status);
  });
});
