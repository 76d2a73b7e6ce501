// Plan (trigger) orders in the simulator, through the in-process port (virtual time): trigger
// direction, market and limit children, a close larger than the position, cancel, expiry, paging,
// preset TP/SL with their lag, the child's client_oid, mark-price triggers and faults.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { OutcomeUnknownError, RateLimitedError } from '../../../src/core/errors.ts';
import { clientOid, orderId, symbolId } from '../../../src/core/ids.ts';
import type { WireTicker } from '../../../src/core/market.ts';
import type { PlanEntry } from '../../../src/exchange/port.ts';
import { SIM_COMPACT_MIN_DEAD } from '../../../src/exchange/sim/compaction.ts';
import { PLAN_EXPIRY_MS } from '../../../src/exchange/sim/plans.ts';
import { NO_REQUEST_FAULTS } from '../../../src/exchange/sim/faults.ts';
import { queryParams } from '../../../src/exchange/sim/params.ts';
import { SimPort, type SimPortOptions } from '../../../src/exchange/sim/sim-port.ts';
import { currentPlanPageFromWire, planReportFromWire } from '../../../src/exchange/weex/mappers.ts';
import { currentPlanReplySchema, planHistoryReplySchema } from '../../../src/exchange/weex/schemas.ts';
import { ticker } from './helpers.ts';

const BTC = symbolId('cmt_btcusdt');
const T0 = 1_700_000_000_000;

/** A BTC ticker whose last is `last`, bid = last, ask = last + 0.1 (and an optional mark price). */
function btc(last: number, mark?: number): WireTicker {
  const t = ticker('cmt_btcusdt', last.toFixed(1), (last + 0.1).toFixed(1), last.toFixed(1));
  return mark === undefined ? t : { ...t, markPrice: mark.toFixed(1) };
}

function venue(opts: Partial<SimPortOptions> = {}) {
  const clock = { t: T0, now: () => clock.t };
  const p = new SimPort({ clock, seed: 5, ...opts });
  /** One snapshot `dt` ms after the previous one. */
  const tick = (last: number, dtMs = 1000, mark?: number): void => {
    clock.t += dtMs;
    p.applyTickers(clock.t, [btc(last, mark)]);
  };
  p.applyTickers(clock.t, [btc(100)]);
  return { p, clock, tick };
}

const plan = (
  oid: string,
  side: PlanEntry['side'],
  size: string,
  trigger: string,
  execute?: string,
): PlanEntry => ({
  clientOid: clientOid(oid),
  side,
  size: dec(size),
  triggerPrice: dec(trigger),
  ...(execute !== undefined ? { executePrice: dec(execute) } : {}),
});

async function history(p: SimPort) {
  return (await p.planHistory({ symbol: BTC, startTime: 0, endTime: 4_000_000_000_000 })).plans;
}

