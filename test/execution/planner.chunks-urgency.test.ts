// The planner's boundaries: chunk sizes for any maxBatch, the exact call order by urgency (including an
// urgent placement in a later chunk pulling its symbol's earlier chunks forward), the cost model on
// either bottleneck pool, and the refused options.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { clientOid, strategyId, symbolId } from '../../src/core/ids.ts';
import {
  planPlacements,
  singlesAreCheaper,
  type PlannedCall,
  type QueuedPlacement,
} from '../../src/execution/planner.ts';

const SYMBOLS = ['cmt_btcusdt', 'cmt_ethusdt', 'cmt_solusdt'].map(symbolId);

function placement(i: number, symbol = SYMBOLS[0]!, extra: Partial<QueuedPlacement> = {}): QueuedPlacement {
  const oid = clientOid(`cb-s-${i}`);
  return {
    symbol,
    clientOid: oid,
    strategy: strategyId('s'),
    priority: 0,
    enqueuedAt: 0,
    entry: { clientOid: oid, side: 'open_long', orderType: 'normal', size: dec('1'), price: dec('100') },
    ...extra,
  };
}

const entriesOf = (c: PlannedCall): readonly QueuedPlacement[] =>
  c.kind === 'batch' ? c.entries : [c.entry];

// Few distinct priorities and times, so that ties (decided by queue position) are common.
const arbQueue = fc
  .array(
    fc.record({
      symbol: fc.constantFrom(...SYMBOLS),
      priority: fc.integer({ min: 0, max: 2 }),
      enqueuedAt: fc.integer({ min: 0, max: 3 }),
    }),
    { maxLength: 40 },
  )
  .map((rows) =>
    rows.map((r, i) => placement(i, r.symbol, { priority: r.priority, enqueuedAt: r.enqueuedAt })),
  );

