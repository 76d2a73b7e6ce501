import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { clientOid, strategyId, symbolId, type SymbolId } from '../../src/core/ids.ts';
import { ORDER_SIDES, type Order } from '../../src/core/orders.ts';
import { OpenOrders } from '../../src/engine/open-orders.ts';
import { NO_OPENING_WORK, openOrderExposure, type OpenOrderExposure } from '../../src/risk/exposure.ts';

const SYMBOLS = [symbolId('cmt_btcusdt'), symbolId('cmt_ethusdt')];

function order(n: number, o: Omit<Partial<Order>, 'clientOid'> = {}): Order {
  return {
    clientOid: clientOid(`cb-s-${n}`),
    strategy: strategyId('s'),
    symbol: SYMBOLS[0] as SymbolId,
    side: 'open_long',
    orderType: 'normal',
    size: dec('1'),
    status: 'open',
    filledQty: dec('0'),
    createdAt: 0,
    updatedAt: 0,
    ...o,
  };
}

/** Equal exposures: same live count, same sums per symbol (a symbol left at zero counts as absent). */
function expectSameExposure(a: OpenOrderExposure, b: OpenOrderExposure): void {
  expect(a.live).toBe(b.live);
  for (const s of new Set([...a.opening.keys(), ...b.opening.keys()])) {
    const x = a.opening.get(s) ?? NO_OPENING_WORK;
    const y = b.opening.get(s) ?? NO_OPENING_WORK;
    expect(x.limitNotional.eq(y.limitNotional), `${s} limit notional`).toBe(true);
    expect(x.marketSize.eq(y.marketSize), `${s} market size`).toBe(true);
  }
}

/** Versions of orders 0..5: the engine replaces an order as its status and fills move on. */
const arbVersion = fc
  .record({
    n: fc.integer({ min: 0, max: 5 }),
    symbol: fc.constantFrom(...SYMBOLS),
    side: fc.constantFrom(...ORDER_SIDES),
    size: fc.integer({ min: 1, max: 5_000 }).map((n) => dec(n).div(1_000)),
    filledThousandths: fc.integer({ min: 0, max: 6_000 }),
    status: fc.constantFrom<Order['status']>(
      'created',
      'submitted',
      'open',
      'canceling',
      'filled',
      'canceled',
    ),
    price: fc.option(
      fc.integer({ min: 1, max: 90_000 }).map((n) => dec(n).div(10)),
      { nil: undefined },
    ),
  })
  .map(({ n, symbol, side, size, filledThousandths, status, price }) =>
    order(n, {
      symbol,
      status,
      side,
      size,
      filledQty: dec(filledThousandths).div(1_000),
      ...(price !== undefined ? { price } : {}),
    }),
  );

const arbOp = fc.oneof(
  arbVersion.map((o) => ({ kind: 'set' as const, order: o })),
  fc.integer({ min: 0, max: 5 }).map((n) => ({ kind: 'delete' as const, clientOid: clientOid(`cb-s-${n}`) })),
);

describe('OpenOrders: the live orders with their exposure kept summed', () => {
  it('always sums to what openOrderExposure computes from the orders it holds', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 60 }), (ops) => {
        const open = new OpenOrders();
        for (const op of ops) {
          if (op.kind === 'set') open.set(op.order);
          else open.delete(op.clientOid);
          expectSameExposure(open.exposure(), openOrderExposure([...open.values()]));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('hands out snapshots: a later change does not show through an earlier exposure', () => {
    const open = new OpenOrders();
    open.set(order(1, { price: dec('100') }));
    const before = open.exposure();
    open.set(order(2, { price: dec('50'), size: dec('2') }));
    open.delete(clientOid('cb-s-1'));
    expect(before.live).toBe(1);
    expect(before.opening.get(SYMBOLS[0] as SymbolId)?.limitNotional.toFixed()).toBe('100');
    expect(
      open
        .exposure()
        .opening.get(SYMBOLS[0] as SymbolId)
        ?.limitNotional.toFixed(),
    ).toBe('100');
    expect(open.exposure().live).toBe(1);
  });

  it('a new version with the same quantities (a status step) leaves the sums as they were', () => {
    const open = new OpenOrders();
    const created = order(1, { status: 'created', price: dec('10'), size: dec('3') });
    open.set(created);
    const e = open.exposure();
    open.set({ ...created, status: 'submitted' });
    expect(open.exposure()).toBe(e);
    expect(open.get(created.clientOid)?.status).toBe('submitted');
  });
});

describe('OpenOrders: each strategy’s orders, as strategies read them on every ticker', () => {
  const STRATEGIES = [strategyId('s'), strategyId('t')];
  const arbOwnedOp = fc.oneof(
    fc
      .tuple(arbVersion, fc.constantFrom(...STRATEGIES))
      .map(([o, strategy]) => ({ kind: 'set' as const, order: { ...o, strategy } })),
    fc
      .integer({ min: 0, max: 5 })
      .map((n) => ({ kind: 'delete' as const, clientOid: clientOid(`cb-s-${n}`) })),
  );

  it('lists what filtering values() gives, as frozen copies, and keeps handing out the same frozen list until one changes', () => {
    fc.assert(
      fc.property(fc.array(arbOwnedOp, { maxLength: 60 }), (ops) => {
        const open = new OpenOrders();
        for (const op of ops) {
          const before = STRATEGIES.map((st) => open.ofStrategy(st));
          const touched = op.kind === 'set' ? op.order.strategy : open.get(op.clientOid)?.strategy;
          const previous = op.kind === 'set' ? open.get(op.order.clientOid)?.strategy : undefined;
          if (op.kind === 'set') open.set(op.order);
          else open.delete(op.clientOid);
          STRATEGIES.forEach((st, i) => {
            const list = open.ofStrategy(st);
            expect(list).toEqual([...open.values()].filter((o) => o.strategy === st));
            expect(Object.isFrozen(list)).toBe(true);
            // Frozen copies: the held orders themselves stay as the engine made them.
            for (const o of list) {
              expect(Object.isFrozen(o)).toBe(true);
              expect(o).not.toBe(open.get(o.clientOid));
            }
            expect(open.ofStrategy(st)).toBe(list);
            if (st !== touched && st !== previous) expect(list).toBe(before[i]);
          });
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('OpenOrders: protective plans waiting for their trigger', () => {
  it('counts them as they come, fire (untriggered → pending) and go', () => {
    const open = new OpenOrders();
    const stop = order(1, {
      side: 'close_long',
      status: 'untriggered',
      triggerPrice: dec('90'),
      tag: 'stop-loss',
    });
    const entry = order(2, {
      side: 'close_long',
      status: 'untriggered',
      triggerPrice: dec('90'),
      tag: 'mine',
    });
    expect(open.hasProtectivePlans()).toBe(false);
    open.set(entry);
    expect(open.hasProtectivePlans()).toBe(false);
    open.set(stop);
    expect(open.hasProtectivePlans()).toBe(true);
    open.set({ ...stop, status: 'pending' });
    expect(open.hasProtectivePlans()).toBe(false);
    open.set(stop);
    open.delete(stop.clientOid);
    expect(open.hasProtectivePlans()).toBe(false);
  });
});
