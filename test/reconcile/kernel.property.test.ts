// Model-based property of the reconcile kernel: for a random exchange (own orders with their full
// life, foreign orders, ghosts that never reached it) and a random local book, deliver history rows
// and fills shuffled, duplicated, stale and dropped-then-delivered-later over several rounds, then
// once completely. Applying the kernel's output through the reducer must converge to the exchange's
// state, never move an order backwards, and record every tradeId exactly once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, ZERO } from '../../src/core/decimal.ts';
import { clientOid, orderId, strategyId, tradeId, type TradeId } from '../../src/core/ids.ts';
import { applyOrderEvent } from '../../src/core/order-reducer.ts';
import { STATUS_RANK } from '../../src/core/order-transitions.ts';
import { ORDER_SIDES, type Order, type OrderSide } from '../../src/core/orders.ts';
import type { FillReport, OrderReport, VenueOrderStatus } from '../../src/core/reports.ts';
import { reconcile } from '../../src/reconcile/kernel.ts';
import { ordersForRound, unsettledRows } from '../../src/reconcile/round-orders.ts';
import type { StoredFill } from '../../src/store/port.ts';
import { BTC, PREFIX, T0 } from './fixtures.ts';

const GRACE = 1_000_000;
type Final = 'pending' | 'open' | 'filled' | 'canceled';
type LocalStart = 'missing' | 'unknown' | 'submitted' | 'acked' | 'open' | 'canceling';

interface ExOrder {
  readonly oid: string;
  readonly id: string;
  readonly strategy: string;
  readonly side: OrderSide;
  readonly size: number;
  readonly final: Final;
  readonly filled: number;
  readonly snapshots: readonly OrderReport[];
  readonly fills: readonly FillReport[];
  readonly local: LocalStart;
  readonly foreign: boolean;
}

const ownSpec = fc.record({
  size: fc.integer({ min: 1, max: 3 }),
  final: fc.constantFrom<Final>('pending', 'open', 'filled', 'canceled'),
  partial: fc.nat(),
  local: fc.constantFrom<LocalStart>('missing', 'unknown', 'submitted', 'acked', 'open', 'canceling'),
  side: fc.constantFrom(...ORDER_SIDES),
});
type OwnSpec = typeof ownSpec extends fc.Arbitrary<infer T> ? T : never;

function rowOf(
  o: { oid?: string; id: string; side: OrderSide; size: number },
  status: VenueOrderStatus,
  filled: number,
  i: number,
): OrderReport {
  return {
    symbol: BTC,
    orderId: orderId(o.id),
    ...(o.oid !== undefined ? { clientOid: clientOid(o.oid) } : {}),
    type: o.side,
    orderType: 'normal',
    status,
    size: dec(o.size),
    filledQty: dec(filled),
    price: dec('100'),
    priceAvg: filled > 0 ? dec('100') : ZERO,
    fee: ZERO,
    totalProfits: ZERO,
    createTime: T0 + i,
  };
}

function buildOrder(spec: OwnSpec, i: number, foreign: boolean): ExOrder {
  const id = `8${String(i).padStart(17, '0')}`;
  const oid = foreign ? (i % 2 === 0 ? `hb-${i}` : undefined) : `${PREFIX}-s${i % 2}-${i + 1}`;
  const filled =
    spec.final === 'filled' ? spec.size : spec.final === 'pending' ? 0 : spec.partial % spec.size;
  const base = { id, side: spec.side, size: spec.size, ...(oid !== undefined ? { oid } : {}) };
  const snaps: OrderReport[] = [rowOf(base, 'pending', 0, i)];
  if (spec.final !== 'pending') {
    const upTo = spec.final === 'filled' ? spec.size - 1 : filled;
    for (let q = 0; q <= upTo; q++) snaps.push(rowOf(base, 'open', q, i));
  }
  if (spec.final === 'filled') snaps.push(rowOf(base, 'filled', spec.size, i));
  if (spec.final === 'canceled')
    snaps.push(rowOf(base, 'canceling', filled, i), rowOf(base, 'canceled', filled, i));
  const fills: FillReport[] = [];
  for (let j = 0; j < filled; j++) {
    fills.push({
      tradeId: tradeId(`${i}${String(j).padStart(3, '0')}`),
      orderId: orderId(id),
      symbol: BTC,
      positionSide: 'LONG',
      orderSide: 'BUY',
      direction: 'OPEN_LONG',
      size: dec(1),
      value: dec(100),
      fee: ZERO,
      realizedPnl: ZERO,
      createdTime: T0 + i * 100 + j,
    });
  }
  // Local starting states must be something the order really went through.
  let local = spec.local;
  if (local === 'open' && spec.final === 'pending') local = 'acked';
  if (local === 'canceling' && spec.final !== 'canceled') local = 'acked';
  return {
    oid: oid ?? '',
    id,
    strategy: `s${i % 2}`,
    side: spec.side,
    size: spec.size,
    final: spec.final,
    filled,
    snapshots: snaps,
    fills,
    local,
    foreign,
  };
}

