import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { clientOid, strategyId, tradeId } from '../../src/core/ids.ts';
import type { Intent } from '../../src/core/intents.ts';
import { intentJson } from '../../src/core/intent-json.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import type { Order } from '../../src/core/orders.ts';
import type { FillReport } from '../../src/core/reports.ts';
import { newOrder } from '../../src/core/order-reducer.ts';
import { riskLimits } from '../../src/risk/limits.ts';
import type { JournalEntry } from '../../src/store/port.ts';
import type { StrategyFill } from '../../src/strategy/types.ts';
import { engineHarness, inlineStrategy, kinds, type EngineHarness } from '../helpers/engine-harness.ts';
import { BTC, ETH, makeTicker } from '../helpers/market.ts';
import { MemoryStore } from '../helpers/memory-store.ts';

const buyBelow = inlineStrategy('buyer', (ctx) => ({
  onTicker: (t) =>
    ctx.place({
      symbol: t.symbol,
      side: 'open_long',
      size: '0.001',
      price: ctx.roundPrice(t.symbol, t.last.minus(1)),
    }),
}));

/** Reconciliation's event for a fill of `order` (an open_long on BTC) reported by the exchange now. */
function openLongFilled(
  h: EngineHarness,
  order: Order,
  trade: string,
  size: string,
  value: string,
  fee: string,
): OrderEvent {
  const fill: FillReport = {
    tradeId: tradeId(trade),
    orderId: order.orderId!,
    symbol: BTC,
    positionSide: 'LONG',
    orderSide: 'BUY',
    direction: 'open_long',
    size: dec(size),
    value: dec(value),
    fee: dec(fee),
    realizedPnl: dec(0),
    createdTime: h.vt.now(),
  };
  return {
    kind: 'OrderFilled',
    clientOid: order.clientOid,
    at: h.vt.now(),
    orderId: order.orderId!,
    tradeId: fill.tradeId,
    fill,
  };
}

/**
 * Reconciliation's confirmation of a cancel: order history reports the order canceled. The harness
 * has no pollers; an accepted cancel leaves the order `canceling` until this arrives.
 */
function confirmCanceled(h: EngineHarness, oid: string): void {
  h.engine.applyOrderEvents([
    {
      kind: 'OrderCanceled',
      clientOid: clientOid(oid),
      at: h.vt.now(),
      filledQty: dec(0),
      reason: 'canceled at the exchange',
    },
  ]);
}

