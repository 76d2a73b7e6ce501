// A strategy's copy of a fill is built as a literal (src/engine/strategy-fill.ts). Property: for every
// shape a fill reaches the engine in (a decoded report, a stored fill with or without its client_oid,
// a fill read back from SQLite), the copy is the spread `{ ...fill, strategy, clientOid, side, price }`
// it replaces: the same values, the same keys in the same order, frozen.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, type Dec } from '../../src/core/decimal.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../../src/core/ids.ts';
import type { Order } from '../../src/core/orders.ts';
import type { FillReport } from '../../src/core/reports.ts';
import { strategyFill } from '../../src/engine/strategy-fill.ts';
import { fillFromRow, fillToRow } from '../../src/store/rows.ts';
import { storedFill } from '../../src/store/stored-fill.ts';
import type { StoredFill } from '../../src/store/port.ts';

const decimal = fc
  .tuple(fc.integer({ min: 0, max: 999_999_999 }), fc.integer({ min: 0, max: 8 }))
  .map(([m, k]): Dec => dec(m).div(dec(10).pow(k)));

const report: fc.Arbitrary<FillReport> = fc
  .record({
    tradeId: fc.stringMatching(/^\d{1,19}$/),
    orderId: fc.stringMatching(/^\d{1,19}$/),
    size: decimal,
    value: decimal,
    fee: decimal,
    realizedPnl: decimal,
    createdTime: fc.integer({ min: 0, max: 4_000_000_000_000 }),
  })
  .map((r) => ({
    tradeId: tradeId(r.tradeId),
    orderId: orderId(r.orderId),
    symbol: symbolId('cmt_btcusdt'),
    positionSide: 'LONG',
    orderSide: 'BUY',
    direction: 'OPEN_LONG',
    size: r.size,
    value: r.value,
    fee: r.fee,
    realizedPnl: r.realizedPnl,
    createdTime: r.createdTime,
  }));

/** Every shape a fill reaches `takeFill` in. */
const shaped: fc.Arbitrary<FillReport | StoredFill> = fc
  .tuple(report, fc.constantFrom('report', 'stored', 'stored-oid', 'row', 'row-oid'))
  .map(([f, shape]) => {
    const oid = clientOid('cb-1');
    switch (shape) {
      case 'report':
        return f;
      case 'stored':
        return storedFill(f, undefined);
      case 'stored-oid':
        return storedFill(f, oid);
      case 'row':
        return fillFromRow(fillToRow(storedFill(f, undefined)));
      case 'row-oid':
        return fillFromRow(fillToRow(storedFill(f, oid)));
    }
  });

const order = {
  clientOid: clientOid('cb-1'),
  strategy: strategyId('ema'),
  side: 'open_long',
} as unknown as Order;

describe('strategyFill', () => {
  it('is the spread it replaces: values, key order, frozen', () => {
    fc.assert(
      fc.property(shaped, (fill) => {
        const spread = {
          ...fill,
          strategy: order.strategy,
          clientOid: order.clientOid,
          side: order.side,
          price: fill.size.gt(0) ? fill.value.div(fill.size) : fill.value,
        };
        const built = strategyFill(fill, order);
        expect(built).toEqual(spread);
        expect(Object.keys(built)).toEqual(Object.keys(spread));
        expect(Object.isFrozen(built)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
