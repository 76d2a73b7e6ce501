// The backtest's MemoryStore answers every query as the SQLite store does, after any sequence of
// writes (transactions that throw included): the two are driven side by side (property).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { StoreError } from '../../src/core/errors.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../../src/core/ids.ts';
import { isTerminal, ORDER_STATUSES, type Order } from '../../src/core/orders.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import type { OrderStore, StoredFill } from '../../src/store/port.ts';
import { FILL_COLUMNS, PLAN_STATUSES, fillValues, orderValues } from '../../src/store/rows.ts';
import { plan } from './prune-fixtures.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

const S = strategyId('grid');
const SYMS = [symbolId('cmt_btcusdt'), symbolId('cmt_ethusdt')];

type Op =
  | { kind: 'insert'; n: number; at: number; sym: number; withId: boolean }
  | { kind: 'update'; n: number; at: number; status: number; withId: boolean }
  | { kind: 'fill'; t: number; n: number; at: number; attributed: boolean }
  | { kind: 'attribute'; t: number; n: number }
  | { kind: 'meta'; key: number; value: string }
  | { kind: 'unmeta'; key: number }
  | { kind: 'seq' }
  | { kind: 'plan'; n: number; at: number; status: number }
  | { kind: 'prune'; before: number; fillsBefore: number; page: number; margin: number; dry: boolean }
  | { kind: 'tx'; ops: Op[]; fail: boolean }
  /** MemoryStore.retire (the SQLite store has none: retiring must change no answer). */
  | { kind: 'retire'; before: number };

const leaf: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    n: fc.integer({ min: 0, max: 8 }),
    at: fc.integer({ min: 0, max: 50 }),
    sym: fc.integer({ min: 0, max: 1 }),
    withId: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('update' as const),
    n: fc.integer({ min: 0, max: 8 }),
    at: fc.integer({ min: 0, max: 80 }),
    status: fc.integer({ min: 0, max: ORDER_STATUSES.length - 1 }),
    withId: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('fill' as const),
    t: fc.integer({ min: 0, max: 12 }),
    n: fc.integer({ min: 0, max: 8 }),
    at: fc.integer({ min: 0, max: 50 }),
    attributed: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('attribute' as const),
    t: fc.integer({ min: 0, max: 12 }),
    n: fc.integer({ min: 0, max: 8 }),
  }),
  fc.record({
    kind: fc.constant('meta' as const),
    key: fc.integer({ min: 0, max: 2 }),
    value: fc.string({ maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('unmeta' as const), key: fc.integer({ min: 0, max: 2 }) }),
  fc.constant({ kind: 'seq' as const }),
  fc.record({
    kind: fc.constant('plan' as const),
    n: fc.integer({ min: 0, max: 3 }),
    at: fc.integer({ min: 0, max: 90 }),
    status: fc.integer({ min: 0, max: PLAN_STATUSES.length - 1 }),
  }),
  fc.record({
    kind: fc.constant('prune' as const),
    before: fc.integer({ min: 0, max: 90 }),
    fillsBefore: fc.integer({ min: 0, max: 90 }),
    page: fc.integer({ min: 0, max: 3 }),
    margin: fc.integer({ min: 0, max: 5 }),
    dry: fc.boolean(),
  }),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: leaf },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('tx' as const),
      ops: fc.array(leaf, { maxLength: 5 }),
      fail: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('retire' as const), before: fc.integer({ min: 0, max: 90 }) }),
  },
);

const oid = (n: number) => clientOid(`cb-grid-${n}`);
const exchangeId = (n: number) => orderId(String(900_000_000_000_000_000n + BigInt(n % 4)));

function order(n: number, at: number, sym: number, withId: boolean): Order {
  return {
    clientOid: oid(n),
    strategy: S,
    symbol: SYMS[sym] ?? SYMS[0]!,
    side: 'open_long',
    orderType: 'normal',
    price: dec('100.5'),
    size: dec('0.01'),
    status: 'created',
    filledQty: dec('0'),
    createdAt: at,
    updatedAt: at,
    ...(withId ? { orderId: exchangeId(n) } : {}),
  };
}

