// Properties of the matching core over random order flows and random markets.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, ZERO, type Dec } from '../../../src/core/decimal.ts';
import type { OrderSide, OrderType } from '../../../src/core/orders.ts';
import { ContractTable } from '../../../src/exchange/sim/contracts.ts';
import { MatchingCore, type FillModel } from '../../../src/exchange/sim/matching.ts';
import type { SimFill } from '../../../src/exchange/sim/model.ts';
import { ticker } from './helpers.ts';

const SYM = 'cmt_testusdt';
const TICK = dec('0.1');
const STEP = dec('0.01');
const table = new ContractTable({
  [SYM]: {
    sizeStep: '0.01',
    priceTick: '0.1',
    minSize: '0.01',
    maxSize: '1000',
    makerFeeRate: '0.0002',
    takerFeeRate: '0.0008',
  },
});

type Action =
  | { kind: 'market'; bidTicks: number; spreadTicks: number; dt: number }
  | {
      kind: 'place';
      side: OrderSide;
      orderType: OrderType;
      sizeSteps: number;
      priceTicks: number | null;
      dt: number;
    }
  | { kind: 'cancel'; pick: number; dt: number }
  | { kind: 'wait'; dt: number };

const sides: OrderSide[] = ['open_long', 'open_short', 'close_long', 'close_short'];
const types: OrderType[] = ['normal', 'postOnly', 'fok', 'ioc'];

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('market' as const),
    bidTicks: fc.integer({ min: 950, max: 1050 }),
    spreadTicks: fc.integer({ min: 1, max: 3 }),
    dt: fc.integer({ min: 0, max: 1000 }),
  }),
  fc.record({
    kind: fc.constant('place' as const),
    side: fc.constantFrom(...sides),
    orderType: fc.constantFrom(...types),
    sizeSteps: fc.integer({ min: 1, max: 300 }),
    priceTicks: fc.option(fc.integer({ min: 940, max: 1060 }), { freq: 4 }),
    dt: fc.integer({ min: 0, max: 200 }),
  }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat(), dt: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ kind: fc.constant('wait' as const), dt: fc.integer({ min: 0, max: 2000 }) }),
);

const configArb = fc.record({
  fillModel: fc.constantFrom<FillModel>('through', 'touch'),
  liquidity: fc.option(fc.integer({ min: 1, max: 200 }), { freq: 2 }),
  slippageBps: fc.integer({ min: 0, max: 50 }),
  acceptDelayMs: fc.constantFrom(0, 0, 150),
  cancelDelayMs: fc.constantFrom(0, 0, 300),
});

interface Run {
  readonly core: MatchingCore;
  /** Index into fills() at which each order was seen `canceled`. */
  readonly canceledAtFill: Map<string, number>;
}

type Cfg = {
  fillModel: FillModel;
  liquidity: number | null;
  slippageBps: number;
  acceptDelayMs: number;
  cancelDelayMs: number;
};

function run(cfg: Cfg, actions: readonly Action[]): Run {
  const core = new MatchingCore({
    contracts: table,
    fillModel: cfg.fillModel,
    slippageBps: dec(cfg.slippageBps),
    ...(cfg.liquidity !== null ? { liquidityPerSnapshot: STEP.times(cfg.liquidity) } : {}),
    acceptDelayMs: cfg.acceptDelayMs,
    cancelDelayMs: cfg.cancelDelayMs,
    seed: 3,
  });
  let now = 1000;
  core.applyTickers(now, [ticker(SYM, '100.0', '100.1')]);
  let n = 0;
  const canceledAtFill = new Map<string, number>();
  const observe = (): void => {
    for (const o of core.orders()) {
      if (o.status === 'canceled' && !canceledAtFill.has(o.orderId))
        canceledAtFill.set(o.orderId, core.fills().length);
    }
  };
  for (const a of actions) {
    now += a.dt;
    switch (a.kind) {
      case 'market': {
        const bid = TICK.times(a.bidTicks);
        core.applyTickers(now, [ticker(SYM, bid.toFixed(1), bid.plus(TICK.times(a.spreadTicks)).toFixed(1))]);
        break;
      }
      case 'place':
        core.place(now, SYM, {
          clientOid: `o${n++}`,
          side: a.side,
          orderType: a.orderType,
          size: STEP.times(a.sizeSteps),
          ...(a.priceTicks !== null ? { price: TICK.times(a.priceTicks) } : {}),
        });
        break;
      case 'cancel': {
        const all = core.orders();
        const o = all[a.pick % Math.max(1, all.length)];
        if (o) core.cancel(now, { orderId: o.orderId });
        break;
      }
      case 'wait':
        core.advanceTo(now);
        break;
    }
    observe();
  }
  return { core, canceledAtFill };
}

