// The pure parts of `npm run chaos`: the verdict (store vs exchange), the seeded kill schedule, the
// back-and-forth market recording and the runner config. The run itself (processes, SIGKILL)
// is `npm run chaos`; it takes minutes, so it is not part of the unit tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compare, type CompareInput } from '../../bench/chaos/compare.ts';
import { chaosConfigYaml } from '../../bench/chaos/config.ts';
import { writePingPongRecording } from '../../bench/chaos/recording.ts';
import { killSchedule } from '../../bench/chaos/schedule.ts';
import { planState } from '../../bench/chaos/snapshot.ts';
import type {
  ExchangeFillRow,
  ExchangeOrderRow,
  ExchangePlanRow,
  StoreFillRow,
  StoreOrderRow,
} from '../../bench/chaos/snapshot.ts';
import { parseConfigText } from '../../src/config/load.ts';
import { readRecording } from '../../src/market/recording/reader.ts';

const storeOrder = (clientOid: string, o: Partial<StoreOrderRow> = {}): StoreOrderRow => ({
  clientOid,
  orderId: `id-${clientOid}`,
  symbol: 'cmt_btcusdt',
  status: 'filled',
  size: '0.001',
  filledQty: '0.001',
  fillsQty: '0.001',
  reason: null,
  triggerPrice: null,
  planOrderId: null,
  ...o,
});

const exOrder = (clientOid: string, o: Partial<ExchangeOrderRow> = {}): ExchangeOrderRow => ({
  clientOid,
  orderId: `id-${clientOid}`,
  symbol: 'cmt_btcusdt',
  status: 'filled',
  size: '0.001000',
  filledQty: '0.001000',
  createTime: 500,
  ...o,
});

const exFill = (tradeId: string, clientOid: string, o: Partial<ExchangeFillRow> = {}): ExchangeFillRow => ({
  tradeId,
  orderId: `id-${clientOid}`,
  symbol: 'cmt_btcusdt',
  size: '0.001',
  value: '64',
  createdTime: 1_000,
  ...o,
});

const storeFill = (tradeId: string, clientOid: string, o: Partial<StoreFillRow> = {}): StoreFillRow => ({
  tradeId,
  orderId: `id-${clientOid}`,
  clientOid,
  size: '0.001',
  value: '64.0',
  ...o,
});

/** Two filled orders, one canceled unfilled, one declared lost that never arrived: all consistent. */
function consistent(): CompareInput {
  return {
    prefix: 'chaos',
    storeOrders: [
      storeOrder('chaos-s-1'),
      storeOrder('chaos-s-2'),
      storeOrder('chaos-s-3', { status: 'canceled', filledQty: '0', fillsQty: null }),
      storeOrder('chaos-s-4', {
        orderId: null,
        status: 'rejected',
        filledQty: '0',
        fillsQty: null,
        reason: 'no trace at the exchange',
      }),
      storeOrder('chaos-s-5', { orderId: null, status: 'canceled', filledQty: '0', fillsQty: null }),
    ],
    storeFills: [storeFill('t1', 'chaos-s-1'), storeFill('t2', 'chaos-s-2')],
    exchangeOrders: [
      exOrder('chaos-s-1'),
      exOrder('chaos-s-2'),
      exOrder('chaos-s-3', { status: 'canceled', filledQty: '0.000000' }),
      exOrder('someone-else-1'),
    ],
    exchangeFills: [exFill('t1', 'chaos-s-1'), exFill('t2', 'chaos-s-2'), exFill('t9', 'someone-else-1')],
    exchangePlans: [],
    fillCutoff: 5_000,
  };
}

const verdict = (i: CompareInput) => {
  const c = compare(i);
  return {
    duplicateOrders: c.duplicateOrders,
    lostOrders: c.lostOrders,
    orphanOrders: c.orphanOrders,
    fillMismatches: c.fillMismatches,
  };
};
const CLEAN = { duplicateOrders: 0, lostOrders: 0, orphanOrders: 0, fillMismatches: 0 };