describe('engine: intent pipeline', () => {
  it('turns a strategy intent into a stored, submitted and accepted order with a deterministic client_oid', async () => {
    const h = engineHarness({ strategies: [{ id: 's1', definition: buyBelow }] });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    expect(kinds(h.events)).toEqual(['StrategyIntent', 'OrderCreated', 'OrderSubmitted', 'OrderAccepted']);
    const oid = clientOid('cb-s1-1');
    expect(h.store.getOrder(oid)).toMatchObject({
      status: 'pending',
      price: dec('99'),
      size: dec('0.001'),
      strategy: 's1',
    });
    expect(h.store.writes).toEqual([
      ['insert', oid, 'created'],
      ['update', oid, 'submitted'],
      ['update', oid, 'pending'],
    ]);
    expect(h.port.requests.map((r) => [r.endpoint, r.ids])).toEqual([['placeOrder', [oid]]]);
    expect(h.store.journal).toEqual([
      expect.objectContaining({
        strategy: 's1',
        outcome: 'approved',
        clientOid: oid,
        intent: expect.objectContaining({ kind: 'place', symbol: BTC }),
      }),
    ]);
    expect(intentJson((h.store.journal[0] as JournalEntry).intent)).toContain('"size":"0.001"');
    await h.tick({ [BTC]: '101' });
    expect(h.store.getOrder(clientOid('cb-s1-2'))?.price?.toFixed()).toBe('100');
  });

  it('is idle now exactly when idle() would resolve at once', async () => {
    const h = engineHarness({ strategies: [{ id: 's1', definition: buyBelow }] });
    h.engine.start();
    expect(h.engine.idleNow()).toBe(true);
    h.engine.onTick([makeTicker(BTC, '100', 0)]);
    // The placement is staged for the batch (the tick's end releases it to the queue): work remains.
    expect(h.engine.idleNow()).toBe(false);
    await h.engine.idle();
    expect(h.engine.idleNow()).toBe(true);
    expect(h.store.getOrder(clientOid('cb-s1-1'))?.status).toBe('pending');
  });

  it('batches 40 placements of one tick into 2 batchOrders calls of 20', async () => {
    const forty = inlineStrategy('forty', (ctx) => ({
      onTicker: (t) =>
        Array.from({ length: 40 }, (_, i) =>
          ctx.place({ symbol: t.symbol, side: 'open_long', size: '0.001', price: t.last.minus(i + 1) }),
        ),
    }));
    const h = engineHarness({ strategies: [{ id: 'f', definition: forty }] });
    h.engine.start();
    await h.tick({ [BTC]: '1000' });
    expect(h.port.requests.map((r) => `${r.endpoint}:${r.ids.length}`)).toEqual([
      'batchOrders:20',
      'batchOrders:20',
    ]);
    expect(h.engine.metrics()).toMatchObject({
      ordersCreated: 40,
      ordersAccepted: 40,
      batchCalls: 2,
      requestsByEndpoint: { batchOrders: 2 },
    });
  });

  it('refuses intents at the risk gate with a reason, and never stores them as orders', async () => {
    const far = inlineStrategy('far', (ctx) => ({
      onTicker: (t) =>
        ctx.place({ symbol: t.symbol, side: 'open_long', size: '0.001', price: t.last.times(2) }),
    }));
    const h = engineHarness({ strategies: [{ id: 'far', definition: far }] });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    expect(kinds(h.events)).toEqual(['StrategyIntent', 'RiskRefused']);
    expect(h.events[1]).toMatchObject({ reason: 'price_band', strategy: 'far' });
    expect(h.store.allOrders()).toEqual([]);
    expect(h.store.journal[0]).toMatchObject({ outcome: 'refused:price_band' });
    expect(h.engine.metrics().rejectionsByReason).toEqual({ price_band: 1 });
    expect(h.port.requests).toEqual([]);
  });

  it('lets only cancels through once the kill switch is engaged, and cancels every open order', async () => {
    const h = engineHarness({ strategies: [{ id: 's1', definition: buyBelow }] });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    h.engine.killSwitch('operator');
    await h.settle();
    expect(h.engine.tradingState()).toBe('HALTED');
    // The venue took the cancel; the order is canceling until history confirms it (reconciliation).
    expect(h.store.getOrder(clientOid('cb-s1-1'))?.status).toBe('canceling');
    confirmCanceled(h, 'cb-s1-1');
    expect(h.store.getOrder(clientOid('cb-s1-1'))?.status).toBe('canceled');
    await h.tick({ [BTC]: '100' });
    expect(h.events.at(-1)).toMatchObject({ kind: 'RiskRefused', reason: 'halted' });
    expect(h.store.getMeta('tradingState')).toBe('HALTED');
  });
});

describe('engine: write-ahead commits', () => {
  it("commits the `submitted` marks of one batch's entries in one transaction, before it leaves", async () => {
    /** Notes which writes happened inside a transaction, and how many transactions there were. */
    class CountingStore extends MemoryStore {
      transactions = 0;
      depth = 0;
      readonly inTx: string[] = [];
      override transaction<T>(fn: () => T): T {
        this.transactions++;
        this.depth++;
        try {
          return fn();
        } finally {
          this.depth--;
        }
      }
      override updateOrder(order: Order): void {
        if (order.status === 'submitted') this.inTx.push(`${order.clientOid}:${this.depth > 0}`);
        super.updateOrder(order);
      }
    }
    const five = inlineStrategy('five', (ctx) => ({
      onTicker: (t) =>
        Array.from({ length: 5 }, (_, i) =>
          ctx.place({ symbol: t.symbol, side: 'open_long', size: '0.001', price: t.last.minus(i + 1) }),
        ),
    }));
    const store = new CountingStore();
    const h = engineHarness({ strategies: [{ id: 'five', definition: five }], store });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    expect(h.port.requests.map((r) => r.ids.length)).toEqual([5]);
    expect(store.inTx).toEqual([1, 2, 3, 4, 5].map((n) => `cb-five-${n}:true`));
  });
});