function localOf(o: ExOrder): Order | undefined {
  if (o.foreign || o.local === 'missing') return undefined;
  const acked = o.local === 'acked' || o.local === 'open' || o.local === 'canceling';
  return {
    clientOid: clientOid(o.oid),
    ...(acked ? { orderId: orderId(o.id) } : {}),
    strategy: strategyId(o.strategy),
    symbol: BTC,
    side: o.side,
    orderType: 'normal',
    price: dec('100'),
    size: dec(o.size),
    status: o.local === 'acked' ? 'pending' : o.local,
    filledQty: ZERO,
    createdAt: T0,
    updatedAt: T0,
  };
}

const world = fc.record({
  own: fc.array(ownSpec, { minLength: 1, maxLength: 6 }),
  foreign: fc.array(ownSpec, { maxLength: 2 }),
  ghosts: fc.integer({ min: 0, max: 2 }),
  rounds: fc.array(
    fc.record({ rows: fc.array(fc.nat(), { maxLength: 15 }), fills: fc.array(fc.nat(), { maxLength: 15 }) }),
    { maxLength: 4 },
  ),
  stale: fc.array(fc.nat(), { maxLength: 10 }),
  rotate: fc.nat(),
});

/** Rounds whose rows `unsettledRows` thinned (the property must reach the case it checks). */
let settledRounds = 0;

