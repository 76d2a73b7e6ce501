// The simulator's order history from its creation index (MatchingCore.newestOrders) is the page that
// sorting every order newest first, filtering and cutting would give.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { ContractTable } from '../../../src/exchange/sim/contracts.ts';
import { MatchingCore } from '../../../src/exchange/sim/matching.ts';
import type { SimOrder } from '../../../src/exchange/sim/model.ts';
import { ticker } from './helpers.ts';

const SYMS = ['cmt_aaausdt', 'cmt_bbbusdt'] as const;
const rules = {
  sizeStep: '0.01',
  priceTick: '0.1',
  minSize: '0.01',
  maxSize: '1000',
  makerFeeRate: '0',
  takerFeeRate: '0',
};
const table = new ContractTable(Object.fromEntries(SYMS.map((s) => [s, rules])));

function newestFirst(a: SimOrder, b: SimOrder): number {
  return (
    b.createTime - a.createTime ||
    b.orderId.length - a.orderId.length ||
    (b.orderId < a.orderId ? -1 : b.orderId > a.orderId ? 1 : 0)
  );
}

describe('MatchingCore.newestOrders', () => {
  it('gives the page a full sort would (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            dt: fc.integer({ min: 0, max: 3 }),
            sym: fc.constantFrom(...SYMS),
            rest: fc.boolean(),
          }),
          {
            maxLength: 60,
          },
        ),
        fc.option(fc.constantFrom(...SYMS), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
        fc.integer({ min: 1, max: 20 }),
        (placements, symbol, since, limit) => {
          const core = new MatchingCore({ contracts: table });
          let t = 1;
          core.applyTickers(
            t,
            SYMS.map((s) => ticker(s, '100', '100.2')),
          );
          placements.forEach((p, i) => {
            t += p.dt;
            core.place(t, p.sym, {
              clientOid: `o${i}`,
              side: 'open_long',
              orderType: 'normal',
              size: dec('0.01'),
              // A resting bid far below, or a market order that fills.
              ...(p.rest ? { price: dec('50') } : {}),
            });
          });
          const expected = core
            .orders()
            .filter(
              (o) =>
                (symbol === undefined || o.symbol === symbol) &&
                (since === undefined || o.createTime >= since),
            )
            .sort(newestFirst)
            .slice(0, limit);
          expect(core.newestOrders(symbol, since, limit)).toEqual(expected);
        },
      ),
    );
  });
});