describe('engine: cancelAll', () => {
  it('cancels the open orders of one strategy without touching the trading state', async () => {
    const h = engineHarness({
      strategies: [
        { id: 'a', definition: buyBelow },
        { id: 'b', definition: buyBelow },
      ],
    });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    expect(h.engine.cancelAll({ strategy: strategyId('a') })).toEqual({ local: 0, requested: 1 });
    await h.settle();
    expect(h.store.getOrder(clientOid('cb-a-1'))?.status).toBe('canceling');
    expect(h.store.getOrder(clientOid('cb-b-1'))?.status).toBe('pending');
    confirmCanceled(h, 'cb-a-1');
    expect(h.store.getOrder(clientOid('cb-a-1'))?.status).toBe('canceled');
    expect(h.engine.tradingState()).toBe('ACTIVE');
    expect(h.engine.cancelAll()).toEqual({ local: 0, requested: 1 });
  });

  it('waits before canceling again an order the exchange said does not exist, unless told to retry', async () => {
    const h = engineHarness({ strategies: [{ id: 'a', definition: buyBelow }] });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    const oid = clientOid('cb-a-1');
    const at = h.vt.now();
    h.engine.applyOrderEvents([
      { kind: 'CancelRequested', clientOid: oid, at },
      { kind: 'CancelRejected', clientOid: oid, at, code: '50005', reason: 'Order does not exist' },
    ]);
    expect(h.store.getOrder(oid)?.status).toBe('open'); // a cancel refused: the order rests
    expect(h.engine.cancelAll()).toEqual({ local: 0, requested: 0 });
    expect(h.engine.cancelAll({ retryRefused: true })).toEqual({ local: 0, requested: 1 });
  });

  it('holds nothing for a cancel refused after the order ended (the refusal raced reconciliation)', async () => {
    const h = engineHarness({ strategies: [{ id: 'a', definition: buyBelow }] });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    const oid = clientOid('cb-a-1');
    h.engine.applyOrderEvents([{ kind: 'CancelRequested', clientOid: oid, at: h.vt.now() }]);
    confirmCanceled(h, 'cb-a-1');
    // The cancel's answer comes back after reconciliation settled the order: "does not exist".
    h.engine.applyOrderEvents([
      {
        kind: 'CancelRejected',
        clientOid: oid,
        at: h.vt.now(),
        code: '50005',
        reason: 'Order does not exist',
      },
    ]);
    expect(h.store.getOrder(oid)?.status).toBe('canceled');
    // Nothing would ever release a hold on a terminal order: none is taken.
    expect(h.engine.footprint()['cancels.refusedAt']).toBe(0);
    expect(h.engine.footprint()['open.orders']).toBe(0);
  });

  it('tells a strategy why its cancel was not sent (refused too recently), and sends it once it may', async () => {
    const cancelsEveryTick = inlineStrategy('c', (ctx) => ({
      onTicker: (t) => {
        const mine = ctx.openOrders(t.symbol);
        if (mine.length === 0)
          return ctx.place({ symbol: t.symbol, side: 'open_long', size: '0.001', price: t.last.minus(1) });
        return mine.map((o) => ctx.cancel(o));
      },
    }));
    const h = engineHarness({ strategies: [{ id: 'c', definition: cancelsEveryTick }] });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    const oid = clientOid('cb-c-1');
    const at = h.vt.now();
    h.engine.applyOrderEvents([
      { kind: 'CancelRequested', clientOid: oid, at },
      { kind: 'CancelRejected', clientOid: oid, at, code: '50005', reason: 'Order does not exist' },
    ]);
    const ignored = () => h.events.filter((e) => e.kind === 'IntentIgnored');
    const requested = () => h.events.filter((e) => e.kind === 'CancelRequested' && e.clientOid === oid);
    const before = requested().length;
    await h.tick({ [BTC]: '100' }, 2_000);
    expect(ignored()).toEqual([
      expect.objectContaining({
        strategy: 'c',
        reason: expect.stringMatching(
          /^the exchange refused a cancel of this order 2000 ms ago: cancels of it wait 5000 ms/,
        ),
      }),
    ]);
    expect(requested().length).toBe(before);
    await h.tick({ [BTC]: '100' }, 3_000);
    expect(requested().length).toBe(before + 1);
  });
});

