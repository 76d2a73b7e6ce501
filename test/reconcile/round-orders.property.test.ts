// unsettledRows (src/reconcile/round-orders.ts): a round without the rows that say what their order
// already holds, and without the orders only those rows named, gives the kernel's output
// event for event. The books and rows here are drawn to hit every way a row can still matter: a
// rejected or differently ended order, a live one, an unlinked or other order id, more filled than
// held, a second row for the same order or client_oid, a fill of the order, a plan's own row.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { clientOid, orderId } from '../../src/core/ids.ts';
import { ORDER_STATUSES, type Order } from '../../src/core/orders.ts';
import type { OrderReport, VenueOrderStatus } from '../../src/core/reports.ts';
import { reconcile } from '../../src/reconcile/kernel.ts';
import { keepForRound, namedByRound, unsettledRows } from '../../src/reconcile/round-orders.ts';
import { fillOf, localOrder, PREFIX, row, T0 } from './fixtures.ts';

const qty = fc.constantFrom('0', '0.5', '1');
const id = (n: number) => orderId(`70000000000000000${n}`);

const local = fc.record({
  n: fc.integer({ min: 0, max: 3 }),
  status: fc.constantFrom(...ORDER_STATUSES),
  id: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  filled: qty,
  fills: fc.option(qty, { nil: undefined }),
  // A plan order: its child's id once linked (5: not linked yet, the plan takes rows under other ids).
  plan: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
});

const aRow = fc.record({
  n: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  id: fc.integer({ min: 0, max: 4 }),
  status: fc.constantFrom<VenueOrderStatus>('filled', 'canceled', 'open', 'pending', 'canceling'),
  filled: qty,
  plan: fc.boolean(),
});

const aFill = fc.record({ id: fc.integer({ min: 0, max: 5 }), trade: fc.integer({ min: 1, max: 9 }) });

describe('unsettledRows (property)', () => {
  it('leaves out only rows whose round is the same without them', () => {
    let thinned = 0;
    fc.assert(
      fc.property(
        fc.uniqueArray(local, { selector: (o) => o.n, maxLength: 4 }),
        fc.array(
          fc.oneof(
            aRow,
            fc.record({
              echo: fc.nat(),
              filled: fc.constantFrom('own', 'fills', 'more'),
              live: fc.boolean(),
            }),
          ),
          {
            maxLength: 8,
          },
        ),
        fc.array(aFill, { maxLength: 3 }),
        (books, drawn, fills) => {
          // Half the rows echo a drawn order (its client_oid, id, state and filled size or its fills'
          // size, now and then more filled than it holds): the settled case, next to rows that differ from it.
          const rows = drawn.map((r) => {
            if (!('echo' in r)) return r;
            const b = books[r.echo % Math.max(1, books.length)];
            if (b === undefined)
              return { n: undefined, id: 0, status: 'open' as const, filled: '0', plan: false };
            const same = ['filled', 'canceled', 'open', 'pending', 'canceling'].includes(b.status);
            const status = (same ? b.status : r.live ? 'open' : 'canceled') as VenueOrderStatus;
            return {
              n: b.n,
              id: b.id ?? 0,
              status,
              filled: r.filled === 'more' ? '1.5' : r.filled === 'fills' ? (b.fills ?? b.filled) : b.filled,
              plan: b.plan !== undefined,
            };
          });
          const orders: Order[] = books.map((b) =>
            localOrder(b.n, {
              status: b.status,
              ...(b.id !== undefined ? { orderId: id(b.id) } : {}),
              filledQty: dec(b.filled),
              ...(b.fills !== undefined ? { fillsQty: dec(b.fills) } : {}),
              ...(b.plan !== undefined ? { triggerPrice: dec('59000') } : {}),
              ...(b.plan !== undefined && b.plan < 5 ? { planOrderId: id(b.plan) } : {}),
              updatedAt: T0 + 1,
            }),
          );
          const reports: OrderReport[] = rows.map((r) => {
            const base = row(r.id, {
              status: r.status,
              filledQty: dec(r.filled),
              priceAvg: dec('60000'),
              ...(r.plan ? { triggerPrice: dec('59000') } : {}),
            });
            if (r.n === undefined) {
              const { clientOid: _none, ...rest } = base;
              return rest;
            }
            return { ...base, clientOid: clientOid(`cb-grid-${r.n}`) };
          });
          const fillReports = fills.map((f) => fillOf(f.id, String(f.trade)));
          const input = {
            reports,
            fills: fillReports,
            knownTradeIds: () => false,
            now: T0 + 60_000,
            graceMs: 1_000,
            prefix: PREFIX,
            isKnownOrder: (oid: string) => orders.some((o) => o.clientOid === oid),
          };
          const whole = reconcile({
            ...input,
            orders: keepForRound(orders, namedByRound(reports, [fillReports])),
          });
          const left = unsettledRows(reports, orders, [fillReports]);
          if (left.length < reports.length) thinned++;
          else expect(left).toBe(reports);
          const thin = reconcile({
            ...input,
            reports: [...left],
            orders: keepForRound(orders, namedByRound(left, [fillReports])),
          });
          expect(thin).toEqual(whole);
        },
      ),
      { numRuns: 5_000 },
    );
    expect(thinned).toBeGreaterThan(60);
  });
});
