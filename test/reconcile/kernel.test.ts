import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId, type TradeId } from '../../src/core/ids.ts';
import { applyOrderEvent } from '../../src/core/order-reducer.ts';
import type { Order } from '../../src/core/orders.ts';
import { formatClientOid } from '../../src/execution/client-oid.ts';
import { reconcile, type ReconcileInput } from '../../src/reconcile/kernel.ts';
import { BTC, GRID, PREFIX, T0, fillOf, localOrder, row } from './fixtures.ts';

const GRACE = 60_000;

function run(over: Partial<ReconcileInput>) {
  return reconcile({
    orders: [],
    reports: [],
    fills: [],
    knownTradeIds: () => false,
    now: T0 + 1_000,
    graceMs: GRACE,
    prefix: PREFIX,
    ...over,
  });
}

/** Applies events through the reducer, as the engine does. */
function applyAll(orders: readonly Order[], events: readonly OrderEvent[]): Map<string, Order> {
  const book = new Map<string, Order>(orders.map((o) => [o.clientOid, o]));
  for (const e of events) {
    const o = book.get(e.clientOid);
    if (o === undefined) throw new Error(`event for unknown order ${e.clientOid}`);
    const r = applyOrderEvent(o, e);
    if (r.anomaly?.kind === 'invalid_transition') throw new Error(r.anomaly.detail);
    book.set(e.clientOid, r.order);
  }
  return book;
}

const kinds = (events: readonly OrderEvent[]) => events.map((e) => e.kind);

describe('reconcile kernel: settling unknown orders', () => {
  it('does not re-place an order whose reply was lost: settles it by client_oid with its order id and status', () => {
    const unknown = localOrder(1, { status: 'unknown' });
    delete (unknown as { price?: unknown }).price;
    const out = run({
      orders: [unknown],
      reports: [row(1, { status: 'open', filledQty: dec('0.3'), priceAvg: dec('60010') })],
    });
    expect(kinds(out.events)).toEqual(['OrderAccepted', 'OrderOpen', 'OrderProgress']);
    const after = applyAll([unknown], out.events).get(unknown.clientOid)!;
    expect(after.status).toBe('open');
    expect(after.orderId).toBe('700000000000000001');
    expect(after.filledQty.toFixed()).toBe('0.3');
    expect(after.avgPrice!.toFixed()).toBe('60010');
  });

  it('does not treat a timeout as a failure: an unknown order found filled is completed, not declared lost', () => {
    const unknown = localOrder(1, { status: 'unknown' });
    const out = run({
      orders: [unknown],
      reports: [row(1, { status: 'filled', filledQty: dec('1'), priceAvg: dec('60000') })],
      now: T0 + GRACE * 10,
    });
    expect(kinds(out.events)).toEqual(['OrderAccepted', 'OrderCompleted']);
    expect(applyAll([unknown], out.events).get(unknown.clientOid)!.status).toBe('filled');
    expect(out.warnings).toEqual([]);
  });

  it('does not drop a lost order silently: no trace after the grace period → OrderLost and a loud warning', () => {
    const unknown = localOrder(1, { status: 'unknown', updatedAt: T0 });
    expect(run({ orders: [unknown], now: T0 + GRACE - 1 }).events).toEqual([]);
    const out = run({ orders: [unknown], now: T0 + GRACE });
    expect(kinds(out.events)).toEqual(['OrderLost']);
    expect(out.warnings.map((w) => w.code)).toEqual(['order-lost']);
    expect(applyAll([unknown], out.events).get(unknown.clientOid)!.status).toBe('rejected');
  });

  it('treats a submitted order whose reply never came like an unknown one after the grace period', () => {
    const submitted = localOrder(1, { status: 'submitted' });
    expect(kinds(run({ orders: [submitted], now: T0 + GRACE }).events)).toEqual(['OrderLost']);
  });

  it('does not declare lost an order the history window does not reach (absence proves nothing)', () => {
    const unknown = localOrder(1, { status: 'unknown', createdAt: T0 });
    const out = run({ orders: [unknown], now: T0 + GRACE * 2, historyCoversSince: T0 + 1 });
    expect(out.events).toEqual([]);
    expect(out.warnings.map((w) => w.code)).toEqual(['unsettled-outside-history']);
  });

  it("judges an order by its own symbol's history window: a busy symbol's full page blocks only itself", () => {
    const unknown = localOrder(1, { status: 'unknown', createdAt: T0 });
    const other = symbolId('cmt_othersymbol');
    // The combined bound says "not covered", but this order's own symbol was read completely.
    const covered = run({
      orders: [unknown],
      now: T0 + GRACE * 2,
      historyCoversSince: T0 + GRACE * 3,
      historyCoversSinceBySymbol: new Map([
        [unknown.symbol, T0 - 1],
        [other, T0 + GRACE * 3],
      ]),
    });
    expect(kinds(covered.events)).toEqual(['OrderLost']);
    // Its own symbol's page came back full: not covered, whatever the other symbols say.
    const notCovered = run({
      orders: [unknown],
      now: T0 + GRACE * 2,
      historyCoversSinceBySymbol: new Map([[unknown.symbol, T0 + 1]]),
    });
    expect(notCovered.events).toEqual([]);
    expect(notCovered.warnings.map((w) => w.code)).toEqual(['unsettled-outside-history']);
  });

  it('never declares lost an order the exchange acknowledged (hummingbot#8457)', () => {
    const open = localOrder(1, { status: 'open', orderId: orderId('700000000000000001') });
    const pending = localOrder(2, { status: 'pending', orderId: orderId('700000000000000002') });
    expect(run({ orders: [open, pending], now: T0 + GRACE * 100 }).events).toEqual([]);
  });

  it('does not declare lost an order that was never sent (created): restart recovery owns those', () => {
    expect(run({ orders: [localOrder(1, { status: 'created' })], now: T0 + GRACE * 2 }).events).toEqual([]);
  });
});

