// Plan-order parsing: the fixtures (documented codes and live words), both status vocabularies and
// both type vocabularies (property-tested), triggerPriceType and triggerTime variants, the reply
// shapes of plan_order, cancel_plan and currentPlan, and the plan body the client sends.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { clientOid } from '../../../src/core/ids.ts';
import {
  currentPlanPageFromWire,
  planEntryToWire,
  planReportFromWire,
  planSideFromWire,
  planStatusFromWire,
} from '../../../src/exchange/weex/mappers.ts';
import {
  cancelPlanReplySchema,
  currentPlanReplySchema,
  planHistoryReplySchema,
  planOrderBodySchema,
  planOrderReplySchema,
  planRowSchema,
} from '../../../src/exchange/weex/schemas.ts';

const FIX = join(import.meta.dirname, '../../fixtures/weex-docs');
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(FIX, name), 'utf8'));

const STATUS_CASES: readonly (readonly [string, string])[] = [
  ['-1', 'canceled'],
  ['0', 'untriggered'],
  ['1', 'partially_filled'],
  ['2', 'filled'],
  ['CANCELED', 'canceled'],
  ['CANCELLED', 'canceled'],
  ['UNTRIGGERED', 'untriggered'],
  ['NOT_TRIGGER', 'untriggered'],
  ['PARTIALLY_FILLED', 'partially_filled'],
  ['FILLED', 'filled'],
  ['TRIGGERED', 'triggered'],
];

const SIDE_CASES: readonly (readonly [string, string | undefined])[] = [
  ['1', 'open_long'],
  ['2', 'open_short'],
  ['3', 'close_long'],
  ['4', 'close_short'],
  ['OPEN_LONG', 'open_long'],
  ['OPEN_SHORT', 'open_short'],
  ['CLOSE_LONG', 'close_long'],
  ['CLOSE_SHORT', 'close_short'],
  ...['5', '6', '7', '8', '9', '10'].map((c) => [c, undefined] as const),
];

/** A plan row in wire shape, as the fixtures. */
const row = (over: Record<string, unknown> = {}) => ({
  symbol: 'cmt_btcusdt',
  size: '1',
  client_oid: 'x1',
  createTime: '1742213506548',
  filled_qty: '0.5',
  fee: '0.01',
  order_id: '461234125',
  price: '50000.00',
  price_avg: '49900.00',
  status: '1',
  type: '1',
  order_type: '0',
  totalProfits: '200.00',
  triggerPrice: '48000.00',
  triggerPriceType: '',
  triggerTime: '1742213506548',
  presetTakeProfitPrice: null,
  presetStopLossPrice: null,
  ...over,
});

/** Randomly upper/lower-cases each letter. */
const anyCase = (s: string) =>
  fc
    .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
    .map((flags) => [...s].map((ch, i) => (flags[i] ? ch.toLowerCase() : ch.toUpperCase())).join(''));