describe('chaos verdict (store vs exchange)', () => {
  it('finds nothing wrong in consistent pictures, and counts only our orders and fills', () => {
    const c = compare(consistent());
    expect(verdict(consistent())).toEqual(CLEAN);
    expect(c.ordersAtExchange).toBe(3);
    expect(c.fillsAtExchange).toBe(2);
    expect(c.details.diagnostics.foreignOrders).toBe(1);
    expect(c.details.diagnostics.declaredLost).toBe(1);
  });

  it('counts an exchange order held twice under one client_oid, and one order id claimed twice', () => {
    const i = consistent();
    expect(
      verdict({ ...i, exchangeOrders: [...i.exchangeOrders, exOrder('chaos-s-2', { orderId: 'x' })] }),
    ).toEqual({ ...CLEAN, duplicateOrders: 1 });
    const twice = compare({
      ...i,
      storeOrders: [
        ...i.storeOrders,
        storeOrder('chaos-s-9', { orderId: 'id-chaos-s-1', status: 'open', fillsQty: null }),
      ],
    });
    expect(twice.details.duplicates.sameOrderIdInStore.count).toBe(1);
    expect(twice.duplicateOrders).toBe(1);
  });

  it('counts each way of losing an order', () => {
    const i = consistent();
    const cases: [string, Partial<CompareInput>, keyof ReturnType<typeof compare>['details']['lost']][] = [
      [
        'still unknown after the settle',
        {
          storeOrders: [
            ...i.storeOrders,
            storeOrder('chaos-s-7', { orderId: null, status: 'unknown', filledQty: '0', fillsQty: null }),
          ],
        },
        'unsettled',
      ],
      [
        'open in the store, absent at the exchange',
        {
          storeOrders: [
            ...i.storeOrders,
            storeOrder('chaos-s-7', { status: 'open', filledQty: '0', fillsQty: null }),
          ],
        },
        'missingAtExchange',
      ],
      [
        'declared lost while the exchange has it',
        {
          storeOrders: i.storeOrders.map((o) =>
            o.clientOid === 'chaos-s-3' ? { ...o, orderId: null, status: 'rejected' } : o,
          ),
        },
        'existsButRejected',
      ],
      [
        'canceled in the store, still live at the exchange',
        {
          exchangeOrders: i.exchangeOrders.map((o) =>
            o.clientOid === 'chaos-s-3' ? { ...o, status: 'open' } : o,
          ),
        },
        'canceledButLive',
      ],
    ];
    for (const [what, change, kind] of cases) {
      const c = compare({ ...i, ...change });
      expect({ what, ...verdict({ ...i, ...change }) }).toEqual({ what, ...CLEAN, lostOrders: 1 });
      expect(c.details.lost[kind].count).toBe(1);
    }
  });

  it('counts an exchange order of ours the store does not know as an orphan', () => {
    const i = consistent();
    const c = compare({
      ...i,
      exchangeOrders: [...i.exchangeOrders, exOrder('chaos-s-8', { status: 'open', filledQty: '0' })],
    });
    expect(c.orphanOrders).toBe(1);
    expect(c.details.orphans.examples).toEqual(['chaos-s-8']);
  });

  it('counts fills missing, invented, misattributed or applied twice', () => {
    const i = consistent();
    const missing = { ...i, storeFills: [storeFill('t1', 'chaos-s-1')] };
    expect(compare(missing).details.fills.missingInStore.count).toBe(1);

    const invented = { ...i, storeFills: [...i.storeFills, storeFill('t7', 'chaos-s-1')] };
    const ci = compare(invented);
    expect(ci.details.fills.unknownToExchange.count).toBe(1);
    // ... and chaos-s-1's applied quantity no longer matches its stored fills.
    expect(ci.details.fills.countedTwice.count).toBe(1);

    const wrongOwner = {
      ...i,
      storeFills: [storeFill('t1', 'chaos-s-1'), storeFill('t2', 'chaos-s-2', { clientOid: null })],
    };
    expect(compare(wrongOwner).details.fills.misattributed.count).toBe(1);

    const appliedTwice = {
      ...i,
      storeOrders: i.storeOrders.map((o) => (o.clientOid === 'chaos-s-1' ? { ...o, fillsQty: '0.002' } : o)),
    };
    expect(verdict(appliedTwice)).toEqual({ ...CLEAN, fillMismatches: 1 });
  });

  it('leaves out exchange fills newer than the cutoff', () => {
    const i = consistent();
    const late = {
      ...i,
      exchangeFills: [...i.exchangeFills, exFill('t3', 'chaos-s-3', { createdTime: 9_000 })],
    };
    expect(verdict(late)).toEqual(CLEAN);
    expect(compare(late).details.fills.afterCutoff).toBe(1);
  });

  it('reports status and quantity differences as diagnostics only', () => {
    const i = consistent();
    const c = compare({
      ...i,
      storeOrders: i.storeOrders.map((o) =>
        o.clientOid === 'chaos-s-3' ? { ...o, status: 'open', filledQty: '0.0005' } : o,
      ),
    });
    expect(verdict(i)).toEqual(CLEAN);
    expect(c.details.diagnostics.statusDiffers.count).toBe(1);
    expect(c.details.diagnostics.filledQtyDiffers.count).toBe(1);
  });
});