describe('reconcile kernel: exchange terminal states', () => {
  const open = localOrder(1, { status: 'open', orderId: orderId('700000000000000001') });

  it('does not leave an order open locally that filled at the exchange', () => {
    const out = run({
      orders: [open],
      reports: [row(1, { status: 'filled', filledQty: dec('1'), priceAvg: dec('59990.5') })],
    });
    expect(out.events).toEqual([
      {
        kind: 'OrderCompleted',
        clientOid: open.clientOid,
        at: T0 + 1_000,
        filledQty: dec('1'),
        avgPrice: dec('59990.5'),
      },
    ]);
    const after = applyAll([open], out.events).get(open.clientOid)!;
    expect(after.status).toBe('filled');
    expect(after.avgPrice!.toFixed()).toBe('59990.5');
  });

  it('does not leave an order open locally that was canceled at the exchange, and keeps its partial fill', () => {
    const out = run({ orders: [open], reports: [row(1, { status: 'canceled', filledQty: dec('0.4') })] });
    expect(kinds(out.events)).toEqual(['OrderCanceled']);
    const after = applyAll([open], out.events).get(open.clientOid)!;
    expect(after.status).toBe('canceled');
    expect(after.filledQty.toFixed()).toBe('0.4');
  });

  it('does not lose a fill that arrives after the cancel: it is recorded on the canceled order', () => {
    const canceled = localOrder(1, {
      status: 'canceled',
      orderId: orderId('700000000000000001'),
      filledQty: dec('0.25'),
    });
    const out = run({
      orders: [canceled],
      reports: [row(1, { status: 'canceled', filledQty: dec('0.25') })],
      fills: [fillOf(1, '11', { size: dec('0.25') })],
    });
    expect(kinds(out.events)).toEqual(['OrderFilled']);
    expect(out.newFills).toEqual([{ ...fillOf(1, '11'), clientOid: canceled.clientOid }]);
    const after = applyAll([canceled], out.events).get(canceled.clientOid)!;
    expect(after.status).toBe('canceled');
    expect(after.fillsQty!.toFixed()).toBe('0.25');
  });

  it('flags a terminal state that contradicts ours instead of overwriting it', () => {
    const filled = localOrder(1, {
      status: 'filled',
      orderId: orderId('700000000000000001'),
      filledQty: dec('1'),
    });
    const out = run({ orders: [filled], reports: [row(1, { status: 'canceled', filledQty: dec('1') })] });
    expect(out.events).toEqual([]);
    expect(out.warnings.map((w) => w.code)).toEqual(['terminal-mismatch']);
  });
});