function apply(s: OrderStore, o: Op): void {
  switch (o.kind) {
    case 'insert':
      s.insertOrder(order(o.n, o.at, o.sym, o.withId));
      return;
    case 'update': {
      const before = s.getOrder(oid(o.n));
      if (before === undefined) throw new StoreError('not in the store');
      s.updateOrder({
        ...before,
        status: ORDER_STATUSES[o.status] ?? 'open',
        updatedAt: o.at,
        ...(o.withId ? { orderId: exchangeId(o.n) } : {}),
      });
      return;
    }
    case 'fill': {
      const f: StoredFill = {
        tradeId: tradeId(`t${o.t}`),
        orderId: exchangeId(o.n),
        symbol: SYMS[0]!,
        positionSide: 'LONG',
        orderSide: 'BUY',
        direction: 'OPEN_LONG',
        size: dec('0.01'),
        value: dec('1.005'),
        fee: dec('0.0001'),
        realizedPnl: dec('0'),
        createdTime: o.at,
        ...(o.attributed ? { clientOid: oid(o.n) } : {}),
      };
      s.recordFill(f);
      return;
    }
    case 'attribute':
      s.attributeFill?.(tradeId(`t${o.t}`), oid(o.n));
      return;
    case 'meta':
      s.setMeta(`k${o.key}`, o.value);
      return;
    case 'unmeta':
      s.deleteMeta(`k${o.key}`);
      return;
    case 'seq':
      s.nextSequence(S);
      return;
    case 'plan':
      s.recordPlanOrder?.(plan(o.n, PLAN_STATUSES[o.status] ?? 'untriggered', o.at), o.at);
      return;
    case 'prune': {
      const rules = {
        before: o.before,
        fillsBefore: o.fillsBefore,
        historyPageSize: o.page,
        reachMarginMs: o.margin,
        minAgeMs: Number.NEGATIVE_INFINITY,
      };
      const r = s.prune?.(rules, { dryRun: o.dry, meta: (x) => ({ k2: `${x.orders}/${x.fills}` }) });
      if (r !== undefined) s.setMeta('k1', `${r.carriedLegs}/${r.keptFills}/${r.keptTerminalOrders}`);
      return;
    }
    case 'retire':
      if (s instanceof MemoryStore) s.retire(o.before);
      return;
    case 'tx':
      s.transaction(() => {
        for (const inner of o.ops) apply(s, inner);
        if (o.fail) throw new Error('rolled back');
      });
  }
}

/** Applies `o`; the outcome is the error's kind (the stores must agree on what they refuse). */
function outcome(s: OrderStore, o: Op): string {
  try {
    apply(s, o);
    return 'ok';
  } catch (e) {
    return e instanceof StoreError ? 'StoreError' : 'Error';
  }
}

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/**
 * Every row as the report's spool reads it: values (retired ones parsed, not decoded) and text; fills
 * in (created_at, rowid) order, which must be allFills()'s.
 */
function rowsAsValues(s: MemoryStore): { fills: string[]; orders: string[] } {
  const fills: { at: number; rowid: number; text: string }[] = [];
  const orders: string[] = [];
  s.forEachFillValues((values, text, rowid) => {
    // A retired fill's text is its values without the rowid that follows them in its line.
    if (text !== undefined) expect(JSON.parse(text)).toEqual(values.slice(0, -1));
    fills.push({
      at: values[FILL_COLUMNS.indexOf('created_at')] as number,
      rowid,
      text: text ?? JSON.stringify(values),
    });
  });
  s.forEachOrderValues((values) => orders.push(JSON.stringify(values)));
  fills.sort((a, b) => a.at - b.at || a.rowid - b.rowid);
  return { fills: fills.map((f) => f.text), orders };
}

/** The same rows decoded into fills and orders (allFills, forEachOrder), listed by the row codec. */
function rowsDecoded(s: MemoryStore): { fills: string[]; orders: string[] } {
  const orders: string[] = [];
  s.forEachOrder((o) => orders.push(JSON.stringify(orderValues(o))));
  return { fills: s.allFills().map((f) => JSON.stringify(fillValues(f))), orders };
}

/** Names the orders whose client_oid ends in an odd digit (a stand-in for a round's rows and fills). */
const namedOdd = (o: Order): boolean => /[13579]$/.test(o.clientOid);