const exPlan = (clientOid: string, o: Partial<ExchangePlanRow> = {}): ExchangePlanRow => ({
  clientOid,
  orderId: `plan-${clientOid}`,
  symbol: 'cmt_btcusdt',
  state: 'canceled',
  childOrderId: null,
  triggerTime: null,
  createTime: 400,
  reason: 'canceled by request',
  ...o,
});

const storePlan = (clientOid: string, o: Partial<StoreOrderRow> = {}): StoreOrderRow =>
  storeOrder(clientOid, {
    orderId: `plan-${clientOid}`,
    status: 'canceled',
    filledQty: '0',
    fillsQty: null,
    triggerPrice: '64000',
    ...o,
  });

/**
 * The consistent picture plus plans: one fired and filled (its child an order under the plan's
 * client_oid), one untriggered, one canceled, one canceled by client_oid before the store knew its
 * id, one whose child the venue refused.
 */
function withPlans(): CompareInput {
  const i = consistent();
  const fired = exPlan('chaos-p-1', {
    state: 'triggered',
    childOrderId: 'child-1',
    triggerTime: 900,
    reason: null,
  });
  return {
    ...i,
    storeOrders: [
      ...i.storeOrders,
      storePlan('chaos-p-1', {
        orderId: 'child-1',
        planOrderId: 'plan-chaos-p-1',
        status: 'filled',
        filledQty: '0.001',
        fillsQty: '0.001',
      }),
      storePlan('chaos-p-2', { status: 'untriggered' }),
      storePlan('chaos-p-3'),
      storePlan('chaos-p-4', { orderId: null }),
      storePlan('chaos-p-5'),
    ],
    storeFills: [...i.storeFills, storeFill('t5', 'chaos-p-1', { orderId: 'child-1' })],
    exchangeOrders: [...i.exchangeOrders, exOrder('chaos-p-1', { orderId: 'child-1' })],
    exchangeFills: [...i.exchangeFills, exFill('t5', 'chaos-p-1', { orderId: 'child-1' })],
    exchangePlans: [
      fired,
      exPlan('chaos-p-2', { state: 'untriggered', reason: null }),
      exPlan('chaos-p-3'),
      exPlan('chaos-p-4'),
      exPlan('chaos-p-5', { state: 'failed', triggerTime: 800, reason: 'close larger than the position' }),
      exPlan('someone-else-p', { state: 'untriggered', reason: null }),
    ],
  };
}

const replaceStore = (i: CompareInput, oid: string, o: Partial<StoreOrderRow>): CompareInput => ({
  ...i,
  storeOrders: i.storeOrders.map((s) => (s.clientOid === oid ? { ...s, ...o } : s)),
});
const replacePlan = (i: CompareInput, oid: string, o: Partial<ExchangePlanRow>): CompareInput => ({
  ...i,
  exchangePlans: i.exchangePlans.map((p) => (p.clientOid === oid ? { ...p, ...o } : p)),
});