describe('reconcile kernel: stale and duplicated rows', () => {
  const open = localOrder(1, {
    status: 'open',
    orderId: orderId('700000000000000001'),
    filledQty: dec('0.5'),
  });

  it('never moves an order backwards on a lagging history row', () => {
    const out = run({ orders: [open], reports: [row(1, { status: 'pending', filledQty: dec('0') })] });
    expect(out.events).toEqual([]);
  });

  it('lets the newest row win whatever order the rows arrive in', () => {
    const rows = [
      row(1, { status: 'open', filledQty: dec('0.5') }),
      row(1, { status: 'filled', filledQty: dec('1') }),
      row(1, { status: 'pending' }),
    ];
    for (const perm of [rows, [...rows].reverse(), [rows[1]!, rows[0]!, rows[2]!]]) {
      expect(kinds(run({ orders: [open], reports: perm }).events)).toEqual(['OrderCompleted']);
    }
  });

  it('does not duplicate events for duplicated rows', () => {
    const r = row(1, { status: 'open', filledQty: dec('0.75') });
    const out = run({ orders: [open], reports: [r, r, r] });
    expect(kinds(out.events)).toEqual(['OrderProgress']);
  });

  it('does not reopen an order whose cancel is in flight on a row that predates the cancel', () => {
    const canceling = { ...open, status: 'canceling' as const };
    expect(
      run({ orders: [canceling], reports: [row(1, { status: 'open', filledQty: dec('0.5') })] }).events,
    ).toEqual([]);
  });

  it('keeps the more complete row when rows say both filled and canceled, and says so', () => {
    const out = run({
      orders: [open],
      reports: [
        row(1, { status: 'canceled', filledQty: dec('0.5') }),
        row(1, { status: 'filled', filledQty: dec('1') }),
      ],
    });
    expect(kinds(out.events)).toEqual(['OrderCompleted']);
    expect(out.warnings.map((w) => w.code)).toEqual(['conflicting-reports']);
  });
});

describe('reconcile kernel: fills', () => {
  const open = localOrder(1, { status: 'open', orderId: orderId('700000000000000001') });

  it('counts a fill delivered twice in one batch once', () => {
    const f = fillOf(1, '21');
    const out = run({ orders: [open], fills: [f, f, { ...f }] });
    expect(out.newFills.map((x) => x.tradeId)).toEqual(['21']);
    expect(kinds(out.events)).toEqual(['OrderFilled']);
  });

  it('counts a fill already in the store (an earlier poll, or before a restart) zero more times', () => {
    const known = new Set<TradeId>([tradeId('21')]);
    const out = run({
      orders: [open],
      fills: [fillOf(1, '21'), fillOf(1, '22')],
      knownTradeIds: (id) => known.has(id),
    });
    expect(out.newFills.map((x) => x.tradeId)).toEqual(['22']);
    expect(out.events.map((e) => (e.kind === 'OrderFilled' ? e.tradeId : e.kind))).toEqual(['22']);
  });

  it('emits fills oldest first, whatever order the poller returned them in', () => {
    const out = run({ orders: [open], fills: [fillOf(1, '3'), fillOf(1, '1'), fillOf(1, '2')] });
    expect(out.newFills.map((x) => x.tradeId)).toEqual(['1', '2', '3']);
    const two = run({ orders: [open], fills: [fillOf(1, '2'), fillOf(1, '1')] });
    expect(two.newFills.map((x) => x.tradeId)).toEqual(['1', '2']);
  });

  it('does not lose the order link of a fill that arrives before its order is known: attributes it later', () => {
    const unknown = localOrder(1, { status: 'unknown' });
    const first = run({ orders: [unknown], fills: [fillOf(1, '31')] });
    expect(first.newFills).toEqual([fillOf(1, '31')]); // recorded, no client_oid yet
    expect(first.events).toEqual([]);
    const second = run({
      orders: [unknown],
      reports: [row(1, { status: 'open', filledQty: dec('0.25') })],
      knownTradeIds: () => true,
      unattributedFills: first.newFills,
    });
    expect(second.attributed).toEqual([{ tradeId: '31', clientOid: unknown.clientOid }]);
    expect(kinds(second.events)).toEqual(['OrderAccepted', 'OrderOpen', 'OrderFilled']);
    const after = applyAll([unknown], second.events).get(unknown.clientOid)!;
    expect(after.filledQty.toFixed()).toBe('0.25'); // progress and the fill are not added twice
  });
});