describe('engine: rejections', () => {
  it('counts an exchange rejection by code, and logs its words', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino(
      { level: 'info' },
      { write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) },
    );
    const h = engineHarness({ strategies: [{ id: 'a', definition: buyBelow }], log });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    const oid = clientOid('cb-a-1');
    h.engine.applyOrderEvents([
      {
        kind: 'OrderRejected',
        clientOid: oid,
        at: h.vt.now(),
        code: '40015',
        reason: "close order size '0.05' exceeds the closable size '0'",
      },
    ]);
    expect(h.engine.metrics().rejectionsByReason).toMatchObject({ 'exchange:40015': 1 });
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'order rejected by the exchange',
        clientOid: 'cb-a-1',
        code: '40015',
        reason: expect.stringContaining('closable') as unknown,
      }),
    );
  });
});

describe('engine: strategy isolation', () => {
  it('disables a throwing strategy, cancels its orders, and keeps the others trading', async () => {
    let n = 0;
    const flaky = inlineStrategy('flaky', (ctx) => ({
      onTicker: (t) => {
        if (++n === 2) throw new Error('flaky broke');
        return ctx.place({ symbol: t.symbol, side: 'open_short', size: '0.001', price: t.last.plus(1) });
      },
    }));
    const h = engineHarness({
      strategies: [
        { id: 'flaky', definition: flaky },
        { id: 'steady', definition: buyBelow },
      ],
    });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    await h.tick({ [BTC]: '100' });
    await h.settle();
    await h.tick({ [BTC]: '100' });
    const disabled = h.events.filter((e) => e.kind === 'StrategyDisabled');
    expect(disabled).toEqual([
      expect.objectContaining({
        strategy: 'flaky',
        reason: expect.stringMatching(
          /^onTicker threw flaky broke \(test\/engine\/engine\.test\.ts:\d+:\d+\)$/,
        ),
      }),
    ]);
    expect(h.store.getOrder(clientOid('cb-flaky-1'))?.status).toBe('canceling');
    confirmCanceled(h, 'cb-flaky-1');
    expect(h.store.getOrder(clientOid('cb-flaky-1'))?.status).toBe('canceled');
    expect(h.store.allOrders().filter((o) => o.strategy === 'steady')).toHaveLength(3);
    expect(h.engine.metrics().strategiesDisabled).toBe(1);
  });

  it('disables a strategy that emits an invalid intent (not on its symbols)', async () => {
    const wrong = inlineStrategy('wrong', () => ({
      onTicker: (): Intent => ({
        kind: 'place',
        symbol: ETH,
        side: 'open_long',
        size: dec('1'),
        orderType: 'normal',
      }),
    }));
    const h = engineHarness({ strategies: [{ id: 'w', definition: wrong }] });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    expect(kinds(h.events)).toEqual(['StrategyDisabled']);
    await h.tick({ [BTC]: '100' });
    expect(kinds(h.events)).toEqual(['StrategyDisabled']);
  });
});

