// Property: whatever order the replies come back in, and whatever each request meets (accepted,
// refused, reply lost, 429, transport failure), the executor never loses a placement and never sends
// one twice, and never spends more than the weight budget.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../src/core/events.ts';
import type { ClientOid } from '../../src/core/ids.ts';
import { microtasks } from '../../src/engine/virtual-time.ts';
import type { Fate } from '../helpers/fake-exchange.ts';
import { harness, oid, placement, type Harness } from '../helpers/executor-harness.ts';
import { BTC, ETH } from '../helpers/market.ts';
import { symbolId } from '../../src/core/ids.ts';

const SYMBOLS = [BTC, ETH, symbolId('cmt_solusdt')];
const OUTCOMES = new Set(['OrderAccepted', 'OrderRejected', 'OrderOutcomeUnknown']);

const fateArb = fc.constantFrom<Fate>(
  'accept',
  'accept',
  'accept',
  'refuse',
  'lost',
  'rateLimited',
  'transport',
);

const tickArb = fc.record({
  placements: fc.array(fc.nat({ max: SYMBOLS.length - 1 }), { maxLength: 45 }),
  cancels: fc.array(fc.nat({ max: 200 }), { maxLength: 3 }),
  withdraw: fc.option(fc.nat({ max: 200 }), { nil: undefined }),
  replies: fc.nat({ max: 6 }),
  advanceMs: fc.integer({ min: 0, max: 3_000 }),
});

async function step(h: Harness, s: fc.Scheduler): Promise<'done' | 'progress'> {
  await microtasks(8);
  if (s.count() > 0) {
    await s.waitOne();
    return 'progress';
  }
  if (!h.ex.isQuiescent()) return 'progress';
  if (h.ex.isEmpty()) return 'done';
  const due = h.vt.nextDue();
  if (due === undefined) throw new Error(`stuck with work left: ${JSON.stringify(h.ex.depth())}`);
  await h.vt.advanceTo(due);
  return 'progress';
}

describe('executor under random reply order and failures', () => {
  it('ends every placement in exactly one outcome, sends each client_oid at most once, respects the budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(tickArb, { minLength: 1, maxLength: 8 }),
        fc.array(fateArb, { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        async (s, ticks, fates, supersede) => {
          const h = harness({
            port: {
              // Failures are transient: once the scripted fates are used up, the exchange accepts.
              fate: (r) => fates[r.seq] ?? 'accept',
              entryPolicy: (e) => (e.clientOid.endsWith('7') ? 'reject' : 'accept'),
              settle: (reply) => s.schedule(Promise.resolve(), 'reply').then(reply),
            },
            executor: { supersede, retryDelayMs: 200 },
          });
          let n = 0;
          const submitted: ClientOid[] = [];
          const withdrawn = new Set<ClientOid>();
          for (const t of ticks) {
            for (const sym of t.placements) {
              n++;
              h.ex.submitPlacement(placement(SYMBOLS[sym]!, n, n % 3 === 0 ? { tag: `q${sym}` } : {}));
              submitted.push(oid(n));
            }
            if (t.withdraw !== undefined && t.withdraw < n) {
              const id = oid(t.withdraw + 1);
              if (h.ex.withdraw(id)) withdrawn.add(id);
            }
            for (const c of t.cancels) if (c < n) h.ex.submitCancel({ symbol: BTC, clientOid: oid(c + 1) });
            h.ex.endOfTick();
            for (let i = 0; i < t.replies && s.count() > 0; i++) await s.waitOne();
            await h.vt.advanceTo(h.vt.now() + t.advanceMs);
          }
          let done = false;
          for (let i = 0; i < 20_000 && !done; i++) done = (await step(h, s)) === 'done';
          expect(done).toBe(true);

          const byOid = new Map<ClientOid, OrderEvent[]>();
          for (const e of h.events) byOid.set(e.clientOid, [...(byOid.get(e.clientOid) ?? []), e]);
          const processed = new Map<string, number>();
          for (const r of h.port.requests) {
            if (r.endpoint !== 'batchOrders' && r.endpoint !== 'placeOrder') continue;
            if (r.fate === 'accept' || r.fate === 'lost')
              for (const id of r.ids) processed.set(id, (processed.get(id) ?? 0) + 1);
          }
          for (const id of submitted) {
            const evs = byOid.get(id) ?? [];
            const outcomes = evs.filter((e) => OUTCOMES.has(e.kind));
            if (withdrawn.has(id)) {
              // Taken back before it reached the exchange (possibly after a 429): no outcome, never processed.
              expect(outcomes).toEqual([]);
              expect(processed.get(id)).toBeUndefined();
              continue;
            }
            // Exactly one outcome, and nothing about the placement after it.
            expect(outcomes, `outcomes of ${id}`).toHaveLength(1);
            const placementEvents = evs.filter((e) => e.kind === 'OrderSubmitted' || OUTCOMES.has(e.kind));
            expect(placementEvents.at(-1)).toBe(outcomes[0]);
            expect(evs.filter((e) => e.kind === 'OrderSubmitted').length).toBeLessThanOrEqual(1);
            // At most one request that the exchange processed carried it.
            expect(processed.get(id) ?? 0, `times ${id} was processed`).toBeLessThanOrEqual(1);
            const o = outcomes[0]!;
            if (o.kind === 'OrderAccepted')
              expect(h.port.created.some((c) => c.clientOid === id && c.orderId === o.orderId)).toBe(true);
            if (h.port.created.some((c) => c.clientOid === id))
              expect(['OrderAccepted', 'OrderOutcomeUnknown']).toContain(o.kind);
            // A request carrying it was preceded by OrderSubmitted (write-ahead).
            const firstRequest = h.timeline.findIndex(
              (l) => /^request:(batchOrders|placeOrder):/.test(l) && l.split(':')[2]!.split(',').includes(id),
            );
            if (firstRequest >= 0)
              expect(h.timeline.indexOf(`event:OrderSubmitted:${id}`)).toBeLessThan(firstRequest);
          }
          expect(h.port.duplicates()).toEqual([]);
          expect(h.port.maxIpWeight()).toBeLessThanOrEqual(900);
          expect(h.port.maxUidWeight()).toBeLessThanOrEqual(900);
          expect(h.port.maxOrderRate()).toBeLessThanOrEqual(10);
        },
      ),
      { numRuns: 120 },
    );
  });
});