describe('reconcile kernel: orders outside the local window', () => {
  it('does not strand a late fill of an order that ended long ago: links it through the store lookup', () => {
    const old = localOrder(1, {
      status: 'canceled',
      orderId: orderId('700000000000000001'),
      filledQty: dec('0.25'),
    });
    const out = run({ fills: [fillOf(1, '71')], orderOf: (id) => (id === old.orderId ? old : undefined) });
    expect(out.newFills[0]!.clientOid).toBe(old.clientOid);
    expect(kinds(out.events)).toEqual(['OrderFilled']);
    expect(applyAll([old], out.events).get(old.clientOid)!.status).toBe('canceled');
  });
});

describe('reconcile kernel: adoption and foreign orders', () => {
  it('does not orphan an order of ours missing locally (crash between send and commit): adopts it', () => {
    const out = run({
      reports: [
        row(7, {
          clientOid: clientOid('cb-mm_v2-1a'),
          status: 'open',
          filledQty: dec('0.25'),
          priceAvg: dec('60000'),
        }),
      ],
      fills: [fillOf(7, '41')],
    });
    expect(out.adopted).toHaveLength(1);
    const a = out.adopted[0]!;
    expect(a).toMatchObject({
      clientOid: 'cb-mm_v2-1a',
      strategy: 'mm_v2',
      orderId: '700000000000000007',
      status: 'open',
      side: 'open_long',
    });
    expect(a.filledQty.toFixed()).toBe('0.25');
    expect(out.newFills[0]!.clientOid).toBe('cb-mm_v2-1a');
    expect(kinds(out.events)).toEqual(['OrderFilled']);
    const after = applyAll(out.adopted, out.events).get(a.clientOid)!;
    expect(after.filledQty.toFixed()).toBe('0.25');
  });

  it('names the strategy of an adopted order even when its id had to be hashed into the client_oid', () => {
    const long = strategyId('mean-reversion.btc/v2');
    const oid = formatClientOid(PREFIX, long, 7);
    const out = run({ reports: [row(3, { clientOid: oid })], strategies: [GRID, long] });
    expect(out.adopted.map((a) => a.strategy)).toEqual([long]);
  });

  it('does not adopt twice an old order of ours that is in the store but outside the local window', () => {
    const out = run({
      reports: [row(1, { status: 'filled', filledQty: dec('1') })],
      isKnownOrder: (oid) => oid === 'cb-grid-1',
    });
    expect(out.adopted).toEqual([]);
    expect(out.foreign).toEqual([]);
  });

  it("reports other bots' orders on the account and never touches them", () => {
    const other = row(8, { clientOid: clientOid('hb-1234'), status: 'open' });
    const manual = row(9, { status: 'open' });
    delete (manual as { clientOid?: unknown }).clientOid;
    const prefixLookalike = row(6, { clientOid: clientOid('cbx-grid-1') });
    const out = run({ reports: [other, manual, prefixLookalike], fills: [fillOf(8, '51')] });
    expect(out.foreign.map((r) => r.orderId)).toEqual(
      ['700000000000000008', '700000000000000009', '700000000000000006'].sort(),
    );
    expect(out.adopted).toEqual([]);
    expect(out.events).toEqual([]);
    expect(out.newFills).toEqual([fillOf(8, '51')]); // recorded for the account, attributed to nobody
  });

  it('does not adopt a liquidation row as an order of ours', () => {
    const out = run({
      reports: [row(5, { clientOid: clientOid('cb-grid-5'), type: 'burst_liquidate_long' })],
    });
    expect(out.adopted).toEqual([]);
    expect(out.warnings.map((w) => w.code)).toEqual(['unadoptable']);
  });

  it('flags loudly an order declared lost that turns up at the exchange, and links it so its fills count', () => {
    const lost = localOrder(1, { status: 'rejected', reason: 'no trace' });
    const out = run({ orders: [lost], reports: [row(1, { status: 'open' })], fills: [fillOf(1, '61')] });
    expect(out.warnings.map((w) => w.code)).toEqual(['lost-order-found']);
    expect(kinds(out.events)).toEqual(['OrderAccepted', 'OrderFilled']);
    expect(out.newFills[0]!.clientOid).toBe(lost.clientOid);
    const after = applyAll([lost], out.events).get(lost.clientOid)!;
    expect(after.status).toBe('rejected');
    expect(after.orderId).toBe('700000000000000001');
  });

  it('flags two exchange orders carrying one client_oid', () => {
    const unknown = localOrder(1, { status: 'unknown' });
    const out = run({ orders: [unknown], reports: [row(1), row(2, { clientOid: clientOid('cb-grid-1') })] });
    expect(out.warnings.map((w) => w.code)).toEqual(['duplicate-client-oid']);
    expect(out.events.filter((e) => e.kind === 'OrderAccepted')).toHaveLength(1);
  });
});

