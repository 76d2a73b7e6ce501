import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { clientOid, strategyId, symbolId } from '../../src/core/ids.ts';
import {
  placementCount,
  planPlacements,
  singlesAreCheaper,
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
    enqueuedAt: i,
    entry: { clientOid: oid, side: 'open_long', orderType: 'normal', size: dec('1'), price: dec('100') },
    ...extra,
  };
}

const arbQueue = fc
  .array(
    fc.record({
      symbol: fc.constantFrom(...SYMBOLS),
      strategy: fc.constantFrom('a', 'b'),
      tag: fc.option(fc.constantFrom('bid', 'ask', 'tp'), { nil: undefined }),
      priority: fc.integer({ min: 0, max: 2 }),
      enqueuedAt: fc.integer({ min: 0, max: 50 }),
    }),
    { maxLength: 120 },
  )
  .map((rows) =>
    rows.map((r, i) =>
      placement(i, r.symbol, {
        strategy: strategyId(r.strategy),
        priority: r.priority,
        enqueuedAt: r.enqueuedAt,
        ...(r.tag !== undefined ? { tag: r.tag } : {}),
      }),
    ),
  );

describe('planner: properties', () => {
  it('puts every placement in exactly one call of ≤ 20 same-symbol entries, keeping per-symbol order', () => {
    fc.assert(
      fc.property(arbQueue, fc.boolean(), (queue, supersede) => {
        const { calls, superseded } = planPlacements(queue, { supersede });
        const seen = new Map<string, number>();
        const perSymbol = new Map<string, string[]>();
        for (const call of calls) {
          const entries = call.kind === 'batch' ? call.entries : [call.entry];
          expect(entries.length).toBeGreaterThanOrEqual(1);
          expect(entries.length).toBeLessThanOrEqual(20);
          if (call.kind === 'batch') expect(entries.length).toBeGreaterThanOrEqual(2); // a lone order goes as placeOrder
          for (const e of entries) {
            expect(e.symbol).toBe(call.symbol);
            seen.set(e.clientOid, (seen.get(e.clientOid) ?? 0) + 1);
            perSymbol.set(e.symbol, [...(perSymbol.get(e.symbol) ?? []), e.clientOid]);
          }
        }
        for (const s of superseded) seen.set(s.clientOid, (seen.get(s.clientOid) ?? 0) + 1);
        expect(seen.size).toBe(queue.length);
        expect([...seen.values()].every((n) => n === 1)).toBe(true);
        expect(placementCount(calls) + superseded.length).toBe(queue.length);
        const gone = new Set(superseded.map((p) => p.clientOid));
        for (const s of SYMBOLS) {
          const expected = queue
            .filter((p) => p.symbol === s && !gone.has(p.clientOid))
            .map((p) => p.clientOid);
          expect(perSymbol.get(s) ?? []).toEqual(expected);
        }
        if (!supersede) expect(superseded).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('supersede keeps exactly the newest placement per strategy + symbol + tag; untagged ones stay', () => {
    fc.assert(
      fc.property(arbQueue, (queue) => {
        const { calls, superseded } = planPlacements(queue, { supersede: true });
        const kept = calls.flatMap((c) => (c.kind === 'batch' ? c.entries : [c.entry]));
        const key = (p: QueuedPlacement) => `${p.strategy}|${p.symbol}|${p.tag}`;
        const keptKeys = kept.filter((p) => p.tag !== undefined).map(key);
        expect(new Set(keptKeys).size).toBe(keptKeys.length);
        for (const s of superseded) {
          expect(s.tag).toBeDefined();
          const newer = kept.find((p) => key(p) === key(s));
          expect(newer).toBeDefined();
          expect(queue.indexOf(newer!)).toBeGreaterThan(queue.indexOf(s));
        }
        expect(kept.filter((p) => p.tag === undefined).length).toBe(
          queue.filter((p) => p.tag === undefined).length,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('sends first the call carrying the most urgent placement', () => {
    fc.assert(
      fc.property(
        arbQueue.filter((q) => q.length > 0),
        (queue) => {
          const { calls } = planPlacements(queue);
          const mostUrgent = [...queue].sort(
            (a, b) =>
              b.priority - a.priority || a.enqueuedAt - b.enqueuedAt || queue.indexOf(a) - queue.indexOf(b),
          )[0]!;
          expect(calls[0]?.symbol).toBe(mostUrgent.symbol);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('planner: readable cases', () => {
  it('sends a lone order as placeOrder (IP 2 / UID 5 beats batchOrders IP 5 / UID 10)', () => {
    const { calls } = planPlacements([placement(1)]);
    expect(calls).toEqual([{ kind: 'single', symbol: SYMBOLS[0], entry: placement(1) }]);
    expect(singlesAreCheaper(1)).toBe(true);
    expect(singlesAreCheaper(2)).toBe(false); // same UID weight, one request instead of two
  });

  it('chunks 45 orders of one symbol into 20 + 20 + 5', () => {
    const { calls } = planPlacements(Array.from({ length: 45 }, (_, i) => placement(i)));
    expect(calls.map((c) => (c.kind === 'batch' ? c.entries.length : 1))).toEqual([20, 20, 5]);
  });

  it('sends the 21st order alone as placeOrder', () => {
    const { calls } = planPlacements(Array.from({ length: 21 }, (_, i) => placement(i)));
    expect(calls.map((c) => c.kind)).toEqual(['batch', 'single']);
  });

  it('never mixes symbols in a batch', () => {
    const q = [
      placement(0, SYMBOLS[0]),
      placement(1, SYMBOLS[1]),
      placement(2, SYMBOLS[0]),
      placement(3, SYMBOLS[1]),
    ];
    const { calls } = planPlacements(q);
    expect(calls).toHaveLength(2);
    for (const c of calls) {
      expect(c.kind).toBe('batch');
      if (c.kind === 'batch') expect(new Set(c.entries.map((e) => e.symbol))).toEqual(new Set([c.symbol]));
    }
  });

  it('lets a high-priority placement pull its symbol forward, older entries of that symbol first', () => {
    const q = [placement(0, SYMBOLS[0]), placement(1, SYMBOLS[1]), placement(2, SYMBOLS[1], { priority: 5 })];
    const { calls } = planPlacements(q);
    expect(calls[0]).toMatchObject({ kind: 'batch', symbol: SYMBOLS[1] });
    expect(calls[0]?.kind === 'batch' && calls[0].entries.map((e) => e.clientOid)).toEqual([
      'cb-s-1',
      'cb-s-2',
    ]);
  });

  it('supersedes an older queued placement with the same strategy, symbol and tag', () => {
    const old = placement(0, SYMBOLS[0], { tag: 'bid-1' });
    const other = placement(1, SYMBOLS[0], { tag: 'bid-2' });
    const newer = placement(2, SYMBOLS[0], { tag: 'bid-1' });
    const { calls, superseded } = planPlacements([old, other, newer], { supersede: true });
    expect(superseded).toEqual([old]);
    expect(calls[0]?.kind === 'batch' && calls[0].entries).toEqual([other, newer]);
  });
});
