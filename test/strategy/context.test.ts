import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dec } from '../../src/core/decimal.ts';
import { ConfigError, StrategyError } from '../../src/core/errors.ts';
import { clientOid, strategyId } from '../../src/core/ids.ts';
import type { Order } from '../../src/core/orders.ts';
import { createStrategyContext } from '../../src/strategy/context.ts';
import {
  defineStrategy,
  isStrategyDefinition,
  parseStrategyParams,
  STRATEGY_API_VERSION,
} from '../../src/strategy/define.ts';
import { validateIntent } from '../../src/strategy/intent-schema.ts';
import type { StrategyStateSource } from '../../src/strategy/types.ts';
import { BTC, ETH, makeTicker, SPECS } from '../helpers/market.ts';

const S = strategyId('s1');

function order(over: Partial<Order> = {}): Order {
  return {
    clientOid: clientOid('cb-s1-1'),
    strategy: S,
    symbol: BTC,
    side: 'open_long',
    orderType: 'normal',
    price: dec('100'),
    size: dec('0.001'),
    status: 'open',
    filledQty: dec(0),
    createdAt: 0,
    updatedAt: 0,
    ...over,
  };
}

const state: StrategyStateSource = {
  latestTicker: (s) => (s === BTC ? makeTicker(BTC, '100') : undefined),
  openOrders: () => Object.freeze([order(), order({ clientOid: clientOid('cb-s1-2'), symbol: ETH })]),
  position: (_s, symbol) => ({ symbol, long: dec('0.5'), short: dec(0) }),
  pnl: () => ({ realized: dec(1), unrealized: dec(0), fees: dec(0), net: dec(1) }),
};

const ctx = createStrategyContext({
  id: S,
  symbols: [BTC],
  specs: SPECS,
  clock: { now: () => 42 },
  log: pino({ level: 'silent' }),
  state,
});

describe('strategy context', () => {
  it('is frozen and exposes clock, tickers and the strategy own state', () => {
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(ctx.now()).toBe(42);
    expect(ctx.ticker(BTC)?.last.toFixed()).toBe('100');
    expect([...ctx.tickers().keys()]).toEqual([BTC]);
    expect(ctx.openOrders(BTC).map((o) => o.clientOid)).toEqual(['cb-s1-1']);
    expect(ctx.position(BTC).long.toFixed()).toBe('0.5');
    expect(ctx.pnl().net.toFixed()).toBe('1');
    expect(() => ctx.ticker(ETH)).toThrow(StrategyError);
  });

  it('gives one symbol’s open orders as the same frozen list while the engine’s list is the same', () => {
    let list: readonly Order[] = Object.freeze([
      order(),
      order({ clientOid: clientOid('cb-s1-2'), symbol: ETH }),
    ]);
    const c = createStrategyContext({
      id: S,
      symbols: [BTC, ETH],
      specs: SPECS,
      clock: { now: () => 42 },
      log: pino({ level: 'silent' }),
      state: { ...state, openOrders: () => list },
    });
    const btc = c.openOrders(BTC);
    expect(btc.map((o) => o.clientOid)).toEqual(['cb-s1-1']);
    expect(Object.isFrozen(btc)).toBe(true);
    expect(c.openOrders(BTC)).toBe(btc);
    expect(c.openOrders(ETH).map((o) => o.clientOid)).toEqual(['cb-s1-2']);
    expect(c.openOrders()).toBe(list);
    list = Object.freeze([order({ clientOid: clientOid('cb-s1-3') })]);
    expect(c.openOrders(BTC).map((o) => o.clientOid)).toEqual(['cb-s1-3']);
    expect(c.openOrders(ETH)).toEqual([]);
  });

  it('rounds prices to the tick and sizes to the step exactly', () => {
    expect(ctx.roundPrice(BTC, '100.06').toFixed()).toBe('100.1');
    expect(ctx.roundPrice(BTC, '100.06', 'down').toFixed()).toBe('100');
    expect(ctx.roundSize(BTC, '0.0019').toFixed()).toBe('0.001');
    expect(ctx.roundSize(BTC, dec('0.0011'), 'up').toFixed()).toBe('0.002');
  });

  it('builds validated intents', () => {
    const p = ctx.place({ symbol: BTC, side: 'open_short', size: '0.002', price: '101.5', tag: 'grid-1' });
    expect(p).toEqual({
      kind: 'place',
      symbol: BTC,
      side: 'open_short',
      size: dec('0.002'),
      price: dec('101.5'),
      orderType: 'normal',
      tag: 'grid-1',
    });
    expect(Object.isFrozen(p)).toBe(true);
    expect(
      ctx.place({ symbol: BTC, side: 'close_long', size: '0.001', orderType: 'ioc' }).price,
    ).toBeUndefined();
    expect(ctx.cancel(order())).toEqual({ kind: 'cancel', symbol: BTC, clientOid: 'cb-s1-1' });
    expect(ctx.cancel({ symbol: BTC, orderId: '123456789012345678' })).toEqual({
      kind: 'cancel',
      symbol: BTC,
      orderId: '123456789012345678',
    });
    expect(ctx.cancelAll()).toEqual({ kind: 'cancelAll' });
    expect(ctx.cancelAll(BTC)).toEqual({ kind: 'cancelAll', symbol: BTC });
  });

  it('refuses invalid intents with a StrategyError naming the problem', () => {
    expect(() => ctx.place({ symbol: ETH, side: 'open_long', size: '1' })).toThrow(
      /not one of the strategy's symbols/,
    );
    expect(() => ctx.place({ symbol: BTC, side: 'open_long', size: '-1' })).toThrow(/size: must be positive/);
    expect(() => ctx.place({ symbol: BTC, side: 'open_long', size: '0.0015' })).toThrow(
      /not a multiple of 0.001/,
    );
    expect(() => ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', price: '100.05' })).toThrow(
      /tick 0.1/,
    );
    expect(() => ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', orderType: 'postOnly' })).toThrow(
      /market order cannot be postOnly/,
    );
    expect(() => ctx.place({ symbol: BTC, side: 'open_long', size: '0.001', tag: 'x'.repeat(33) })).toThrow(
      StrategyError,
    );
    expect(() => ctx.cancel(order({ strategy: strategyId('other') }))).toThrow(/belongs to other/);
  });
});