describe('chaos verdict: plan orders', () => {
  it('finds nothing wrong in a consistent picture with plans, and counts our plans by fate', () => {
    const c = compare(withPlans());
    expect(verdict(withPlans())).toEqual(CLEAN);
    expect(c.plansAtExchange).toEqual({
      placed: 5,
      fired: 2,
      canceled: 2,
      failed: 1,
      expired: 0,
      untriggered: 1,
    });
    // The child is an order of ours; its fill is attributed to the plan's client_oid.
    expect(c.ordersAtExchange).toBe(4);
    expect(c.fillsAtExchange).toBe(3);
  });

  it('counts a plan placed twice, and a plan also sent as a regular order, as duplicates', () => {
    const i = withPlans();
    const twice = compare({
      ...i,
      exchangePlans: [...i.exchangePlans, exPlan('chaos-p-3', { orderId: 'plan-again' })],
    });
    expect(twice.duplicateOrders).toBe(1);
    expect(twice.details.duplicates.samePlanClientOid.examples).toEqual(['chaos-p-3']);
    const asOrder = compare({
      ...i,
      exchangeOrders: [...i.exchangeOrders, exOrder('chaos-p-2', { status: 'canceled', filledQty: '0' })],
    });
    expect(asOrder.details.duplicates.samePlanClientOid.count).toBe(1);
    expect(asOrder.duplicateOrders).toBe(1);
  });

  it('counts each way of losing a plan', () => {
    const i = withPlans();
    type Kind = keyof ReturnType<typeof compare>['details']['lost'];
    const cases: [string, CompareInput, Kind][] = [
      [
        'untriggered in the store, no plan at the exchange',
        replaceStore(i, 'chaos-p-2', { clientOid: 'chaos-p-9' }),
        'missingAtExchange',
      ],
      [
        'declared lost while the exchange has it',
        replaceStore(i, 'chaos-p-3', { orderId: null, status: 'rejected' }),
        'existsButRejected',
      ],
      [
        'canceled in the store, untriggered at the exchange',
        replaceStore(i, 'chaos-p-2', { status: 'canceled' }),
        'canceledButLive',
      ],
      [
        'untriggered in the store, canceled at the exchange',
        replaceStore(i, 'chaos-p-3', { status: 'untriggered' }),
        'planFateMissed',
      ],
      [
        'untriggered in the store, its child refused',
        replaceStore(i, 'chaos-p-5', { status: 'untriggered' }),
        'planFateMissed',
      ],
      [
        'fired at the exchange, child never linked',
        replaceStore(i, 'chaos-p-1', {
          orderId: 'plan-chaos-p-1',
          planOrderId: null,
          status: 'untriggered',
          filledQty: '0',
          fillsQty: null,
        }),
        'planFateMissed',
      ],
      ['another plan id', replaceStore(i, 'chaos-p-3', { orderId: 'plan-x' }), 'planIdsWrong'],
      [
        'the child id taken for the plan id',
        replaceStore(i, 'chaos-p-1', { orderId: 'child-1', planOrderId: null }),
        'planIdsWrong',
      ],
      ['linked to another child', replaceStore(i, 'chaos-p-1', { orderId: 'child-x' }), 'planIdsWrong'],
    ];
    for (const [what, input, kind] of cases) {
      const c = compare(input);
      expect({ what, lost: c.lostOrders, [kind]: c.details.lost[kind].count }).toEqual({
        what,
        lost: 1,
        [kind]: 1,
      });
    }
  });

  it('leaves a plan that fired after the cutoff unlinked without counting it', () => {
    const i = replacePlan(replaceStore(withPlans(), 'chaos-p-2', {}), 'chaos-p-2', {
      state: 'triggered',
      childOrderId: 'child-2',
      triggerTime: 9_000,
      reason: null,
    });
    const late = {
      ...i,
      exchangeOrders: [
        ...i.exchangeOrders,
        exOrder('chaos-p-2', { orderId: 'child-2', status: 'open', filledQty: '0' }),
      ],
    };
    expect(verdict(late)).toEqual(CLEAN);
    expect(verdict(replacePlan(late, 'chaos-p-2', { triggerTime: 4_000 }))).toEqual({
      ...CLEAN,
      lostOrders: 1,
    });
  });

  it('counts a plan of ours the store does not know as an orphan', () => {
    const i = withPlans();
    const c = compare({
      ...i,
      exchangePlans: [...i.exchangePlans, exPlan('chaos-p-8', { state: 'untriggered' })],
    });
    expect(verdict({ ...i, exchangePlans: [...i.exchangePlans, exPlan('chaos-p-8')] })).toEqual({
      ...CLEAN,
      orphanOrders: 1,
    });
    expect(c.details.orphanPlans.examples).toEqual(['chaos-p-8']);
  });

  it("counts a child's fill not attributed to the plan's client_oid", () => {
    const i = withPlans();
    const c = compare({
      ...i,
      storeFills: i.storeFills.map((f) => (f.tradeId === 't5' ? { ...f, clientOid: null } : f)),
    });
    expect(c.details.fills.misattributed.count).toBe(1);
  });

  it("reads a plan's state from either status vocabulary, its trigger time, child and reason", () => {
    const row = { triggerTime: null, childOrderId: null, reason: null };
    expect(planState({ ...row, status: '0' })).toBe('untriggered');
    expect(planState({ ...row, status: 'UNTRIGGERED' })).toBe('untriggered');
    expect(planState({ ...row, status: '-1', reason: 'canceled by request' })).toBe('canceled');
    expect(planState({ ...row, status: 'CANCELED', reason: 'expired (90 days)' })).toBe('expired');
    expect(planState({ ...row, status: '0', triggerTime: 5, childOrderId: 'c' })).toBe('triggered');
    expect(planState({ ...row, status: '-1', triggerTime: 5, reason: 'refused' })).toBe('failed');
  });
});