function picture(s: OrderStore, at: number) {
  // The store's own filtering gives the full list filtered.
  expect(s.ordersUpdatedSince?.(at, namedOdd)).toEqual(
    s.ordersUpdatedSince?.(at).filter((o) => !isTerminal(o.status) || namedOdd(o)),
  );
  return plain({
    all: s.allOrders(),
    open: s.openOrders(),
    since: s.ordersUpdatedSince?.(at),
    sinceNamed: s.ordersUpdatedSince?.(at, namedOdd),
    count: SYMS.map((sym) => s.countOrdersSince?.(sym, at)),
    byId: [0, 1, 2, 3].map((n) => s.getOrderByOrderId(exchangeId(n))?.clientOid ?? null),
    fills: s.allFills(),
    forOrder: s.fillsForOrder?.(exchangeId(1)),
    unattributed: s.unattributedFills?.(at),
    meta: [0, 1, 2].map((k) => s.getMeta(`k${k}`) ?? null),
    has: [0, 5, 12].map((t) => s.hasFill(tradeId(`t${t}`))),
    orders: [0, 3, 8].map((n) => s.getOrder(oid(n)) ?? null),
    plans: s.planOrders?.(),
    planStatus: [0, 1, 2, 3].map((n) => s.planOrderStatus?.(plan(n, 'untriggered', 0).orderId) ?? null),
  });
}

/** Applies `ops` to both stores: each must be refused alike, and the stores then answer alike at `at`. */
function expectSameAnswers(ops: readonly Op[], at: number): void {
  const sql = new SqliteStore({ path: ':memory:', lease: false });
  const mem = new MemoryStore();
  try {
    for (const o of ops) expect(outcome(mem, o)).toBe(outcome(sql, o));
    expect(picture(mem, at)).toEqual(picture(sql, at));
  } finally {
    sql.close();
    mem.close();
  }
}

