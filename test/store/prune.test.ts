// `prune` on both stores (src/store/prune-plan.ts): what goes, what always stays, and positions that
// fold exactly as before.
import { afterEach, describe, expect, it } from 'vitest';
import { BadInputError } from '../../src/core/errors.ts';
import { strategyId } from '../../src/core/ids.ts';
import { isCarryFill, isCarryOrder } from '../../src/store/carry.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import type { OrderStore } from '../../src/store/port.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import {
  book,
  BTC,
  ETH,
  exchangeIdOf,
  fill,
  oidOf,
  order,
  plan,
  type FillSpec,
  type OrderSpec,
} from './prune-fixtures.ts';

const open: SqliteStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const stores: [string, () => OrderStore][] = [
  [
    'SqliteStore',
    () => {
      const s = new SqliteStore({ path: ':memory:', lease: false });
      open.push(s);
      return s;
    },
  ],
  ['MemoryStore', () => new MemoryStore()],
];

/** The rules of the tests: no minimum age unless a test sets one. */
const rules = (before: number, extra: object = {}) => ({ before, minAgeMs: -Infinity, ...extra });

function seed(s: OrderStore, orders: readonly OrderSpec[], fills: readonly FillSpec[] = []): void {
  for (const o of orders) s.insertOrder(order(o));
  for (const f of fills) s.recordFill(fill(f));
}