describe('chaos kill schedule', () => {
  it('is the same for the same seed, increasing, within the phase, and ends with the phase', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 1_000, max: 600_000 }),
        (seed, durationMs) => {
          const o = { durationMs, minGapMs: 2_000, maxGapMs: 14_000 };
          const s = killSchedule(seed, o);
          expect(killSchedule(seed, o)).toEqual(s);
          expect(s.at(-1)).toBe(durationMs);
          for (let k = 1; k < s.length; k++) {
            const gap = (s[k] ?? 0) - (s[k - 1] ?? 0);
            expect(gap).toBeGreaterThan(0);
          }
          for (let k = 1; k < s.length - 1; k++)
            expect((s[k] ?? 0) - (s[k - 1] ?? 0)).toBeGreaterThanOrEqual(2_000);
        },
      ),
    );
  });

  it('differs between seeds', () => {
    const o = { durationMs: 60_000, minGapMs: 2_000, maxGapMs: 14_000 };
    expect(killSchedule(1, o)).not.toEqual(killSchedule(2, o));
  });
});

describe('chaos market recording', () => {
  it('plays the recording forwards and backwards with time always moving on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-rec-'));
    try {
      const source = 'test/fixtures/recordings/sim-small.ndjson';
      const src: { t: number; last: string }[] = [];
      for await (const p of readRecording(source)) src.push({ t: p.t, last: p.tickers[0]?.last ?? '' });
      const span = (src.at(-1)?.t ?? 0) - (src[0]?.t ?? 0);
      const dest = join(dir, 'market.ndjson');
      const r = await writePingPongRecording(source, dest, 2 * span + 1);
      const out: { t: number; last: string; ts: number }[] = [];
      for await (const p of readRecording(dest))
        out.push({ t: p.t, last: p.tickers[0]?.last ?? '', ts: Number(p.tickers[0]?.timestamp) });
      expect(r.polls).toBe(out.length);
      expect(r.spanMs).toBeGreaterThan(2 * span);
      const n = src.length;
      // forwards, then backwards, then forwards again
      expect(out.slice(0, n).map((p) => p.last)).toEqual(src.map((p) => p.last));
      expect(out.slice(n - 1, 2 * n - 1).map((p) => p.last)).toEqual(src.map((p) => p.last).reverse());
      for (let k = 1; k < out.length; k++) {
        expect(out[k]?.t ?? 0).toBeGreaterThan(out[k - 1]?.t ?? 0);
        expect(out[k]?.ts ?? 0).toBeGreaterThan(out[k - 1]?.ts ?? 0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('chaos runner config', () => {
  it('is a valid capibot config for both phases', () => {
    for (const settle of [false, true]) {
      const yaml = chaosConfigYaml({
        baseUrl: 'http://127.0.0.1:1',
        storePath: '/tmp/x.sqlite',
        logFile: '/tmp/x.log',
        strategyFile: 'bench/chaos/storm-strategy.ts',
        settle,
      });
      const cfg = parseConfigText(yaml, 'chaos.yaml', {});
      expect(cfg.orders.cancelOnStart).toBe(settle);
      expect(cfg.paper.venue).toBe('http');
    }
  });
});