describe('reconcile kernel: determinism', () => {
  it('gives the same output for the same input in any order', () => {
    const orders = [
      localOrder(2, { status: 'unknown' }),
      localOrder(1, { status: 'open', orderId: orderId('700000000000000001') }),
    ];
    const reports = [
      row(1, { status: 'filled', filledQty: dec('1') }),
      row(2),
      row(3, { clientOid: clientOid('cb-x-3') }),
      row(4, { clientOid: clientOid('zz-4') }),
    ];
    const fills = [
      fillOf(1, '1', { size: dec('0.5') }),
      fillOf(1, '2', { size: dec('0.5') }),
      fillOf(3, '3'),
    ];
    const a = run({ orders, reports, fills });
    const b = run({
      orders: [...orders].reverse(),
      reports: [...reports].reverse(),
      fills: [...fills].reverse(),
    });
    expect(b).toEqual(a);
    expect(a.events.map((e) => e.clientOid)).toEqual([...a.events.map((e) => e.clientOid)].sort());
    expect(BTC).toBe(a.adopted[0]!.symbol);
    expect(a.adopted[0]!.strategy).toBe(strategyId('x'));
  });
});

describe('reconcile kernel: plan (trigger) orders', () => {
  const PLAN_ID = orderId('790000000000000009');
  const untriggered = () =>
    localOrder(1, {
      status: 'untriggered',
      orderId: PLAN_ID,
      triggerPrice: dec('59000'),
      side: 'close_long',
    });

  it("links a triggered plan's child (same client_oid, its own order id) and follows it to filled", () => {
    const child = row(1, {
      type: 'close_long',
      status: 'filled',
      filledQty: dec('1'),
      priceAvg: dec('58990'),
    });
    const fill = fillOf(1, '11', { size: dec('1'), value: dec('58990') });
    const out = run({ orders: [untriggered()], reports: [child], fills: [fill] });
    expect(out.warnings).toEqual([]);
    expect(out.newFills.map((f) => f.clientOid)).toEqual([clientOid('cb-grid-1')]);
    const after = applyAll([untriggered()], out.events).get('cb-grid-1')!;
    expect(after).toMatchObject({ status: 'filled', orderId: child.orderId, planOrderId: PLAN_ID });
  });

  it("skips the plan's own row once the child is linked, and still flags a third order for the client_oid", () => {
    const linked = localOrder(1, {
      status: 'open',
      orderId: orderId('700000000000000001'),
      planOrderId: PLAN_ID,
      triggerPrice: dec('59000'),
    });
    const own = row(1, { orderId: PLAN_ID, status: 'untriggered' });
    expect(run({ orders: [linked], reports: [own] }).warnings).toEqual([]);
    const third = row(1, { orderId: orderId('780000000000000008') });
    expect(run({ orders: [linked], reports: [third] }).warnings.map((w) => w.code)).toEqual([
      'duplicate-client-oid',
    ]);
  });
  it("never takes a child's row for the plan whose own id is not known yet (its reply was lost)", () => {
    // The plan fired before any plan round saw it: the child's rows and fills come first.
    const lostReply = localOrder(1, { status: 'unknown', triggerPrice: dec('59000'), side: 'close_long' });
    const child = row(1, {
      type: 'close_long',
      status: 'filled',
      filledQty: dec('1'),
      priceAvg: dec('58990'),
    });
    const fill = fillOf(1, '11', { size: dec('1'), value: dec('58990') });
    const first = run({ orders: [lostReply], reports: [child], fills: [fill] });
    expect(first.events).toEqual([]);
    expect(first.newFills.map((f) => f.clientOid)).toEqual([undefined]);
    // The plan's own row (a plan round) links the plan's id; the child's next row links the child.
    const planRow = row(1, {
      orderId: PLAN_ID,
      type: 'close_long',
      status: 'pending',
      triggerPrice: dec('59000'),
    });
    const accepted = applyAll([lostReply], run({ orders: [lostReply], reports: [planRow] }).events).get(
      'cb-grid-1',
    )!;
    expect(accepted).toMatchObject({ orderId: PLAN_ID });
    expect(accepted.planOrderId).toBeUndefined();
    const out = run({ orders: [accepted], reports: [child], unattributedFills: [fill] });
    expect(out.attributed).toEqual([{ tradeId: fill.tradeId, clientOid: clientOid('cb-grid-1') }]);
    expect(applyAll([accepted], out.events).get('cb-grid-1')).toMatchObject({
      status: 'filled',
      orderId: child.orderId,
      planOrderId: PLAN_ID,
    });
  });
});

