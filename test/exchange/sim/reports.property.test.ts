// The in-process port maps the simulator's records to core reports directly (src/exchange/sim/reports.ts).
// Property: for any order revision, fill or plan revision (in both plan row styles), that report equals what the HTTP client makes of the same
// record sent over the wire — the server's wire row, its JSON text (ids as number literals), the
// client's lossless parse, the reply schema and the mapper — value for value, and with the same
// representation of every decimal (so reports, stores and CSVs cannot tell the two ports apart).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, type Dec } from '../../../src/core/decimal.ts';
import type { FillReport, OrderReport, PlanReport } from '../../../src/core/reports.ts';
import { ContractTable } from '../../../src/exchange/sim/contracts.ts';
import { toJsonText } from '../../../src/exchange/sim/json-text.ts';
import type { SimFill, SimOrder, SimPlan } from '../../../src/exchange/sim/model.ts';
import { planRowToWire } from '../../../src/exchange/sim/plan-wire.ts';
import { fillReportOf, orderReportOf, planReportOf } from '../../../src/exchange/sim/reports.ts';
import { fillToWire, historyRowToWire } from '../../../src/exchange/sim/wire.ts';
import { parseLosslessJson } from '../../../src/exchange/weex/lossless-json.ts';
import { fillFromWire, orderReportFromWire, planReportFromWire } from '../../../src/exchange/weex/mappers.ts';
import {
  fillsReplySchema,
  historySchema,
  planHistoryReplySchema,
} from '../../../src/exchange/weex/schemas.ts';

const contracts = new ContractTable();
const symbols = contracts.namedSymbols();
const sides = ['open_long', 'open_short', 'close_long', 'close_short'] as const;

/** A decimal of up to 12 significant digits with 0–10 places (sign optional); sizes stay below 10^9
 *  (a history row also counts them in 10^-6 units, a JSON number). */
const decimal = (signed: boolean, most = 999_999_999_999): fc.Arbitrary<Dec> =>
  fc
    .tuple(fc.integer({ min: signed ? -most : 0, max: most }), fc.integer({ min: 0, max: 10 }))
    .map(([m, k]) => dec(m).div(dec(10).pow(k)));
const positive = decimal(false).filter((d) => d.gt(0));
const quantity = decimal(false, 999_999_999);
const id = fc.bigInt({ min: 1n, max: 10n ** 19n }).map(String);
const oid = fc.oneof(fc.constant(''), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/));

const order: fc.Arbitrary<SimOrder> = fc
  .record({
    orderId: id,
    clientOid: oid,
    symbol: fc.constantFrom(...symbols),
    side: fc.constantFrom(...sides),
    orderType: fc.constantFrom('normal', 'postOnly', 'fok', 'ioc'),
    price: fc.option(positive, { nil: undefined }),
    size: quantity.filter((d) => d.gt(0)),
    filledQty: quantity,
    filledValue: decimal(false),
    fee: decimal(false),
    totalProfits: decimal(true),
    status: fc.constantFrom('pending', 'open', 'filled', 'canceling', 'canceled'),
    marginMode: fc.constantFrom('SHARED', 'ISOLATED'),
    presetTakeProfitPrice: fc.option(positive, { nil: undefined }),
    presetStopLossPrice: fc.option(positive, { nil: undefined }),
    createTime: fc.integer({ min: 0, max: 4_000_000_000_000 }),
  })
  .map((r): SimOrder => ({
    orderId: r.orderId,
    clientOid: r.clientOid,
    symbol: r.symbol,
    side: r.side,
    orderType: r.orderType,
    isMarket: r.price === undefined,
    ...(r.price !== undefined ? { price: r.price } : {}),
    size: r.size,
    filledQty: r.filledQty,
    filledValue: r.filledValue,
    fee: r.fee,
    totalProfits: r.totalProfits,
    status: r.status,
    marginMode: r.marginMode,
    ...(r.presetTakeProfitPrice !== undefined ? { presetTakeProfitPrice: r.presetTakeProfitPrice } : {}),
    ...(r.presetStopLossPrice !== undefined ? { presetStopLossPrice: r.presetStopLossPrice } : {}),
    createTime: r.createTime,
    updateTime: r.createTime,
    aggressive: false,
    activateAt: r.createTime,
  }));

const fill: fc.Arbitrary<SimFill> = fc.record({
  tradeId: id,
  orderId: id,
  clientOid: oid,
  symbol: fc.constantFrom(...symbols),
  side: fc.constantFrom(...sides),
  marginMode: fc.constantFrom('SHARED', 'ISOLATED'),
  liquidity: fc.constantFrom('MAKER', 'TAKER'),
  size: positive,
  price: positive,
  value: decimal(false),
  fee: decimal(false),
  feeRate: decimal(false),
  realizedPnl: decimal(true),
  createdTime: fc.integer({ min: 0, max: 4_000_000_000_000 }),
});

