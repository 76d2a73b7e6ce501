// Plan (trigger) placements in the planner: one plan_order call each (the venue batches no plans),
// never mixed into a batch, and every placement still in exactly one call.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { clientOid, strategyId, symbolId } from '../../src/core/ids.ts';
import { placementCount, planPlacements, type QueuedPlacement } from '../../src/execution/planner.ts';

const BTC = symbolId('cmt_btcusdt');
const ETH = symbolId('cmt_ethusdt');

function placement(i: number, plan: boolean, symbol = BTC, priority = 0): QueuedPlacement {
  const oid = clientOid(`cb-s-${i}`);
  return {
    symbol,
    clientOid: oid,
    strategy: strategyId('s'),
    priority,
    enqueuedAt: i,
    entry: { clientOid: oid, side: 'close_long', orderType: 'normal', size: dec('1') },
    ...(plan ? { triggerPrice: dec('90') } : {}),
  };
}

describe('planner: plan placements', () => {
  it('sends each plan alone as a plan call and batches the regular ones around them', () => {
    const queue = [placement(1, false), placement(2, true), placement(3, false), placement(4, true)];
    const { calls } = planPlacements(queue);
    expect(calls.map((c) => c.kind)).toEqual(['batch', 'plan', 'plan']);
    const batch = calls[0];
    expect(batch?.kind === 'batch' ? batch.entries.map((e) => e.clientOid) : []).toEqual([
      'cb-s-1',
      'cb-s-3',
    ]);
    expect(calls.slice(1).map((c) => (c.kind === 'plan' ? c.entry.clientOid : ''))).toEqual([
      'cb-s-2',
      'cb-s-4',
    ]);
  });

  it('a lone plan is a plan call, never a placeOrder', () => {
    expect(planPlacements([placement(1, true)]).calls).toEqual([
      { kind: 'plan', symbol: BTC, entry: placement(1, true) },
    ]);
  });

  it('an urgent plan goes before less urgent regular calls', () => {
    const { calls } = planPlacements([
      placement(1, false, ETH),
      placement(2, false, ETH),
      placement(3, true, BTC, 1),
    ]);
    expect(calls[0]?.kind).toBe('plan');
  });

  it('property: every placement in exactly one call; plans only in plan calls, regular ones never', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.constantFrom(BTC, ETH), fc.integer({ min: 0, max: 2 })), {
          maxLength: 60,
        }),
        fc.integer({ min: 1, max: 20 }),
        (spec, maxBatch) => {
          const queue = spec.map(([plan, symbol, prio], i) => placement(i, plan, symbol, prio));
          const { calls } = planPlacements(queue, { maxBatch });
          expect(placementCount(calls)).toBe(queue.length);
          const seen = new Set<string>();
          for (const c of calls) {
            const entries = c.kind === 'batch' ? c.entries : [c.entry];
            for (const e of entries) {
              expect(seen.has(e.clientOid)).toBe(false);
              seen.add(e.clientOid);
              expect(e.triggerPrice !== undefined).toBe(c.kind === 'plan');
              expect(e.symbol).toBe(c.symbol);
            }
          }
          // Plans of one symbol keep queue order (an urgent one pulls the older ones forward).
          for (const symbol of [BTC, ETH]) {
            const order = calls
              .filter((c) => c.kind === 'plan' && c.symbol === symbol)
              .map((c) => (c.kind === 'plan' ? c.entry.enqueuedAt : -1));
            const inQueue = queue
              .filter((p) => p.triggerPrice !== undefined && p.symbol === symbol)
              .map((p) => p.enqueuedAt);
            expect(order).toEqual(inQueue);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
