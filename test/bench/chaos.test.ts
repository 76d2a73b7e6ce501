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
import type {
  ExchangeFillRow,
  ExchangeOrderRow,
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
