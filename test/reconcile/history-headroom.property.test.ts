// Keeping unknown orders settleable: placements that obey `historyBacklog` never bury an order whose
// outcome is unknown deeper than one history page allows (src/reconcile/history-headroom.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientOid, orderId, symbolId } from '../../src/core/ids.ts';
import type { Order } from '../../src/core/orders.ts';
import {
  awaitsOutcome,
  headroomLimit,
  historyBacklog,
  type HistoryHeadroomConfig,
} from '../../src/reconcile/history-headroom.ts';
import { BTC, localOrder, T0 } from './fixtures.ts';

const ETH = symbolId('cmt_ethusdt');
const CFG: HistoryHeadroomConfig = { pageSize: 20, skewMs: 2_000, reserve: 4, holdMs: 60_000 };

type Step =
  | { readonly kind: 'place'; readonly symbol: 0 | 1; readonly n: number; readonly lose: number }
  | { readonly kind: 'settle'; readonly pick: number; readonly cancel: boolean }
  | { readonly kind: 'wait'; readonly ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('place' as const),
    symbol: fc.constantFrom(0 as const, 1 as const),
    n: fc.integer({ min: 1, max: 25 }),
    lose: fc.integer({ min: -1, max: 24 }),
  }),
  fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), cancel: fc.boolean() }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 20_000 }) }),
);

describe('historyBacklog', () => {
  it('lets placements bury no unknown order deeper than the limit (or than it already was)', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        let now = T0;
        let seq = 0;
        const all: Order[] = [];
        /** Per unknown order: how many orders its window held when it became unknown. */
        const atLoss = new Map<string, number>();
        const countSince = (symbol: string, t: number) =>
          all.filter((o) => o.symbol === symbol && o.createdAt >= t).length;
        for (const s of steps) {
          if (s.kind === 'wait') now += s.ms;
          else if (s.kind === 'settle') {
            // Settled, or canceled while its outcome is still unknown (it keeps holding the symbol).
            const unknown = all.filter(awaitsOutcome);
            const o = unknown[s.pick % Math.max(1, unknown.length)];
            if (o !== undefined) all[all.indexOf(o)] = { ...o, status: s.cancel ? 'canceling' : 'rejected' };
          } else {
            const symbol = s.symbol === 0 ? BTC : ETH;
            for (let i = 0; i < s.n; i++) {
              const live = all.filter(awaitsOutcome);
              if (historyBacklog(live, symbol, (t) => countSince(symbol, t), now, CFG) !== undefined) break;
              const o = localOrder(++seq, {
                clientOid: clientOid(`cb-h-${seq}`),
                symbol,
                status: i === s.lose ? 'unknown' : 'open',
                createdAt: now,
              });
              all.push(i === s.lose ? o : { ...o, orderId: orderId(`9${seq}`) });
              if (o.status === 'unknown') atLoss.set(o.clientOid, countSince(symbol, now - CFG.skewMs));
            }
          }
          for (const u of all) {
            if (!awaitsOutcome(u) || now - u.createdAt >= CFG.holdMs) continue;
            const depth = countSince(u.symbol, u.createdAt - CFG.skewMs);
            expect(depth).toBeLessThanOrEqual(Math.max(headroomLimit(CFG), atLoss.get(u.clientOid) ?? 0));
          }
        }
      }),
    );
  });

  it('names the symbol, the count and the limit when it refuses, and ignores other symbols', () => {
    const unknown = localOrder(1, { status: 'unknown', createdAt: T0 });
    const r = historyBacklog([unknown], BTC, () => 16, T0 + 1_000, CFG);
    expect(r).toMatch(/cmt_btcusdt .* 16 orders since \(limit 16/);
    expect(historyBacklog([unknown], BTC, () => 15, T0 + 1_000, CFG)).toBeUndefined();
    expect(historyBacklog([unknown], ETH, () => 99, T0 + 1_000, CFG)).toBeUndefined();
    // An order acknowledged by the exchange, or held back for too long, holds nothing back.
    expect(historyBacklog([unknown], BTC, () => 99, T0 + CFG.holdMs, CFG)).toBeUndefined();
    const acked = { ...unknown, orderId: orderId('91') };
    expect(historyBacklog([acked], BTC, () => 99, T0 + 1_000, CFG)).toBeUndefined();
  });
});