describe.each(stores)('%s.prune', (_, make) => {
  it('removes terminal orders updated before the cutoff with their fills, never an open order', () => {
    const s = make();
    seed(
      s,
      [
        { n: 1, status: 'filled', at: 100 },
        { n: 2, status: 'canceled', at: 110 },
        { n: 3, status: 'rejected', at: 120, withId: false },
        { n: 4, status: 'open', at: 130 },
        { n: 5, status: 'unknown', at: 140, withId: false },
        { n: 6, status: 'filled', at: 900 },
      ],
      [
        { t: 1, n: 1, at: 101 },
        { t: 4, n: 4, at: 131 },
        { t: 6, n: 6, at: 901, direction: 'CLOSE_LONG' },
      ],
    );
    s.appendJournal({
      at: 50,
      strategy: strategyId('grid'),
      intent: { kind: 'cancelAll' },
      outcome: 'approved',
    });
    s.appendJournal({
      at: 950,
      strategy: strategyId('grid'),
      intent: { kind: 'cancelAll' },
      outcome: 'approved',
    });
    s.recordPlanOrder?.(plan(1, 'canceled', 100), 100);
    s.recordPlanOrder?.(plan(2, 'untriggered', 100), 100);
    const wanted = book(s);

    const r = s.prune!(rules(500, { reachMarginMs: 0 }));
    expect(r).toMatchObject({ orders: 3, fills: 1, planOrders: 1, carriedLegs: 1, dryRun: false });
    expect(r.ordersByStatus).toEqual({ filled: 1, canceled: 1, rejected: 1 });
    expect(r.journal).toBe(s instanceof MemoryStore ? 0 : 1);
    const left = s.allOrders().filter((o) => !isCarryOrder(o));
    expect(left.map((o) => o.clientOid)).toEqual([oidOf(4), oidOf(5), oidOf(6)]);
    expect(s.openOrders().map((o) => o.clientOid)).toEqual([oidOf(4), oidOf(5)]);
    expect(
      s
        .allFills()
        .filter((f) => !isCarryFill(f))
        .map((f) => f.createdTime),
    ).toEqual([131, 901]);
    expect(s.planOrders?.().map((p) => p.status)).toEqual(['untriggered']);
    expect(book(s)).toEqual(wanted);
  });

  it('carries positions, realised PnL and fees exactly, and a second prune folds the first carry', () => {
    const s = make();
    seed(
      s,
      [
        { n: 1, status: 'filled', at: 100 },
        { n: 2, status: 'filled', at: 200, side: 'close_long' },
        { n: 3, status: 'filled', at: 300, side: 'open_short', strategy: 'mm' },
        { n: 4, status: 'filled', at: 400 },
        { n: 5, status: 'filled', at: 500, side: 'close_long' },
        { n: 6, status: 'filled', at: 900, side: 'close_long' },
      ],
      [
        { t: 1, n: 1, at: 101, size: '3', price: '100', fee: '0.3' },
        { t: 2, n: 2, at: 201, size: '1', price: '110', fee: '0.1' },
        { t: 3, n: 3, at: 301, size: '2', price: '50', strategy: 'mm' },
        { t: 4, n: 4, at: 401, size: '1', price: '130' },
        { t: 5, n: 5, at: 501, size: '2', price: '120', pnl: '7' },
        { t: 6, n: 6, at: 901, size: '1', price: '125' },
        // a fill of no known order: the fold classifies it by its direction, without a strategy
        { t: 7, n: 77, at: 250, attributed: false, direction: 'OPEN_SHORT', size: '5' },
      ],
    );
    const wanted = book(s);
    expect(s.prune!(rules(450))).toMatchObject({ orders: 4, fills: 5, carriedLegs: 3 });
    expect(book(s)).toEqual(wanted);
    expect(s.allOrders().filter(isCarryOrder)).toHaveLength(2);
    expect(s.allFills().filter(isCarryFill)).toHaveLength(3);
    expect(s.openOrders()).toEqual([]);

    expect(s.prune!(rules(600))).toMatchObject({ orders: 1, fills: 1, carriedLegs: 3 });
    expect(book(s)).toEqual(wanted);
    expect(s.allOrders().filter(isCarryOrder)).toHaveLength(2);
    expect(
      s
        .allFills()
        .filter((f) => !isCarryFill(f))
        .map((f) => f.createdTime),
    ).toEqual([901]);
  });

  it('keeps an order with a fill at or after the fills cutoff, and the fills the next fills poll reads', () => {
    const s = make();
    seed(
      s,
      [
        { n: 1, status: 'canceled', at: 100 },
        { n: 2, status: 'filled', at: 200 },
      ],
      [
        { t: 1, n: 1, at: 150 },
        { t: 2, n: 2, at: 250 },
      ],
    );
    expect(s.prune!(rules(500, { fillsBefore: 200 }))).toMatchObject({
      orders: 1,
      fills: 1,
      keptTerminalOrders: 1,
      keptFills: 1,
      fillsBefore: 200,
    });
    expect(s.getOrder(oidOf(2))).toBeDefined();
  });

  it('keeps an order whose late fill came after the cutoff (P3)', () => {
    const s = make();
    seed(s, [{ n: 1, status: 'canceled', at: 100 }], [{ t: 1, n: 1, at: 600, attributed: false }]);
    expect(s.prune!(rules(500))).toMatchObject({ orders: 0, fills: 0, keptTerminalOrders: 1 });
  });

  it('keeps what order history can still return: after the oldest open order of the symbol, unless buried', () => {
    const s = make();
    seed(s, [
      { n: 1, status: 'open', at: 1_000_000 },
      { n: 2, status: 'filled', at: 990_000 }, // created before it, less the margin
      { n: 3, status: 'filled', at: 1_000_500 }, // within its reach
      { n: 4, status: 'filled', at: 1_000_500, symbol: ETH }, // another symbol, nothing open there
    ]);
    const r = s.prune!(rules(2_000_000, { reachMarginMs: 5_000, historyPageSize: 3 }));
    expect(r).toMatchObject({ orders: 2, keptTerminalOrders: 1 });
    expect(s.getOrder(oidOf(3))).toBeDefined();
    // Three newer orders of the symbol at the exchange: a history page can no longer reach order 3.
    seed(s, [
      { n: 5, status: 'filled', at: 1_100_000 },
      { n: 6, status: 'filled', at: 1_200_000 },
      { n: 7, status: 'open', at: 1_300_000 },
    ]);
    expect(s.prune!(rules(1_250_000, { reachMarginMs: 5_000, historyPageSize: 3 }))).toMatchObject({
      orders: 1,
      keptTerminalOrders: 2,
    });
    expect(s.getOrder(oidOf(3))).toBeUndefined();
  });

  it('removes a leg only up to its first fill that stays (positions fold in order)', () => {
    const s = make();
    seed(
      s,
      [
        { n: 1, status: 'filled', at: 100 },
        { n: 2, status: 'open', at: 200 },
        { n: 3, status: 'filled', at: 300, side: 'close_long' },
      ],
      [
        { t: 1, n: 1, at: 101, size: '2' },
        { t: 2, n: 2, at: 201, size: '1', price: '150' },
        { t: 3, n: 3, at: 301, size: '2', price: '120' },
      ],
    );
    const wanted = book(s);
    // Order 3 is older than the cutoff, but its fill folds after the open order's: it stays.
    expect(s.prune!(rules(400, { reachMarginMs: 0, historyPageSize: 0 }))).toMatchObject({
      orders: 1,
      fills: 1,
      keptTerminalOrders: 1,
    });
    expect(s.getOrder(oidOf(3))).toBeDefined();
    expect(book(s)).toEqual(wanted);
  });

  it('changes nothing in a dry run, and counts the same', () => {
    const s = make();
    seed(s, [{ n: 1, status: 'filled', at: 100 }], [{ t: 1, n: 1, at: 101 }]);
    const before = JSON.stringify([s.allOrders(), s.allFills()]);
    const dry = s.prune!(rules(500), { dryRun: true });
    expect(JSON.stringify([s.allOrders(), s.allFills()])).toBe(before);
    const real = s.prune!(rules(500));
    expect({ ...dry, dryRun: false }).toEqual(real);
  });

  it('refuses a cutoff too close to the latest activity, changing nothing', () => {
    const s = make();
    seed(s, [{ n: 1, status: 'filled', at: 3_600_000 }]);
    expect(() => s.prune!({ before: 1_000_000, latestKnown: 4_000_000 })).toThrow(BadInputError);
    expect(s.allOrders()).toHaveLength(1);
    expect(s.prune!({ before: 400_000, latestKnown: 4_000_000 })).toMatchObject({ orders: 0 });
  });

  it('writes its meta values in the same transaction, and is undone with a transaction that throws', () => {
    const s = make();
    seed(s, [{ n: 1, status: 'filled', at: 100 }], [{ t: 1, n: 1, at: 101 }]);
    expect(() =>
      s.transaction(() => {
        s.prune!(rules(500), { meta: (r) => ({ pruned: String(r.orders) }) });
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(s.allOrders()).toHaveLength(1);
    expect(s.getMeta('pruned')).toBeUndefined();
    s.prune!(rules(500), { meta: (r) => ({ pruned: String(r.orders) }) });
    expect(s.getMeta('pruned')).toBe('1');
    expect(s.getOrderByOrderId(exchangeIdOf(1))).toBeUndefined();
    expect(s.countOrdersSince?.(BTC, 0)).toBe(1); // the carry order
  });
});