/** A plan revision in any state: untriggered, or triggered with a child in any state, or ended. */
const plan: fc.Arbitrary<SimPlan> = fc
  .record({
    orderId: id,
    clientOid: fc.option(oid, { nil: undefined }),
    symbol: fc.constantFrom(...symbols),
    side: fc.constantFrom(...sides),
    size: quantity.filter((d) => d.gt(0)),
    triggerPrice: positive,
    executePrice: fc.option(positive, { nil: undefined }),
    triggerSource: fc.constantFrom('last', 'mark'),
    status: fc.constantFrom('untriggered', 'triggered', 'canceled', 'expired', 'failed'),
    createTime: fc.integer({ min: 0, max: 4_000_000_000_000 }),
    triggerTime: fc.option(fc.integer({ min: 0, max: 4_000_000_000_000 }), { nil: undefined }),
    child: fc.option(
      fc.record({
        orderId: id,
        status: fc.constantFrom('pending', 'open', 'filled', 'canceling', 'canceled'),
        filledQty: quantity,
        filledValue: decimal(false),
        fee: decimal(false),
        totalProfits: decimal(true),
      }),
      { nil: undefined },
    ),
    // A child filled to the plan's size (a "filled" row) needs its size drawn from the same value.
    childFillsAll: fc.boolean(),
  })
  .map((r): SimPlan => {
    const child = r.child !== undefined && r.childFillsAll ? { ...r.child, filledQty: r.size } : r.child;
    return {
      orderId: r.orderId,
      ...(r.clientOid !== undefined ? { clientOid: r.clientOid } : {}),
      symbol: r.symbol,
      side: r.side,
      size: r.size,
      triggerPrice: r.triggerPrice,
      ...(r.executePrice !== undefined ? { executePrice: r.executePrice } : {}),
      triggerSource: r.triggerSource,
      marginMode: 'SHARED',
      origin: 'plan',
      status: r.status,
      createTime: r.createTime,
      updateTime: r.createTime,
      ...(r.triggerTime !== undefined ? { triggerTime: r.triggerTime } : {}),
      ...(child !== undefined ? { child } : {}),
    };
  });

/** What travels over HTTP: the server's JSON text, read back by the client's lossless parser. */
const overTheWire = (body: unknown): unknown => parseLosslessJson(toJsonText(body));

/** Every decimal as its exact text and its representation (canonical coefficient and places). */
function shape(r: OrderReport | FillReport | PlanReport): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(r).map(([k, v]) => [
      k,
      typeof v === 'object' && v !== null && 'toFixed' in v
        ? {
            text: (v as Dec).toFixed(),
            rep: JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)),
          }
        : v,
    ]),
  );
}

describe('simulator records → core reports, as the HTTP client decodes them', () => {
  it('an order revision: the history row', () => {
    fc.assert(
      fc.property(order, (o) => {
        const decoded = historySchema
          .parse(overTheWire([historyRowToWire(o, contracts)]))
          .map(orderReportFromWire)[0];
        const direct = orderReportOf(o, contracts);
        expect(direct).toEqual(decoded);
        expect(Object.keys(direct)).toEqual(Object.keys(decoded ?? {}));
        expect(shape(direct)).toEqual(shape(decoded as OrderReport));
      }),
      { numRuns: 500 },
    );
  });

  it('a fill: the fills row, ids sent as number literals', () => {
    fc.assert(
      fc.property(fill, (f) => {
        const page = fillsReplySchema.parse(
          overTheWire({ list: [fillToWire(f, true)], nextFlag: false, totals: 1 }),
        );
        const decoded = page.list.map(fillFromWire)[0];
        const direct = fillReportOf(f);
        expect(direct).toEqual(decoded);
        expect(Object.keys(direct)).toEqual(Object.keys(decoded ?? {}));
        expect(shape(direct)).toEqual(shape(decoded as FillReport));
      }),
      { numRuns: 500 },
    );
  });

  for (const style of ['documented', 'live'] as const) {
    it(`a plan revision: the ${style} plan row`, () => {
      fc.assert(
        fc.property(plan, (p) => {
          const page = planHistoryReplySchema.parse(
            overTheWire({ list: [planRowToWire(p, contracts, style)], nextPage: false }),
          );
          const decoded = page.list.map(planReportFromWire)[0];
          const direct = planReportOf(p, contracts, style);
          expect(direct).toEqual(decoded);
          expect(Object.keys(direct)).toEqual(Object.keys(decoded ?? {}));
          expect(shape(direct)).toEqual(shape(decoded as PlanReport));
        }),
        { numRuns: 500 },
      );
    });
  }
});