describe('engine: order updates, fills and cancels reach strategies', () => {
  it('shows order updates and fills to the strategy, reacting in the next step', async () => {
    const seen: string[] = [];
    const fills: StrategyFill[] = [];
    const reactive = inlineStrategy('reactive', (ctx) => ({
      onTicker: (t) =>
        ctx.openOrders().length === 0
          ? ctx.place({ symbol: t.symbol, side: 'open_long', size: '0.002', price: t.last })
          : undefined,
      onOrderUpdate: (o) => {
        seen.push(`${o.clientOid}:${o.status}`);
      },
      onFill: (f) => {
        fills.push(f);
        // Close what was bought, at once.
        return ctx.place({ symbol: f.symbol, side: 'close_long', size: f.size, price: f.price });
      },
    }));
    const h = engineHarness({ strategies: [{ id: 'r', definition: reactive }] });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    expect(seen).toEqual(['cb-r-1:created', 'cb-r-1:submitted', 'cb-r-1:pending']);
    const oid = clientOid('cb-r-1');
    const order = h.store.getOrder(oid)!;
    const filled = openLongFilled(h, order, 't1', '0.002', '0.2', '0.0001');
    // The same fill reported twice is applied once.
    h.engine.applyOrderEvents([filled]);
    h.engine.applyOrderEvents([filled]);
    await h.settle();
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({ strategy: 'r', clientOid: oid, side: 'open_long' });
    expect(fills[0]!.price.toFixed()).toBe('100');
    expect(h.store.getOrder(oid)).toMatchObject({ status: 'filled', filledQty: dec('0.002') });
    expect(h.store.allFills()).toHaveLength(1);
    expect(h.store.getOrder(clientOid('cb-r-2'))).toMatchObject({ side: 'close_long', status: 'pending' });
    expect(h.engine.metrics()).toMatchObject({ fills: 1, ordersFilled: 1 });
    expect(h.engine.pnl().fees.toFixed()).toBe('0.0001');
  });

  it('cancels an order that has not left locally, and a sent one through cancel_order', async () => {
    let tick = 0;
    const canceller = inlineStrategy('canceller', (ctx) => ({
      onTicker: (t) => {
        tick++;
        if (tick === 1)
          return [ctx.place({ symbol: t.symbol, side: 'open_long', size: '0.001', price: t.last.minus(1) })];
        if (tick === 2) {
          // Place and cancel in the same tick: the second one never leaves.
          const p = ctx.place({ symbol: t.symbol, side: 'open_long', size: '0.001', price: t.last.minus(2) });
          return [p, ctx.cancelAll(t.symbol)];
        }
        return [];
      },
    }));
    const h = engineHarness({ strategies: [{ id: 'c', definition: canceller }] });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    await h.tick({ [BTC]: '100' });
    await h.settle();
    expect(h.store.getOrder(clientOid('cb-c-1'))?.status).toBe('canceling');
    confirmCanceled(h, 'cb-c-1');
    expect(h.store.getOrder(clientOid('cb-c-1'))?.status).toBe('canceled');
    expect(h.store.getOrder(clientOid('cb-c-2'))).toMatchObject({
      status: 'canceled',
      reason: 'canceled before it was sent',
    });
    expect(h.port.requests.map((r) => r.endpoint)).toEqual(['placeOrder', 'cancelOrder']);
    expect(h.port.requests[1]!.ids).toEqual([h.store.getOrder(clientOid('cb-c-1'))!.orderId]);
  });

  it("ignores a cancel of an order that is not the strategy's own", async () => {
    const other = inlineStrategy('other', (ctx) => ({
      onTicker: (t) => ctx.cancel({ symbol: t.symbol, clientOid: 'cb-x-1' }),
    }));
    const h = engineHarness({ strategies: [{ id: 'o', definition: other }] });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    expect(h.events.at(-1)).toMatchObject({ kind: 'IntentIgnored' });
  });
});