describe('simulator plan orders', () => {
  it('a trigger above the last fires when the last rises to it; the market child fills and carries the client_oid', async () => {
    const { p, tick, clock } = venue();
    const r = await p.placePlan(BTC, plan('up1', 'open_long', '0.01', '101.5'));
    expect(r.outcome).toBe('accepted');
    const current = await p.currentPlans({ symbol: BTC });
    expect(current.plans.map((x) => [x.clientOid, x.status, x.side, x.triggerPrice.toFixed()])).toEqual([
      ['up1', 'untriggered', 'open_long', '101.5'],
    ]);
    tick(101);
    expect((await p.currentPlans({})).plans).toHaveLength(1);
    tick(101.5);
    const triggeredAt = clock.t;
    expect((await p.currentPlans({})).plans).toHaveLength(0);
    const [row] = await history(p);
    expect(row).toMatchObject({ clientOid: 'up1', status: 'filled', rawStatus: '2', side: 'open_long' });
    expect(row?.filledQty.toFixed()).toBe('0.01');
    expect(row?.priceAvg.toFixed()).toBe('101.6');
    expect(row?.fee.gt(0)).toBe(true);
    expect(row?.triggerTime).toBe(triggeredAt);
    // The child: a fresh order id, the plan's client_oid.
    const child = (await p.history({ symbol: BTC })).find((o) => o.clientOid === 'up1');
    expect(child?.orderId).not.toBe(r.outcome === 'accepted' ? r.orderId : '');
    expect(child?.status).toBe('filled');
    expect(p.core.position('cmt_btcusdt').long.qty.toFixed()).toBe('0.01');
  });

  it('a trigger below the last fires when the last falls to it, not before', async () => {
    const { p, tick } = venue();
    await p.placePlan(BTC, plan('dn1', 'open_short', '0.01', '98'));
    tick(101); // moving away never fires
    tick(98.1);
    expect((await p.currentPlans({})).plans).toHaveLength(1);
    tick(97.5); // through the trigger
    const [row] = await history(p);
    expect(row).toMatchObject({ status: 'filled', side: 'open_short' });
    expect(row?.priceAvg.toFixed()).toBe('97.5'); // sold at the bid
  });

  it('a limit child rests at execute_price, then fills; the row follows it (live words)', async () => {
    const { p, tick } = venue({ planRowStyle: 'live' });
    await p.placePlan(BTC, plan('lim', 'open_long', '0.01', '102', '101'));
    tick(102.5); // fires; the ask (102.6) is above the limit: the child rests
    let [row] = await history(p);
    expect(row).toMatchObject({ status: 'triggered', rawStatus: 'TRIGGERED', type: 'OPEN_LONG' });
    expect(row?.filledQty.toFixed()).toBe('0');
    expect(row?.price.toFixed()).toBe('101');
    tick(100.5); // the ask (100.6) went through 101 by a tick: maker fill at 101
    [row] = await history(p);
    expect(row).toMatchObject({ status: 'filled', rawStatus: 'FILLED' });
    expect(row?.priceAvg.toFixed()).toBe('101');
  });

  it('a close larger than the position is refused on trigger; the plan ends canceled, no child', async () => {
    const { p, tick } = venue();
    await p.placePlan(BTC, plan('cl', 'close_long', '0.01', '99'));
    tick(98.9);
    const [row] = await history(p);
    expect(row).toMatchObject({ status: 'canceled', rawStatus: '-1', side: 'close_long' });
    expect(row?.triggerTime).toBeDefined();
    expect((await p.history({ symbol: BTC })).length).toBe(0);
    const inspected = p.venue.inspectPlans() as { reason?: string }[];
    expect(inspected[0]?.reason).toMatch(/^INVALID_ARGUMENT: The close order size '0.01' exceeds/);
  });

  it('cancel: an untriggered plan answers result true; again, or once triggered, 50005 (result false)', async () => {
    const { p, tick } = venue();
    const a = await p.placePlan(BTC, plan('c1', 'open_long', '0.01', '105'));
    const id = a.outcome === 'accepted' ? a.orderId : orderId('0');
    expect(await p.cancelPlan({ symbol: BTC, orderId: id })).toEqual({
      orderId: id,
      clientOid: 'c1',
      result: true,
    });
    expect(await p.cancelPlan({ symbol: BTC, orderId: id })).toMatchObject({
      result: false,
      errCode: '50005',
    });
    await p.placePlan(BTC, plan('c2', 'open_long', '0.01', '100.5'));
    tick(101);
    expect(await p.cancelPlan({ symbol: BTC, clientOid: clientOid('c2') })).toMatchObject({
      result: false,
      errCode: '50005',
    });
    const rows = await history(p);
    expect(rows.map((x) => [x.clientOid, x.status])).toEqual([
      ['c2', 'filled'],
      ['c1', 'canceled'],
    ]);
    // A client_oid used by a plan is not reused by an order (nor the other way round).
    const dup = await p.placeOrder(BTC, {
      clientOid: clientOid('c1'),
      side: 'open_long',
      orderType: 'normal',
      size: dec('0.01'),
    });
    expect(dup.outcome).toBe('rejected');
  });

  it('refuses what its body check refuses, on either path: the request itself, or its body on the wire', async () => {
    const { p } = venue();
    // A body on the wire is routed by the venue's dispatch; a typed request never is.
    const dispatch = vi.spyOn(p.venue, 'dispatch');
    // Typed path: the venue's own refusals after the body check.
    expect(await p.placePlan(BTC, plan('lim0', 'open_long', '0.01', '105', '0'))).toMatchObject({
      outcome: 'rejected',
      code: '40020',
      message: expect.stringMatching(/execute_price/),
    });
    expect(await p.placePlan(symbolId('cmt_nope'), plan('x1', 'open_long', '0.01', '105'))).toMatchObject({
      outcome: 'rejected',
      code: '40020',
    });
    expect(await p.cancelPlan({ symbol: BTC, orderId: orderId('12ab') })).toMatchObject({
      result: false,
      errCode: '40020',
    });
    expect(dispatch).not.toHaveBeenCalled();
    // Wire path: a client_oid outside the pattern, an empty id.
    expect(await p.placePlan(BTC, plan('bad oid!', 'open_long', '0.01', '105'))).toMatchObject({
      outcome: 'rejected',
      code: '40020',
      message: expect.stringMatching(/client_oid/),
    });
    expect(await p.cancelPlan({ symbol: BTC, clientOid: clientOid('') })).toMatchObject({
      result: false,
      errCode: '40019',
    });
    expect(await p.cancelOrder({ symbol: BTC, orderId: orderId('') })).toMatchObject({
      result: false,
      errCode: '40019',
    });
    expect(dispatch.mock.calls.map((c) => c[0])).toEqual(['planOrder', 'cancelPlan', 'cancelOrder']);
    dispatch.mockRestore();
    expect(await history(p)).toEqual([]);
    expect(p.venue.inspectPlans()).toEqual([]);
  });

  it('an untriggered plan expires 90 days after creation', async () => {
    const { p, clock } = venue();
    await p.placePlan(BTC, plan('old', 'open_long', '0.01', '150'));
    clock.t += PLAN_EXPIRY_MS - 1;
    expect((await p.currentPlans({})).plans).toHaveLength(1);
    clock.t += 1;
    expect((await p.currentPlans({})).plans).toHaveLength(0);
    const [row] = await history(p);
    expect(row).toMatchObject({ clientOid: 'old', status: 'canceled' });
    expect(row?.triggerTime).toBeUndefined();
  });

  it('currentPlan pages by page/limit; historyPlan by pageSize, nextPage and the time window', async () => {
    const { p, clock } = venue();
    for (let i = 0; i < 5; i++) {
      clock.t += 10;
      await p.placePlan(BTC, plan(`pg${i}`, 'open_long', '0.01', `${110 + i}`));
    }
    const pages = [];
    for (let page = 0; page < 3; page++) pages.push(await p.currentPlans({ page, limit: 2 }));
    expect(pages.map((x) => x.plans.map((r) => r.clientOid))).toEqual([
      ['pg4', 'pg3'],
      ['pg2', 'pg1'],
      ['pg0'],
    ]);
    expect(pages.map((x) => x.nextPage)).toEqual([true, true, false]);
    for (let i = 0; i < 5; i++) await p.cancelPlan({ symbol: BTC, clientOid: clientOid(`pg${i}`) });
    const first = await p.planHistory({ symbol: BTC, startTime: 0, endTime: clock.t, pageSize: 3 });
    expect(first.plans.map((r) => r.clientOid)).toEqual(['pg4', 'pg3', 'pg2']);
    expect(first.nextPage).toBe(true);
    const oldest = first.plans[2]?.createTime ?? 0;
    const second = await p.planHistory({ symbol: BTC, startTime: 0, endTime: oldest - 1, pageSize: 3 });
    expect(second.plans.map((r) => r.clientOid)).toEqual(['pg1', 'pg0']);
    expect(second.nextPage).toBe(false);
    const windowed = await p.planHistory({ symbol: BTC, startTime: T0 + 20, endTime: T0 + 30 });
    expect(windowed.plans.map((r) => r.clientOid)).toEqual(['pg2', 'pg1']);
    const closes = await p.planHistory({ symbol: BTC, startTime: 0, endTime: clock.t, delegateType: 3 });
    expect(closes.plans).toHaveLength(0);
  });

  it('preset TP/SL of a filled order appear in currentPlan after the lag, then protect the position', async () => {
    const { p, clock, tick } = venue({ presetLagMs: 2000 });
    const placed = await p.placeOrder(BTC, {
      clientOid: clientOid('parent'),
      side: 'open_long',
      orderType: 'normal',
      size: dec('0.02'),
      presetTakeProfitPrice: dec('110'),
      presetStopLossPrice: dec('95'),
    });
    expect(placed.outcome).toBe('accepted');
    clock.t += 1999;
    expect((await p.currentPlans({ symbol: BTC })).plans).toHaveLength(0);
    clock.t += 1;
    const made = (await p.currentPlans({ symbol: BTC })).plans;
    // Newest first: the stop-loss is made right after the take-profit (same time, higher id).
    expect(made.map((x) => [x.clientOid, x.side, x.size.toFixed(), x.triggerPrice.toFixed()])).toEqual([
      [undefined, 'close_long', '0.02', '95'],
      [undefined, 'close_long', '0.02', '110'],
    ]);
    tick(96);
    expect((await p.currentPlans({})).plans).toHaveLength(2);
    tick(94.9); // the stop fires: the position is closed at the bid
    expect(p.core.position('cmt_btcusdt').long.qty.toFixed()).toBe('0');
    const [sl] = await history(p);
    expect(sl).toMatchObject({ status: 'filled', side: 'close_long' });
    expect(sl?.triggerPrice.toFixed()).toBe('95');
    // The take-profit still rests; were it to fire now, its close would be refused.
    tick(111);
    const rows = await history(p);
    expect(rows.map((x) => [x.triggerPrice.toFixed(), x.status])).toEqual([
      ['95', 'filled'],
      ['110', 'canceled'],
    ]);
  });

  it("the child's client_oid can be venue-made (childClientOid 'venue')", async () => {
    const { p, tick } = venue({ childClientOid: 'venue' });
    const r = await p.placePlan(BTC, plan('mine', 'open_long', '0.01', '100.5'));
    tick(101);
    const child = (await p.history({ symbol: BTC }))[0];
    expect(child?.clientOid).toBe(`plan-${r.outcome === 'accepted' ? r.orderId : ''}`);
    expect((await history(p))[0]?.clientOid).toBe('mine');
  });

  it('a plan watching the mark price fires on the mark, and falls back to the last without one', async () => {
    const { p, tick } = venue({ planTriggerSource: 'mark' });
    p.applyTickers(T0 + 1, [btc(100, 100)]);
    await p.placePlan(BTC, plan('mk', 'open_long', '0.01', '102'));
    tick(103, 1000, 101); // last above, mark below: not yet
    expect((await p.currentPlans({})).plans[0]?.triggerPriceType).toBe('MARK_PRICE');
    tick(101, 1000, 102); // mark reaches it
    expect((await history(p))[0]?.status).toBe('filled');
    await p.placePlan(BTC, plan('mk2', 'open_long', '0.01', '104'));
    tick(104); // no mark in this ticker: the last decides
    expect((await history(p))[0]?.clientOid).toBe('mk2');
  });

  it('faults apply: a lost plan_order reply (placed anyway), an injected 429 and stale plan history', async () => {
    const lost = venue({
      faults: { faults: [{ kind: 'responseLost', probability: 1, endpoints: ['planOrder'] }] },
    });
    await expect(lost.p.placePlan(BTC, plan('lost', 'open_long', '0.01', '120'))).rejects.toBeInstanceOf(
      OutcomeUnknownError,
    );
    expect((await lost.p.currentPlans({})).plans.map((x) => x.clientOid)).toEqual(['lost']);

    const limited = venue({
      faults: { faults: [{ kind: 'rateLimited', probability: 1, endpoints: ['currentPlan', 'cancelPlan'] }] },
    });
    await expect(limited.p.currentPlans({})).rejects.toBeInstanceOf(RateLimitedError);
    await expect(limited.p.cancelPlan({ symbol: BTC, clientOid: clientOid('x') })).rejects.toBeInstanceOf(
      RateLimitedError,
    );

    const stale = venue({
      faults: { faults: [{ kind: 'staleHistory', probability: 1, lagMs: 5000, endpoints: ['historyPlan'] }] },
    });
    await stale.p.placePlan(BTC, plan('st', 'open_long', '0.01', '100.5'));
    stale.tick(101);
    expect(await history(stale.p)).toHaveLength(0); // triggered 1 s ago: not in a 5 s old view
    stale.clock.t += 5000;
    expect((await history(stale.p))[0]?.status).toBe('filled');
    expect(stale.p.stats().faults.byKind.staleHistory).toBeGreaterThan(0);
  });

  it('retention forgets finished plans an hour (SimPort default) after they finished', async () => {
    const { p, clock } = venue();
    await p.placePlan(BTC, plan('gone', 'open_long', '0.01', '150'));
    await p.cancelPlan({ symbol: BTC, clientOid: clientOid('gone') });
    expect(p.core.plans.remembered).toBe(1);
    clock.t += 3_600_000 + 2;
    p.advanceTo(clock.t);
    expect(p.core.plans.remembered).toBe(0);
    expect(await history(p)).toHaveLength(0);
  });

  it('finished plans leave the expiry queue once forgotten: it holds the armed plans, not every plan placed', async () => {
    const { p, clock } = venue();
    // One plan armed for the whole run: it must still expire 90 days after its creation.
    await p.placePlan(BTC, plan('keep', 'open_long', '0.01', '150'));
    const n = 3 * SIM_COMPACT_MIN_DEAD;
    for (let i = 0; i < n; i++) {
      await p.placePlan(BTC, plan(`c${i}`, 'open_long', '0.01', '150'));
      await p.cancelPlan({ symbol: BTC, clientOid: clientOid(`c${i}`) });
      clock.t += 10_000;
      p.advanceTo(clock.t);
    }
    const fp = p.core.footprint();
    // Forgotten an hour after they finished; the queue keeps the armed plan, the plans of the last
    // hour and at most SIM_COMPACT_MIN_DEAD forgotten since its last compaction (./compaction.ts).
    const lastHour = 3_600_000 / 10_000 + 1;
    expect(fp['plans.plans']).toBeLessThanOrEqual(1 + lastHour);
    expect(fp['plans.expiries']).toBeLessThanOrEqual(1 + lastHour + SIM_COMPACT_MIN_DEAD);
    expect(fp['plans.expiriesBacking']).toBeLessThanOrEqual(1 + lastHour + SIM_COMPACT_MIN_DEAD);
    expect(fp['plans.bySymbol']).toBeLessThanOrEqual(1 + lastHour + SIM_COMPACT_MIN_DEAD);
    clock.t = T0 + PLAN_EXPIRY_MS;
    expect((await p.currentPlans({})).plans.map((x) => x.clientOid)).toEqual([]);
    expect((await history(p)).find((x) => x.clientOid === 'keep')?.status).toBe('canceled');
  });

  it('the state version moves with plan changes and preset lags count as timed work', async () => {
    const { p, clock } = venue();
    const v0 = p.stateVersion();
    await p.placePlan(BTC, plan('v', 'open_long', '0.01', '150'));
    expect(p.stateVersion()).toBeGreaterThan(v0);
    await p.placeOrder(BTC, {
      clientOid: clientOid('pp'),
      side: 'open_long',
      orderType: 'normal',
      size: dec('0.01'),
      presetStopLossPrice: dec('90'),
    });
    expect(p.quiet()).toBe(false);
    const v1 = p.stateVersion();
    clock.t += 2000;
    expect(p.stateVersion()).toBeGreaterThan(v1);
    expect(p.quiet()).toBe(true);
  });
});