describe('plan-order parsers', () => {
  it('parses the documented fixtures: currentPlan (bare array, "LIMIT") and historyPlan ({list,nextPage})', () => {
    const cur = currentPlanReplySchema.parse(fixture('currentPlan.json'));
    const page = currentPlanPageFromWire(cur, undefined);
    expect(page.nextPage).toBe(false);
    expect(page.plans[0]).toMatchObject({
      orderId: '461234125',
      clientOid: '1234567890',
      status: 'partially_filled',
      rawStatus: '1',
      side: 'open_long',
      triggerPriceType: 'LIMIT',
      triggerTime: 1742213506548,
    });
    expect(page.plans[0]?.filledQty.toFixed()).toBe('0.5');
    expect(page.plans[0]?.priceAvg.toFixed()).toBe('49900');
    expect(page.plans[0]?.fee.toFixed()).toBe('0.01');

    const hist = planHistoryReplySchema.parse(fixture('historyPlan.json'));
    const r = planReportFromWire(hist.list[0] as never);
    expect(r.triggerPriceType).toBeUndefined(); // "" is absent
    expect(r.side).toBe('open_long');
  });

  it('parses the live word vocabulary (UNTRIGGERED, CLOSE_LONG, numeric createTime, triggerTime "")', () => {
    const hist = planHistoryReplySchema.parse(fixture('historyPlan.word-status.json'));
    const r = planReportFromWire(hist.list[0] as never);
    expect(r).toMatchObject({
      status: 'untriggered',
      rawStatus: 'UNTRIGGERED',
      type: 'CLOSE_LONG',
      side: 'close_long',
    });
    expect(r.clientOid).toBeUndefined();
    expect(r.triggerTime).toBeUndefined();
    expect(r.triggerPriceType).toBe('CONTRACT_PRICE');
  });

  it('maps both status vocabularies, in any letter case; anything else is unknown (property)', () => {
    for (const [wire, status] of STATUS_CASES) expect(planStatusFromWire(wire)).toBe(status);
    fc.assert(
      fc.property(
        fc.constantFrom(...STATUS_CASES).chain(([w, s]) => anyCase(w).map((c) => [c, s] as const)),
        ([wire, status]) => {
          const r = planReportFromWire(planRowSchema.parse(row({ status: wire })));
          expect(r.status).toBe(status);
          expect(r.rawStatus).toBe(wire);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1, maxLength: 12 })
          .filter((s) => !STATUS_CASES.some(([w]) => w === s.toUpperCase())),
        (s) => {
          expect(planStatusFromWire(s)).toBe('unknown');
        },
      ),
    );
  });

  it('numeric status codes sent as JSON numbers parse as their strings (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(-1, 0, 1, 2), (n) => {
        const r = planReportFromWire(planRowSchema.parse(row({ status: n, type: 3 })));
        expect(r.rawStatus).toBe(String(n));
        expect(r.side).toBe('close_long');
      }),
    );
  });

  it('maps type codes 1..4 and the four words to a side, 5..10 and other words to none (property)', () => {
    for (const [wire, side] of SIDE_CASES) expect(planSideFromWire(wire)).toBe(side);
    fc.assert(
      fc.property(
        fc
          .constantFrom(...SIDE_CASES.filter(([w]) => /[A-Z]/.test(w)))
          .chain(([w, s]) => anyCase(w).map((c) => [c, s] as const)),
        ([wire, side]) => {
          expect(planSideFromWire(wire)).toBe(side);
        },
      ),
    );
    expect(planSideFromWire('BURST_LIQUIDATE_LONG')).toBeUndefined();
  });

  it('tolerates every triggerPriceType and triggerTime variant; omitted child figures are 0', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constant(''), fc.constant(null), fc.constant('LIMIT'), fc.string({ maxLength: 20 })),
        fc.oneof(
          fc.constant(''),
          fc.constant(null),
          fc.constant(0),
          fc.integer({ min: 1, max: 4e12 }),
          fc.constant(undefined),
        ),
        (tpt, tt) => {
          const w = row({
            triggerPriceType: tpt,
            ...(tt === undefined ? { triggerTime: undefined } : { triggerTime: tt }),
          });
          const r = planReportFromWire(planRowSchema.parse(w));
          expect(r.triggerPriceType).toBe(tpt === null || tpt === '' ? undefined : tpt);
          expect(r.triggerTime).toBe(typeof tt === 'number' && tt > 0 ? tt : undefined);
        },
      ),
    );
    const { filled_qty: _a, fee: _b, price_avg: _c, ...bare } = row();
    const r = planReportFromWire(planRowSchema.parse(bare));
    expect([r.filledQty.toFixed(), r.priceAvg.toFixed(), r.fee.toFixed()]).toEqual(['0', '0', '0']);
  });

  it('reply shapes: plan_order like placeOrder, cancel_plan like cancel_order, currentPlan three ways', () => {
    expect(
      planOrderReplySchema.parse({ client_oid: null, order_id: 719220560554361701n.toString() }),
    ).toEqual({
      client_oid: null,
      order_id: '719220560554361701',
    });
    expect(
      cancelPlanReplySchema.parse({ order_id: '5', client_oid: null, result: true, err_msg: null }),
    ).toMatchObject({
      result: true,
    });
    const list = [row()];
    expect(currentPlanReplySchema.parse(list).list).toHaveLength(1);
    expect(currentPlanReplySchema.parse({ list, nextPage: true }).nextPage).toBe(true);
    expect(currentPlanReplySchema.parse({ data: list }).list).toHaveLength(1);
    // A full page says a next page may exist.
    expect(currentPlanPageFromWire({ list: planRowSchema.array().parse([row(), row()]) }, 2).nextPage).toBe(
      true,
    );
    expect(currentPlanPageFromWire({ list: planRowSchema.array().parse([row()]) }, 2).nextPage).toBe(false);
  });

  it('the plan body: market sends match_type "1" with execute_price "0"; limit its price; it parses back', () => {
    const market = planEntryToWire('cmt_btcusdt', {
      clientOid: clientOid('m1'),
      side: 'close_short',
      size: dec('0.0100'),
      triggerPrice: dec('95000.5'),
    });
    expect(market).toEqual({
      symbol: 'cmt_btcusdt',
      client_oid: 'm1',
      size: '0.01',
      type: '4',
      match_type: '1',
      execute_price: '0',
      trigger_price: '95000.5',
    });
    const limit = planEntryToWire('cmt_btcusdt', {
      clientOid: clientOid('l1'),
      side: 'open_long',
      size: dec('1'),
      triggerPrice: dec('10'),
      executePrice: dec('9.5'),
    });
    expect([limit.match_type, limit.execute_price]).toEqual(['0', '9.5']);
    expect(planOrderBodySchema.parse(limit)).toEqual(limit);
  });
});