describe('engine: restart and timers', () => {
  it('rejects orders found `created` at start (never sent) and continues the client_oid sequence', async () => {
    const store = new MemoryStore();
    const s1 = strategyId('s1');
    store.nextSequence(s1);
    store.insertOrder(
      newOrder({
        clientOid: clientOid('cb-s1-1'),
        strategy: s1,
        symbol: BTC,
        side: 'open_long',
        orderType: 'normal',
        size: dec('0.001'),
        price: dec('99'),
        at: 0,
      }),
    );
    const h = engineHarness({ strategies: [{ id: 's1', definition: buyBelow }], store });
    h.engine.start();
    expect(h.store.getOrder(clientOid('cb-s1-1'))).toMatchObject({ status: 'rejected' });
    expect(h.events[0]).toMatchObject({ kind: 'OrderRejected', code: 'NOT_SENT' });
    await h.tick({ [BTC]: '100' });
    expect(h.store.getOrder(clientOid('cb-s1-2'))?.status).toBe('pending');
  });

  it('fires onTimer on the declared interval from scheduler pulses in virtual time', async () => {
    const times: number[] = [];
    const timed = inlineStrategy('timed', () => ({
      timerIntervalMs: 1_000,
      onTimer: (now) => {
        times.push(now);
      },
    }));
    const h = engineHarness({
      strategies: [{ id: 't', definition: timed }],
      options: { timerPulseMs: 250 },
      start: 0,
    });
    h.engine.start();
    await h.vt.advanceTo(3_000);
    expect(times).toEqual([1_250, 2_250]);
  });

  it('moves to REDUCING on drawdown and refuses opening orders then', async () => {
    const seenState: string[] = [];
    let first = true;
    const watcher = inlineStrategy('watcher', (ctx) => ({
      onTicker: (t) => {
        if (!first) seenState.push(ctx.tradingState());
        first = false;
        return ctx.place({ symbol: t.symbol, side: 'open_long', size: '0.001', price: t.last.minus(1) });
      },
    }));
    const h = engineHarness({
      strategies: [{ id: 's1', definition: watcher }],
      options: {
        startingEquity: dec('100'),
        riskLimits: riskLimits({ drawdownReducePct: '5', drawdownHaltPct: '50' }),
      },
    });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    const order: Order = h.store.getOrder(clientOid('cb-s1-1'))!;
    h.engine.applyOrderEvents([openLongFilled(h, order, 't1', '0.001', '0.099', '10')]);
    expect(h.engine.tradingState()).toBe('REDUCING');
    expect(seenState).toEqual([]);
    await h.tick({ [BTC]: '100' });
    expect(seenState).toEqual(['REDUCING']);
    expect(h.events.filter((e) => e.kind === 'RiskRefused').at(-1)).toMatchObject({
      reason: 'reducing_only',
    });
    expect(h.events.some((e) => e.kind === 'TradingStateChanged')).toBe(true);
  });
});