describe('simulator plan reads in-process', () => {
  for (const style of ['documented', 'live'] as const) {
    it(`makes a plan report once per revision, as the HTTP client decodes the ${style} rows`, async () => {
      const { p, tick } = venue({ planRowStyle: style });
      // What the HTTP client makes of the venue's reply, decoded afresh from its JSON text.
      const bodyOf = (endpoint: 'historyPlan' | 'currentPlan', query: string): unknown => {
        const reply = p.venue.dispatch(endpoint, queryParams(query), undefined, NO_REQUEST_FAULTS, 0);
        return reply.ok ? JSON.parse(JSON.stringify(reply.body)) : undefined;
      };
      const fresh = {
        history: () =>
          planHistoryReplySchema
            .parse(bodyOf('historyPlan', `symbol=cmt_btcusdt&startTime=0&endTime=4000000000000`))
            .list.map(planReportFromWire),
        current: () =>
          currentPlanPageFromWire(currentPlanReplySchema.parse(bodyOf('currentPlan', '')), undefined),
      };
      await p.placePlan(BTC, plan('rest', 'open_long', '0.01', '150')); // never fires
      await p.placePlan(BTC, plan('fire', 'open_long', '0.01', '101.5')); // fires, market child fills
      await p.placePlan(BTC, plan('gone', 'open_short', '0.01', '90', '89')); // canceled
      expect(await p.cancelPlan({ symbol: BTC, clientOid: clientOid('gone') })).toMatchObject({
        result: true,
      });
      tick(102);
      tick(102);
      const h1 = await history(p);
      const c1 = await p.currentPlans({ symbol: BTC });
      expect(h1).toEqual(fresh.history());
      expect(c1).toEqual(fresh.current());
      expect(h1.map((x) => x.clientOid).sort()).toEqual(['fire', 'gone']);
      expect(c1.plans.map((x) => x.clientOid)).toEqual(['rest']);
      tick(103);
      // Unchanged revisions: the very same report objects; a changed plan is decoded anew.
      const h2 = await history(p);
      const c2 = await p.currentPlans({ symbol: BTC });
      expect(h2).toEqual(fresh.history());
      expect(c2.plans[0]).toBe(c1.plans[0]);
      expect(h2.find((x) => x.clientOid === 'fire')).toBe(h1.find((x) => x.clientOid === 'fire'));
      expect(await p.cancelPlan({ symbol: BTC, clientOid: clientOid('rest') })).toMatchObject({
        result: true,
      });
      const h3 = await history(p);
      const rest1 = c1.plans[0];
      const rest3 = h3.find((x) => x.clientOid === 'rest');
      expect(h3).toEqual(fresh.history());
      expect(rest3).not.toBe(rest1);
      expect(rest3?.status).toBe('canceled');
      expect((await p.currentPlans({ symbol: BTC })).plans).toEqual([]);
    });
  }
});