describe('reconcile kernel: an untriggered row', () => {
  it('only settles the acceptance of a plan whose reply was lost; it never reads as triggered', () => {
    const PLAN_ID = orderId('790000000000000009');
    const lost = localOrder(1, { status: 'unknown', triggerPrice: dec('59000') });
    const out = run({
      orders: [lost],
      reports: [row(1, { orderId: PLAN_ID, status: 'untriggered', triggerPrice: dec('59000') })],
    });
    expect(kinds(out.events)).toEqual(['OrderAccepted']);
    expect(applyAll([lost], out.events).get('cb-grid-1')).toMatchObject({
      status: 'untriggered',
      orderId: PLAN_ID,
    });
    const resting = localOrder(2, { status: 'untriggered', orderId: PLAN_ID, triggerPrice: dec('59000') });
    expect(
      run({ orders: [resting], reports: [row(2, { orderId: PLAN_ID, status: 'untriggered' })] }).events,
    ).toEqual([]);
  });
});

describe('reconcile kernel: who may declare a plan lost', () => {
  const old = { createdAt: T0 - 10 * GRACE, updatedAt: T0 - 10 * GRACE };
  const plan = localOrder(1, { status: 'unknown', triggerPrice: dec('59000'), ...old });
  const regular = localOrder(2, { status: 'unknown', ...old });
  const lost = (out: ReturnType<typeof run>) =>
    out.events.filter((e) => e.kind === 'OrderLost').map((e) => e.clientOid);

  it('order-history rounds declare only regular orders lost; plan rounds only plans', () => {
    expect(lost(run({ orders: [plan, regular], historyCoversSince: T0 - 20 * GRACE }))).toEqual([
      'cb-grid-2',
    ]);
    expect(
      lost(run({ orders: [plan, regular], historyCoversSince: T0 - 20 * GRACE, lostScope: 'plans' })),
    ).toEqual(['cb-grid-1']);
  });

  it('adopts a plan of ours found in the plan rows as an untriggered plan order', () => {
    const out = run({
      orders: [],
      reports: [row(3, { status: 'untriggered', triggerPrice: dec('61000'), type: 'close_short' })],
      strategies: [GRID],
    });
    expect(out.adopted).toHaveLength(1);
    expect(out.adopted[0]).toMatchObject({ status: 'untriggered', side: 'close_short' });
    expect(out.adopted[0]?.triggerPrice?.toFixed()).toBe('61000');
  });
});

describe('reconcile kernel: adopting rows with and without a trigger', () => {
  it('a plan row adopts as untriggered only while untriggered; a regular untriggered row adopts as pending', () => {
    const adoptOf = (over: Parameters<typeof row>[1]) =>
      run({ orders: [], reports: [row(4, over)], strategies: [GRID] }).adopted[0];
    expect(adoptOf({ status: 'canceled', triggerPrice: dec('61000') })?.status).toBe('canceled');
    expect(adoptOf({ status: 'open', triggerPrice: dec('61000') })?.status).toBe('open');
    expect(adoptOf({ status: 'untriggered' })?.status).toBe('pending');
    const regular = adoptOf({ status: 'open' });
    expect(regular !== undefined && 'triggerPrice' in regular).toBe(false);
  });
});