describe('intent validation of raw strategy output', () => {
  const rules = { strategy: S, symbols: new Set([BTC]) };
  it('refuses values that are not intents', () => {
    expect(() => validateIntent(null, rules)).toThrow(StrategyError);
    expect(() => validateIntent({ kind: 'teleport' }, rules)).toThrow(/invalid intent/);
    expect(() =>
      validateIntent({ kind: 'place', symbol: BTC, side: 'sideways', size: dec(1) }, rules),
    ).toThrow(/side/);
    expect(() => validateIntent({ kind: 'place', symbol: BTC, side: 'open_long', size: 0.5 }, rules)).toThrow(
      /Dec or a decimal string/,
    );
    expect(() => validateIntent({ kind: 'cancel', symbol: BTC }, rules)).toThrow(/clientOid or an orderId/);
  });
  it('accepts decimal strings and normalises them to Dec', () => {
    const i = validateIntent({ kind: 'place', symbol: BTC, side: 'open_long', size: '1.50' }, rules);
    expect(i.kind === 'place' && i.size.eq(dec('1.5'))).toBe(true);
  });
});

describe('defineStrategy', () => {
  const def = defineStrategy({
    name: 'demo',
    version: '1.2.3',
    params: z.object({
      spread: z.string().regex(/^\d+(\.\d+)?$/),
      levels: z.number().int().positive().default(3),
    }),
    symbols: () => [BTC],
    create: () => ({}),
  });
  it('brands the definition with the API version', () => {
    expect(isStrategyDefinition(def)).toBe(true);
    expect(def.apiVersion).toBe(STRATEGY_API_VERSION);
    expect(isStrategyDefinition({ name: 'x' })).toBe(false);
  });
  it('applies defaults and reports every failing param path', () => {
    expect(parseStrategyParams(def, 'd1', { spread: '0.5' })).toEqual({ spread: '0.5', levels: 3 });
    let err: unknown;
    try {
      parseStrategyParams(def, 'd1', { spread: 'wide', levels: -1 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(
      /^strategy "d1" \(demo\): params\.spread: .*; params\.levels: /,
    );
  });
  it('refuses a bad strategy name', () => {
    expect(() =>
      defineStrategy({
        name: 'has space',
        version: '1',
        params: z.object({}),
        symbols: () => [BTC],
        create: () => ({}),
      }),
    ).toThrow(ConfigError);
  });
});

describe('place builder with optional fields left undefined', () => {
  it('treats undefined price/tag/orderType as absent', () => {
    const p = ctx.place({
      symbol: BTC,
      side: 'open_long',
      size: '0.001',
      price: undefined,
      tag: undefined,
      orderType: undefined,
    });
    expect(p).toEqual({
      kind: 'place',
      symbol: BTC,
      side: 'open_long',
      size: dec('0.001'),
      orderType: 'normal',
    });
    expect('price' in p).toBe(false);
  });
});