describe('planner: chunks', () => {
  it('cuts each symbol into full chunks of maxBatch and one remainder, the lone entry as placeOrder', () => {
    fc.assert(
      fc.property(arbQueue, fc.integer({ min: 1, max: 6 }), (queue, maxBatch) => {
        const { calls } = planPlacements(queue, { maxBatch });
        for (const s of SYMBOLS) {
          const n = queue.filter((p) => p.symbol === s).length;
          // A chunk of one goes as one single call; larger chunks as one batch.
          const sizes = calls
            .filter((c) => c.symbol === s)
            .map((c) => (c.kind === 'batch' ? c.entries.length : 1));
          const expected = Array.from({ length: Math.ceil(n / maxBatch) }, (_, k) =>
            Math.min(maxBatch, n - k * maxBatch),
          );
          expect(sizes).toEqual(expected);
          for (const c of calls) expect(c.kind !== 'batch' || c.entries.length >= 2).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes exactly maxBatch entries in a chunk and starts a new one after it', () => {
    const q = Array.from({ length: 6 }, (_, i) => placement(i));
    expect(planPlacements(q, { maxBatch: 3 }).calls.map((c) => entriesOf(c).length)).toEqual([3, 3]);
    expect(planPlacements(q, { maxBatch: 1 }).calls.map((c) => c.kind)).toEqual(Array(6).fill('single'));
    expect(planPlacements(q, { maxBatch: 6 }).calls.map((c) => entriesOf(c).length)).toEqual([6]);
  });

  it('refuses a maxBatch that is not a positive integer, and accepts 1', () => {
    for (const maxBatch of [0, -1, 1.5, Number.NaN]) {
      expect(() => planPlacements([placement(0)], { maxBatch })).toThrow(RangeError);
    }
    expect(planPlacements([placement(0), placement(1)], { maxBatch: 1 }).calls).toHaveLength(2);
  });
});

describe('planner: call order', () => {
  /** Urgency of a placement: (−priority, enqueuedAt, queue position), smaller is more urgent. */
  const key = (queue: readonly QueuedPlacement[], p: QueuedPlacement): number[] => [
    -p.priority,
    p.enqueuedAt,
    queue.indexOf(p),
  ];
  const cmp = (a: number[], b: number[]): number => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;

  it('orders calls by the most urgent placement of the call or of any later call of its symbol', () => {
    fc.assert(
      fc.property(arbQueue, fc.integer({ min: 1, max: 4 }), (queue, maxBatch) => {
        const { calls } = planPlacements(queue, { maxBatch });
        const urgency = calls.map((c, i) =>
          calls
            .slice(i)
            .filter((later) => later.symbol === c.symbol)
            .flatMap(entriesOf)
            .map((p) => key(queue, p))
            .reduce((a, b) => (cmp(a, b) <= 0 ? a : b)),
        );
        for (let i = 1; i < urgency.length; i++)
          expect(cmp(urgency[i - 1]!, urgency[i]!)).toBeLessThanOrEqual(0);
        // Per symbol, calls and entries stay in queue order.
        for (const s of SYMBOLS) {
          const planned = calls.filter((c) => c.symbol === s).flatMap(entriesOf);
          expect(planned).toEqual(queue.filter((p) => p.symbol === s));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('an urgent placement in a later chunk pulls the earlier chunks of its symbol forward', () => {
    // BTC: 4 placements in chunks [0,1] [2,3], the urgent one last; ETH: one placement queued before it.
    const q = [
      placement(0, SYMBOLS[0]),
      placement(1, SYMBOLS[0]),
      placement(2, SYMBOLS[1]),
      placement(3, SYMBOLS[0]),
      placement(4, SYMBOLS[0], { priority: 1 }),
    ];
    const { calls } = planPlacements(q, { maxBatch: 2 });
    expect(calls.map((c) => [c.symbol, entriesOf(c).map((p) => p.clientOid)])).toEqual([
      [SYMBOLS[0], ['cb-s-0', 'cb-s-1']],
      [SYMBOLS[0], ['cb-s-3', 'cb-s-4']],
      [SYMBOLS[1], ['cb-s-2']],
    ]);
  });

  it('a less urgent later chunk does not lower the urgency of the earlier ones', () => {
    // BTC's first chunk holds the oldest placement; its second chunk is younger than ETH's.
    const q = [
      placement(0, SYMBOLS[0], { enqueuedAt: 0 }),
      placement(1, SYMBOLS[0], { enqueuedAt: 1 }),
      placement(2, SYMBOLS[1], { enqueuedAt: 2 }),
      placement(3, SYMBOLS[0], { enqueuedAt: 3 }),
    ];
    const { calls } = planPlacements(q, { maxBatch: 2 });
    expect(calls.map((c) => entriesOf(c).map((p) => p.clientOid))).toEqual([
      ['cb-s-0', 'cb-s-1'],
      ['cb-s-2'],
      ['cb-s-3'],
    ]);
  });

  it('breaks equal priority and time by queue position, across symbols', () => {
    const q = [placement(0, SYMBOLS[1]), placement(1, SYMBOLS[0]), placement(2, SYMBOLS[2])];
    expect(planPlacements(q).calls.map((c) => c.symbol)).toEqual([SYMBOLS[1], SYMBOLS[0], SYMBOLS[2]]);
    const r = [placement(0, SYMBOLS[2]), placement(1, SYMBOLS[1]), placement(2, SYMBOLS[0])];
    expect(planPlacements(r).calls.map((c) => c.symbol)).toEqual([SYMBOLS[2], SYMBOLS[1], SYMBOLS[0]]);
  });
});

describe('planner: cost of singles against a batch', () => {
  // placeOrder weighs IP 2 / UID 5, batchOrders IP 5 / UID 10; the smaller pool decides.
  const BIG = 1e12;
  it('with the UID pool the bottleneck: one placeOrder (UID 5) beats a batch (UID 10), two tie', () => {
    const o = { maxBatch: 20, supersede: false, ipWeightPerWindow: BIG, uidWeightPerWindow: 1000 };
    expect(singlesAreCheaper(1, o)).toBe(true);
    expect(singlesAreCheaper(2, o)).toBe(false);
  });

  it('with the IP pool the bottleneck: two placeOrders (IP 4) beat a batch (IP 5), three do not', () => {
    const o = { maxBatch: 20, supersede: false, ipWeightPerWindow: 1000, uidWeightPerWindow: BIG };
    expect(singlesAreCheaper(1, o)).toBe(true);
    expect(singlesAreCheaper(2, o)).toBe(true);
    expect(singlesAreCheaper(3, o)).toBe(false);
    const { calls } = planPlacements([placement(0), placement(1)], o);
    expect(calls.map((c) => c.kind)).toEqual(['single', 'single']);
  });

  it('weighs each pool against its own size', () => {
    // IP pool 5× smaller than UID: IP is the bottleneck (2n/200 vs 5n/1000).
    const o = { maxBatch: 20, supersede: false, ipWeightPerWindow: 200, uidWeightPerWindow: 1000 };
    expect(singlesAreCheaper(2, o)).toBe(true);
    expect(singlesAreCheaper(3, o)).toBe(false);
  });
});