describe('engine: the risk gate sees every change to live orders and positions', () => {
  it('counts the placements approved earlier in the same tick, and frees room as orders end', async () => {
    const five = inlineStrategy('five', (ctx) => ({
      onTicker: (t) =>
        Array.from({ length: 5 }, (_, i) =>
          ctx.place({ symbol: t.symbol, side: 'open_long', size: '0.01', price: t.last.minus(i + 1) }),
        ),
    }));
    // Room for 3 live orders and 2.5 of notional (each quote is ~0.99): the 3rd breaks the notional
    // limit, the 4th and 5th would also break the count.
    const h = engineHarness({
      strategies: [{ id: 'f', definition: five }],
      options: { riskLimits: riskLimits({ maxOpenOrders: 3, maxPositionNotional: '2.5' }) },
    });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    const refusals = () =>
      h.events.flatMap((e) => (e.kind === 'RiskRefused' ? [`${e.reason}: ${e.detail}`] : []));
    expect(h.engine.openOrders().map((o) => o.clientOid)).toEqual(['cb-f-1', 'cb-f-2']);
    expect(refusals()).toEqual([
      'position_notional: cmt_btcusdt gross notional with this order would be 2.94, exceeding 2.5',
      'position_notional: cmt_btcusdt gross notional with this order would be 2.93, exceeding 2.5',
      'position_notional: cmt_btcusdt gross notional with this order would be 2.92, exceeding 2.5',
    ]);
    // Both quotes end: the next tick has the whole room again.
    h.engine.applyOrderEvents(
      h.engine
        .openOrders()
        .map((o) => ({ kind: 'OrderCanceled' as const, clientOid: o.clientOid, at: h.vt.now() })),
    );
    h.events.length = 0;
    await h.tick({ [BTC]: '100' });
    expect(h.engine.openOrders()).toHaveLength(2);
    expect(refusals()).toHaveLength(3);
  });

  it('counts a position as soon as its fill is applied', async () => {
    let placed = 0;
    const one = inlineStrategy('one', (ctx) => ({
      onTicker: (t) =>
        placed++ < 2
          ? ctx.place({ symbol: t.symbol, side: 'open_long', size: '0.02', price: t.last })
          : undefined,
    }));
    const h = engineHarness({
      strategies: [{ id: 'o', definition: one }],
      options: { riskLimits: riskLimits({ maxPositionNotional: '3' }) },
    });
    h.engine.start();
    await h.tick({ [BTC]: '100' });
    const order = h.store.getOrder(clientOid('cb-o-1'))!;
    h.engine.applyOrderEvents([openLongFilled(h, order, 't-pos', '0.02', '2', '0')]);
    expect(h.engine.openOrders()).toHaveLength(0);
    // Position 0.02 × 110 = 2.2, plus this order 0.02 × 110 = 2.2: above 3.
    await h.tick({ [BTC]: '110' });
    expect(h.events.filter((e) => e.kind === 'RiskRefused').at(-1)).toMatchObject({
      reason: 'position_notional',
      detail: 'cmt_btcusdt gross notional with this order would be 4.4, exceeding 3',
    });
  });
});

describe('engine: keeping an unknown order within reach of order history', () => {
  it('refuses placements on its symbol once a history page would no longer reach it, and only there', async () => {
    const five = inlineStrategy(
      'five',
      (ctx) => ({
        onTicker: (t) =>
          Array.from({ length: 5 }, (_, i) =>
            ctx.place({
              symbol: t.symbol,
              side: 'open_long',
              size: t.symbol === ETH ? '0.01' : '0.001',
              price: t.last.minus(i + 1),
            }),
          ),
      }),
      [BTC, ETH],
    );
    let first = true;
    const h = engineHarness({
      strategies: [{ id: 'five', definition: five }],
      options: {
        riskLimits: riskLimits({ maxOpenOrders: 1_000, maxOrdersPerMinute: 10_000 }),
        historyHeadroom: { pageSize: 14, skewMs: 1_000, reserve: 2, holdMs: 60_000 },
      },
      // The very first request's reply is lost: its order stays unknown.
      port: {
        fate: () => {
          const f = first ? 'lost' : 'accept';
          first = false;
          return f;
        },
      },
    });
    h.engine.start();
    await h.tick({ [BTC]: '100' }); // 5 orders, unknown
    await h.tick({ [BTC]: '100' }); // 10
    await h.tick({ [BTC]: '100', [ETH]: '500' }); // BTC: 12 = 14 − 2, then refused; ETH: 5
    const btc = [...h.store.orders.values()].filter((o) => o.symbol === BTC);
    const eth = [...h.store.orders.values()].filter((o) => o.symbol === ETH);
    expect(btc).toHaveLength(12);
    expect(btc.filter((o) => o.status === 'unknown')).toHaveLength(5);
    expect(eth).toHaveLength(5);
    const refused = h.events.filter((e) => e.kind === 'RiskRefused');
    expect(refused).toHaveLength(3);
    expect(refused[0]).toMatchObject({ reason: 'reconcile_backlog' });
    expect(JSON.stringify(refused[0])).toMatch(/unknown outcome and 12 orders since \(limit 12/);
  });
});