describe('reconcile kernel (property)', () => {
  it('converges to the exchange, never moves an order backwards, records every tradeId exactly once', () => {
    fc.assert(
      fc.property(world, (w) => {
        const ex = [
          ...w.own.map((s, i) => buildOrder(s, i, false)),
          ...w.foreign.map((s, i) => buildOrder(s, w.own.length + i, true)),
        ];
        const book = new Map<string, Order>();
        for (const o of ex) {
          const l = localOf(o);
          if (l !== undefined) book.set(l.clientOid, l);
        }
        for (let g = 0; g < w.ghosts; g++) {
          const oid = clientOid(`${PREFIX}-s0-${1000 + g}`);
          book.set(oid, {
            ...localOf({ ...ex[0]!, oid, foreign: false, local: 'unknown' })!,
            clientOid: oid,
          });
        }
        const allRows = ex.flatMap((o) => o.snapshots);
        const allFills = ex.flatMap((o) => o.fills);
        const recorded = new Map<TradeId, StoredFill>();
        const applied = new Map<TradeId, number>();

        const round = (reports: OrderReport[], fills: FillReport[], now: number): void => {
          const unattributedFills = [...recorded.values()].filter((f) => f.clientOid === undefined);
          const input = {
            orders: [...book.values()],
            reports,
            fills,
            knownTradeIds: (id: TradeId) => recorded.has(id),
            now,
            graceMs: GRACE,
            prefix: PREFIX,
            unattributedFills,
          };
          const out = reconcile(input);
          // The orders a round hands the kernel (round-orders.ts): the same output, event for event.
          const named = ordersForRound(input.orders, reports, [fills, unattributedFills]);
          expect(reconcile({ ...input, orders: named })).toEqual(out);
          // Without the rows that say what their ended order holds, and the orders they alone named.
          const left = unsettledRows(reports, named, [fills, unattributedFills]);
          if (left.length < reports.length) settledRounds++;
          const leftOrders = ordersForRound(named, left, [fills, unattributedFills]);
          expect(reconcile({ ...input, reports: [...left], orders: leftOrders })).toEqual(out);
          for (const a of out.adopted) {
            expect(book.has(a.clientOid)).toBe(false);
            book.set(a.clientOid, a);
          }
          for (const f of out.newFills) {
            expect(recorded.has(f.tradeId)).toBe(false); // exactly once, across rounds too
            recorded.set(f.tradeId, f);
          }
          for (const a of out.attributed) {
            const f = recorded.get(a.tradeId)!;
            expect(f.clientOid).toBeUndefined();
            recorded.set(a.tradeId, { ...f, clientOid: a.clientOid });
          }
          for (const e of out.events) {
            const before = book.get(e.clientOid);
            expect(before).toBeDefined();
            const r = applyOrderEvent(before!, e);
            expect(r.anomaly?.kind).not.toBe('invalid_transition');
            expect(r.anomaly?.kind).not.toBe('id_mismatch');
            expect(STATUS_RANK[r.order.status]).toBeGreaterThanOrEqual(STATUS_RANK[before!.status]);
            if (e.kind === 'OrderFilled') applied.set(e.tradeId, (applied.get(e.tradeId) ?? 0) + 1);
            book.set(e.clientOid, r.order);
          }
          for (const o of out.foreign) expect(parseOwn(o)).toBe(false);
        };

        w.rounds.forEach((r, k) => {
          const rows = allRows.length === 0 ? [] : r.rows.map((n) => allRows[n % allRows.length]!);
          const fills = allFills.length === 0 ? [] : r.fills.map((n) => allFills[n % allFills.length]!);
          round(rows, fills, T0 + 1_000 * (k + 1));
        });
        // Finally everything arrives (newest rows mixed with stale and duplicated ones), after the grace period.
        const finals = ex.map((o) => o.snapshots[o.snapshots.length - 1]!);
        const stale = allRows.length === 0 ? [] : w.stale.map((n) => allRows[n % allRows.length]!);
        const mixed = [...stale, ...finals, ...stale];
        const rot = w.rotate % (mixed.length || 1);
        round([...mixed.slice(rot), ...mixed.slice(0, rot)], [...allFills].reverse(), T0 + 2 * GRACE);
        // A second full delivery changes nothing.
        const statusBefore = [...book.values()].map(
          (o) => `${o.clientOid}:${o.status}:${o.filledQty.toFixed()}`,
        );
        round(finals, allFills, T0 + 2 * GRACE + 1);
        expect([...book.values()].map((o) => `${o.clientOid}:${o.status}:${o.filledQty.toFixed()}`)).toEqual(
          statusBefore,
        );

        for (const o of ex) {
          if (o.foreign) {
            expect(o.oid === '' || !book.has(o.oid)).toBe(true);
            for (const f of o.fills) expect(recorded.get(f.tradeId)?.clientOid).toBeUndefined();
            continue;
          }
          const l = book.get(o.oid)!;
          expect(l).toBeDefined();
          expect(l.status).toBe(o.final);
          expect(l.orderId).toBe(o.id);
          expect(l.filledQty.eq(o.filled)).toBe(true);
          expect((l.fillsQty ?? ZERO).eq(o.fills.length)).toBe(true);
          for (const f of o.fills) {
            expect(recorded.get(f.tradeId)?.clientOid).toBe(o.oid);
            expect(applied.get(f.tradeId)).toBe(1);
          }
        }
        for (let g = 0; g < w.ghosts; g++)
          expect(book.get(`${PREFIX}-s0-${1000 + g}`)!.status).toBe('rejected');
        expect(recorded.size).toBe(allFills.length);
      }),
      { numRuns: 300 },
    );
    // The settled-rows check above was not idle: some rounds did leave rows out.
    expect(settledRounds).toBeGreaterThan(20);
  });
});

function parseOwn(r: OrderReport): boolean {
  return r.clientOid !== undefined && r.clientOid.startsWith(`${PREFIX}-`);
}
