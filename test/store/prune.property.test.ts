// Properties of `prune` over random stores (src/store/prune-plan.ts), on both stores side by side:
// no non-terminal order (nor any fill of one) is ever removed, nothing goes that is not older than
// the cutoff, every position leg folds exactly as before, a fill keeps its order, and the SQLite and
// in-memory stores remove the same rows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTerminal, ORDER_SIDES, ORDER_STATUSES } from '../../src/core/orders.ts';
import { isCarryFill, isCarryOrder } from '../../src/store/carry.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import type { OrderStore, PruneRules } from '../../src/store/port.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { book, BTC, ETH, fill, order, type FillSpec, type OrderSpec } from './prune-fixtures.ts';

const orderSpec: fc.Arbitrary<OrderSpec> = fc.record({
  n: fc.integer({ min: 0, max: 14 }),
  status: fc.constantFrom(...ORDER_STATUSES),
  at: fc.integer({ min: 0, max: 100 }),
  updated: fc.integer({ min: 0, max: 60 }),
  side: fc.constantFrom(...ORDER_SIDES),
  symbol: fc.constantFrom(BTC, ETH),
  strategy: fc.constantFrom('a', 'b'),
  withId: fc.boolean(),
});

const fillSpec: fc.Arbitrary<FillSpec> = fc.record({
  t: fc.integer({ min: 0, max: 40 }),
  n: fc.integer({ min: 0, max: 17 }),
  at: fc.integer({ min: 0, max: 160 }),
  size: fc.constantFrom('1', '2', '0.5'),
  price: fc.constantFrom('90', '100', '111.1'),
  fee: fc.constantFrom('0', '0.02', '-0.01'),
  pnl: fc.constantFrom('0', '0', '3.5'),
  attributed: fc.boolean(),
  strategy: fc.constantFrom('a', 'b'),
  symbol: fc.constantFrom(BTC, ETH),
  direction: fc.constantFrom('OPEN_LONG', 'CLOSE_LONG', 'OPEN_SHORT', 'CLOSE_SHORT', 'MAKER'),
});

const rulesArb: fc.Arbitrary<PruneRules> = fc.record({
  before: fc.integer({ min: 0, max: 200 }),
  fillsBefore: fc.integer({ min: 0, max: 200 }),
  historyPageSize: fc.integer({ min: 0, max: 4 }),
  reachMarginMs: fc.integer({ min: 0, max: 20 }),
  minAgeMs: fc.constant(Number.NEGATIVE_INFINITY),
});

function build(s: OrderStore, orders: readonly OrderSpec[], fills: readonly FillSpec[]): void {
  const seen = new Set<number>();
  for (const o of orders) {
    if (seen.has(o.n)) continue;
    seen.add(o.n);
    // An order's fills carry its strategy; its update comes after its creation.
    s.insertOrder(order({ ...o, updated: o.at + (o.updated ?? 0) }));
  }
  const strategyOf = new Map(orders.map((o) => [o.n, o.strategy]));
  for (const f of fills) {
    const strategy = strategyOf.get(f.n) ?? f.strategy;
    s.recordFill(fill({ ...f, ...(strategy !== undefined ? { strategy } : {}) }));
  }
}

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('prune (property)', () => {
  it('never removes a non-terminal order nor its fills, keeps every position leg, and both stores agree', () => {
    fc.assert(
      fc.property(
        fc.array(orderSpec, { maxLength: 14 }),
        fc.array(fillSpec, { maxLength: 24 }),
        rulesArb,
        (orders, fills, rules) => {
          const sql = new SqliteStore({ path: ':memory:', lease: false });
          const mem = new MemoryStore();
          try {
            for (const s of [sql, mem]) build(s, orders, fills);
            const openBefore = sql.openOrders();
            const ordersBefore = new Map(sql.allOrders().map((o) => [o.clientOid, o]));
            const fillsBefore = sql.allFills();
            const legs = book(sql);

            const r = sql.prune(rules);
            expect(mem.prune(rules)).toEqual({ ...r, journal: 0 });

            for (const s of [sql, mem] as OrderStore[]) {
              expect(plain(s.openOrders())).toEqual(plain(openBefore));
              expect(book(s)).toEqual(legs);
              const after = new Map(s.allOrders().map((o) => [o.clientOid, o]));
              const fillsAfter = new Map(s.allFills().map((f) => [f.tradeId, f]));
              const openIds = new Set(
                openBefore.flatMap((o) => (o.orderId !== undefined ? [o.orderId] : [])),
              );
              const openOids = new Set(openBefore.map((o) => o.clientOid));
              for (const o of ordersBefore.values()) {
                if (after.has(o.clientOid)) continue;
                expect(isTerminal(o.status) && o.updatedAt < rules.before).toBe(true);
              }
              for (const f of fillsBefore) {
                const ofOpen =
                  openIds.has(f.orderId) || (f.clientOid !== undefined && openOids.has(f.clientOid));
                if (ofOpen || f.createdTime >= Math.min(rules.before, rules.fillsBefore ?? rules.before)) {
                  expect(fillsAfter.has(f.tradeId)).toBe(true);
                }
                // A fill that stays keeps its order (the fold would lose its strategy otherwise).
                if (fillsAfter.has(f.tradeId) && f.clientOid !== undefined && ordersBefore.has(f.clientOid)) {
                  expect(after.has(f.clientOid)).toBe(true);
                }
              }
              expect(s.allOrders().filter((o) => !isCarryOrder(o)).length).toBe(
                [...ordersBefore.values()].filter((o) => !isCarryOrder(o)).length - r.orders,
              );
              expect(s.allFills().filter((f) => !isCarryFill(f)).length).toBe(fillsBefore.length - r.fills);
            }
            expect(plain([mem.allOrders(), mem.allFills()])).toEqual(
              plain([sql.allOrders(), sql.allFills()]),
            );

            // Pruning again at the same cutoff removes nothing more and still folds the same.
            const again = sql.prune(rules);
            expect(again).toMatchObject({ orders: 0, fills: 0 });
            expect(book(sql)).toEqual(legs);
          } finally {
            sql.close();
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