describe('simulator plan triggers, decided exactly', () => {
  // The trigger check screens each snapshot with doubles first (core/float-screen.ts): a plan must
  // still fire at exactly the first snapshot whose price reaches the trigger, for prices equal to it
  // or a hair on either side, rising and falling, on the last price and on the mark price. (Placed
  // at a last of 150: a trigger above rises, one below falls.)
  const offsets = ['0', '1e-12', '-1e-12', '1e-8', '-1e-8', '0.05', '-0.05', '3', '-3'];
  it('fires at the first snapshot the exact comparison says, however close', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 999 }),
        fc.boolean(),
        fc.constantFrom<'last' | 'mark'>('last', 'mark'),
        fc.array(fc.constantFrom(...offsets), { minLength: 1, maxLength: 8 }),
        async (tenths, rise, source, moves) => {
          const trigger = dec(rise ? 200 : 50).plus(dec(tenths).div(10));
          const clock = { t: T0, now: () => clock.t };
          const p = new SimPort({ clock, seed: 5, planTriggerSource: source });
          const snapshot = (price: string): void => {
            clock.t += 1000;
            const t = ticker('cmt_btcusdt', price, price, price);
            p.applyTickers(clock.t, [source === 'mark' ? { ...t, markPrice: price, last: '150' } : t]);
          };
          snapshot('150');
          const r = await p.placePlan(BTC, plan('x', 'open_long', '0.01', trigger.toFixed()));
          expect(r.outcome).toBe('accepted');
          let firedAt = -1;
          for (const [i, move] of moves.entries()) {
            const price = trigger.plus(dec(move));
            snapshot(price.toFixed());
            const open = (await p.currentPlans({})).plans.length === 1;
            const reached = rise ? price.gte(trigger) : price.lte(trigger);
            if (firedAt === -1) {
              expect(open).toBe(!reached);
              if (reached) firedAt = i;
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