const flows = fc.tuple(configArb, fc.array(actionArb, { minLength: 1, maxLength: 60 }));
const sum = (xs: readonly Dec[]): Dec => xs.reduce((a, b) => a.plus(b), ZERO);
const fillsOf = (fills: readonly SimFill[], orderId: string) => fills.filter((f) => f.orderId === orderId);

describe('matching core properties', () => {
  it('never fills more than the order size; fills add up to filled_qty; sizes are on the step', () => {
    fc.assert(
      fc.property(flows, ([cfg, actions]) => {
        const { core } = run(cfg, actions);
        for (const o of core.orders()) {
          const fs = fillsOf(core.fills(), o.orderId);
          expect(sum(fs.map((f) => f.size)).eq(o.filledQty)).toBe(true);
          expect(o.filledQty.lte(o.size)).toBe(true);
          expect(o.status === 'filled').toBe(o.filledQty.eq(o.size));
          for (const f of fs) expect(f.size.gt(0) && f.size.mod(STEP).eq(0)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('fee = rate × value exactly, value = size × price exactly', () => {
    fc.assert(
      fc.property(flows, ([cfg, actions]) => {
        const { core } = run(cfg, actions);
        for (const f of core.fills()) {
          expect(f.value.eq(f.size.times(f.price))).toBe(true);
          const rate = f.liquidity === 'MAKER' ? dec('0.0002') : dec('0.0008');
          expect(f.feeRate.eq(rate)).toBe(true);
          expect(f.fee.eq(f.value.times(rate))).toBe(true);
        }
        for (const o of core.orders()) {
          expect(o.fee.eq(sum(fillsOf(core.fills(), o.orderId).map((f) => f.fee)))).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('position quantity is conserved across opens and closes and never negative', () => {
    fc.assert(
      fc.property(flows, ([cfg, actions]) => {
        const { core } = run(cfg, actions);
        const fills = core.fills();
        const qty = (side: OrderSide) => sum(fills.filter((f) => f.side === side).map((f) => f.size));
        const pos = core.position(SYM);
        expect(pos.long.qty.eq(qty('open_long').minus(qty('close_long')))).toBe(true);
        expect(pos.short.qty.eq(qty('open_short').minus(qty('close_short')))).toBe(true);
        expect(pos.long.qty.gte(0) && pos.short.qty.gte(0)).toBe(true);
        // Active closes never promise more than is held.
        expect(core.closable(SYM, 'long').gte(0) && core.closable(SYM, 'short').gte(0)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('realised PnL: Σ long PnL = Σ close value − (Σ open value − cost still held); mirrored for short', () => {
    fc.assert(
      fc.property(flows, ([cfg, actions]) => {
        const { core } = run(cfg, actions);
        const fills = core.fills();
        const value = (side: OrderSide) => sum(fills.filter((f) => f.side === side).map((f) => f.value));
        const pnl = (side: OrderSide) => sum(fills.filter((f) => f.side === side).map((f) => f.realizedPnl));
        const pos = core.position(SYM);
        expect(pnl('close_long').eq(value('close_long').minus(value('open_long').minus(pos.long.cost)))).toBe(
          true,
        );
        expect(
          pnl('close_short').eq(value('open_short').minus(pos.short.cost).minus(value('close_short'))),
        ).toBe(true);
        expect(sum(fills.filter((f) => f.side.startsWith('open')).map((f) => f.realizedPnl)).eq(0)).toBe(
          true,
        );
        expect(
          pos.long.realizedPnl.eq(pnl('close_long')) && pos.short.realizedPnl.eq(pnl('close_short')),
        ).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('realised PnL of one round trip has the sign and size (exit − entry) × size (long), mirrored (short)', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 500, max: 1500 }),
        fc.integer({ min: 500, max: 1500 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 100 }),
        (long, entryTicks, exitTicks, openSteps, closeFrac) => {
          const core = new MatchingCore({ contracts: table });
          const entry = TICK.times(entryTicks);
          const exit = TICK.times(exitTicks);
          const size = STEP.times(openSteps);
          const closeSize = STEP.times(Math.max(1, Math.floor((openSteps * closeFrac) / 100)));
          core.applyTickers(1, [ticker(SYM, entry.toFixed(1), entry.toFixed(1))]);
          core.place(1, SYM, {
            clientOid: 'o',
            side: long ? 'open_long' : 'open_short',
            orderType: 'normal',
            size,
          });
          core.applyTickers(2, [ticker(SYM, exit.toFixed(1), exit.toFixed(1))]);
          core.place(2, SYM, {
            clientOid: 'c',
            side: long ? 'close_long' : 'close_short',
            orderType: 'normal',
            size: closeSize,
          });
          const pnl = core.fills().at(-1)?.realizedPnl ?? ZERO;
          const expected = long ? exit.minus(entry).times(closeSize) : entry.minus(exit).times(closeSize);
          expect(pnl.eq(expected)).toBe(true);
          expect(pnl.cmp(0)).toBe(long ? exit.cmp(entry) : entry.cmp(exit));
        },
      ),
    );
  });

  it('post-only orders never take liquidity', () => {
    fc.assert(
      fc.property(flows, ([cfg, actions]) => {
        const { core } = run(cfg, actions);
        const postOnly = new Set(
          core
            .orders()
            .filter((o) => o.orderType === 'postOnly')
            .map((o) => o.orderId),
        );
        for (const f of core.fills()) if (postOnly.has(f.orderId)) expect(f.liquidity).toBe('MAKER');
      }),
      { numRuns: 150 },
    );
  });

  it('fok orders never fill partially', () => {
    fc.assert(
      fc.property(flows, ([cfg, actions]) => {
        const { core } = run(cfg, actions);
        for (const o of core.orders().filter((x) => x.orderType === 'fok')) {
          expect(o.filledQty.eq(0) || o.filledQty.eq(o.size)).toBe(true);
          expect(fillsOf(core.fills(), o.orderId).length).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a canceled order never fills afterwards', () => {
    fc.assert(
      fc.property(flows, ([cfg, actions]) => {
        const { core, canceledAtFill } = run(cfg, actions);
        const fills = core.fills();
        for (const [orderId, at] of canceledAtFill) {
          expect(fills.slice(at).some((f) => f.orderId === orderId)).toBe(false);
          expect(core.order(orderId)?.status).toBe('canceled');
        }
      }),
      { numRuns: 150 },
    );
  });

  it('is deterministic: the same flow gives the same orders and fills', () => {
    fc.assert(
      fc.property(flows, ([cfg, actions]) => {
        const a = run(cfg, actions).core;
        const b = run(cfg, actions).core;
        const text = (c: MatchingCore) => JSON.stringify({ o: c.orders(), f: c.fills() });
        expect(text(a)).toBe(text(b));
      }),
      { numRuns: 50 },
    );
  });
});

describe('the generated flows exercise what the properties speak about', () => {
  it('fills of both liquidities, closes with PnL, partial cancels, fok and post-only fills occur', () => {
    const seen = { maker: 0, taker: 0, closePnl: 0, partialCancel: 0, fokFilled: 0, postOnlyFilled: 0 };
    for (const [cfg, actions] of fc.sample(flows, { numRuns: 300, seed: 11 })) {
      const { core } = run(cfg, actions);
      const fills = core.fills();
      seen.maker += fills.filter((f) => f.liquidity === 'MAKER').length;
      seen.taker += fills.filter((f) => f.liquidity === 'TAKER').length;
      seen.closePnl += fills.filter((f) => !f.realizedPnl.eq(0)).length;
      for (const o of core.orders()) {
        if (o.status === 'canceled' && o.filledQty.gt(0)) seen.partialCancel++;
        if (o.orderType === 'fok' && o.status === 'filled') seen.fokFilled++;
        if (o.orderType === 'postOnly' && o.filledQty.gt(0)) seen.postOnlyFilled++;
      }
    }
    for (const [k, v] of Object.entries(seen)) expect(v, k).toBeGreaterThan(0);
  });
});