describe('MemoryStore', () => {
  it('answers every query as the SQLite store does, after any writes (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.integer({ min: 0, max: 60 }), (ops, at) => {
        const sql = new SqliteStore({ path: ':memory:', lease: false });
        const mem = new MemoryStore();
        try {
          for (const o of ops) expect(outcome(mem, o)).toBe(outcome(sql, o));
          expect(picture(mem, at)).toEqual(picture(sql, at));
          expect(mem.nextSequence(S)).toBe(sql.nextSequence(S));
        } finally {
          sql.close();
          mem.close();
        }
      }),
      { numRuns: 500 },
    );
  });

  it('answers the same after retiring rows, whatever comes after (property)', () => {
    // Orders that live and end (placed, filled, finished), retirements between them, then any writes
    // (a retired order updated again, late fills, attributions): retiring must change no answer.
    const TERMINAL = ['filled', 'canceled', 'rejected'].map((x) =>
      ORDER_STATUSES.indexOf(x as (typeof ORDER_STATUSES)[number]),
    );
    const life = fc
      .record({
        n: fc.integer({ min: 0, max: 8 }),
        at: fc.integer({ min: 0, max: 40 }),
        end: fc.constantFrom(...TERMINAL),
        fills: fc.integer({ min: 0, max: 2 }),
        retire: fc.option(fc.integer({ min: 0, max: 90 }), { nil: undefined }),
      })
      .map(({ n, at, end, fills, retire }): Op[] => [
        { kind: 'insert', n, at, sym: n % 2, withId: true },
        ...Array.from({ length: fills }, (_, i): Op => ({
          kind: 'fill',
          t: (n * 3 + i) % 13,
          n,
          at: at + i,
          attributed: i === 0,
        })),
        { kind: 'update', n, at: at + 2, status: end, withId: true },
        ...(retire !== undefined ? [{ kind: 'retire', before: retire } as const] : []),
      ]);
    fc.assert(
      fc.property(
        fc.array(life, { maxLength: 8 }),
        fc.array(op, { maxLength: 12 }),
        fc.integer({ min: 0, max: 60 }),
        (lives, after, at) => {
          const sql = new SqliteStore({ path: ':memory:', lease: false });
          const mem = new MemoryStore();
          try {
            for (const o of [...lives.flat(), ...after]) expect(outcome(mem, o)).toBe(outcome(sql, o));
            expect(picture(mem, at)).toEqual(picture(sql, at));
            expect(picture(mem, 0)).toEqual(picture(sql, 0));
            expect(rowsAsValues(mem)).toEqual(rowsDecoded(mem));
          } finally {
            sql.close();
            mem.close();
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('rolls back an update whose transaction also pruned (and so brought retired orders back)', () => {
    // Found by the property above: the update's undo wrote the old order where it had been, but the
    // prune had inserted a retired order of the same symbol before it.
    const ops: Op[] = [
      { kind: 'insert', n: 3, at: 1, sym: 1, withId: true },
      { kind: 'update', n: 3, at: 3, status: ORDER_STATUSES.indexOf('filled'), withId: true },
      { kind: 'insert', n: 5, at: 0, sym: 1, withId: true },
      { kind: 'update', n: 5, at: 2, status: ORDER_STATUSES.indexOf('filled'), withId: true },
      { kind: 'retire', before: 3 },
      {
        kind: 'tx',
        ops: [
          { kind: 'update', n: 3, at: 1, status: 0, withId: false },
          { kind: 'prune', before: 0, fillsBefore: 0, page: 0, margin: 0, dry: false },
        ],
        fail: true,
      },
    ];
    expectSameAnswers(ops, 1);
  });

  it('rolls back a prune of fills whose order was pruned, then takes a later fill of it', () => {
    // Found by the property above at 30 000 runs.
    const filled = ORDER_STATUSES.indexOf('filled');
    const ops: Op[] = [
      { kind: 'insert', n: 0, at: 0, sym: 0, withId: true },
      { kind: 'fill', t: 0, n: 0, at: 0, attributed: true },
      { kind: 'fill', t: 1, n: 0, at: 1, attributed: false },
      { kind: 'update', n: 0, at: 2, status: filled, withId: true },
      { kind: 'insert', n: 1, at: 31, sym: 1, withId: true },
      { kind: 'fill', t: 3, n: 1, at: 31, attributed: true },
      { kind: 'fill', t: 4, n: 1, at: 32, attributed: false },
      { kind: 'update', n: 1, at: 33, status: filled, withId: true },
      {
        kind: 'tx',
        ops: [{ kind: 'prune', before: 34, fillsBefore: 33, page: 0, margin: 0, dry: false }],
        fail: true,
      },
      { kind: 'fill', t: 5, n: 0, at: 32, attributed: false },
    ];
    expectSameAnswers(ops, 0);
  });

  it('retires a fill with the order it is attributed to, not the one its exchange id names', () => {
    // Also found by the property: a fill of one exchange order attributed to another client order.
    const filled = ORDER_STATUSES.indexOf('filled');
    const ops: Op[] = [
      { kind: 'insert', n: 6, at: 0, sym: 0, withId: true },
      { kind: 'update', n: 6, at: 2, status: filled, withId: true },
      { kind: 'insert', n: 5, at: 0, sym: 1, withId: true },
      { kind: 'fill', t: 2, n: 5, at: 0, attributed: true },
      { kind: 'fill', t: 3, n: 5, at: 1, attributed: false },
      { kind: 'update', n: 5, at: 2, status: filled, withId: true },
      { kind: 'attribute', t: 3, n: 6 },
      { kind: 'retire', before: 3 },
    ];
    expectSameAnswers(ops, 0);
  });

  it('picks the same order for an exchange id two orders share at one creation time', () => {
    const sql = new SqliteStore({ path: ':memory:', lease: false });
    const mem = new MemoryStore();
    try {
      for (const s of [sql, mem]) for (const n of [4, 0]) s.insertOrder(order(n, 50, 0, true));
      expect(mem.getOrderByOrderId(exchangeId(0))?.clientOid).toBe(oid(0));
      expect(sql.getOrderByOrderId(exchangeId(0))?.clientOid).toBe(oid(0));
    } finally {
      sql.close();
    }
  });

  it('refuses writes once closed', () => {
    const s = new MemoryStore();
    s.close();
    expect(() => s.setMeta('k', 'v')).toThrow(StoreError);
  });
});
