// Lossless id round trip: 18-19 digit ids sent as JSON numbers come out as the exact digit strings.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLosslessJson } from '../../../src/exchange/weex/lossless-json.ts';
import { fillsReplySchema, historySchema } from '../../../src/exchange/weex/schemas.ts';

const bigId = fc
  .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 17, max: 18 }))
  .chain(([lead, rest]) =>
    fc
      .array(fc.integer({ min: 0, max: 9 }), { minLength: rest, maxLength: rest })
      .map((d) => `${lead}${d.join('')}`),
  );

function fillText(tradeId: string, orderId: string): string {
  return (
    `{"list":[{"tradeId":${tradeId},"orderId":${orderId},"symbol":"cmt_btcusdt","positionSide":"LONG",` +
    `"orderSide":"BUY","fillSize":"0.01","fillValue":"900","fillFee":"0.5","realizePnl":"0",` +
    `"direction":"OPEN_LONG","createdTime":1771475543911}],"nextFlag":false,"totals":1}`
  );
}

describe('lossless JSON (property)', () => {
  it('fill ids as JSON numbers keep every digit', () => {
    fc.assert(
      fc.property(bigId, bigId, (t, o) => {
        const page = fillsReplySchema.parse(parseLosslessJson(fillText(t, o)));
        expect(page.list[0]?.tradeId).toBe(t);
        expect(page.list[0]?.orderId).toBe(o);
      }),
      { numRuns: 500 },
    );
  });

  it('history order_id as a JSON number keeps every digit; as a string it is unchanged', () => {
    fc.assert(
      fc.property(bigId, fc.boolean(), (id, quoted) => {
        const v = quoted ? `"${id}"` : id;
        const text =
          `[{"symbol":"cmt_btcusdt","size":"1","createTime":1,"filled_qty":"0","fee":"0","order_id":${v},` +
          `"price":"1","price_avg":"0","status":"open","type":"open_long","order_type":"normal","totalProfits":"0"}]`;
        expect(historySchema.parse(parseLosslessJson(text))[0]?.order_id).toBe(id);
      }),
    );
  });

  it('documents without unsafe integers parse exactly as JSON.parse does', () => {
    const hasUnsafeInteger = (v: unknown): boolean =>
      typeof v === 'number'
        ? Number.isInteger(v) && !Number.isSafeInteger(v)
        : typeof v === 'object' && v !== null && Object.values(v).some(hasUnsafeInteger);
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }).filter((v) => !hasUnsafeInteger(v)),
        (v) => {
          const text = JSON.stringify(v);
          expect(parseLosslessJson(text)).toEqual(JSON.parse(text));
        },
      ),
    );
  });

  it('any integer beyond 2^53 becomes its exact digit string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 53n + 1n, max: 10n ** 30n }), fc.boolean(), (n, negative) => {
        const text = `${negative ? '-' : ''}${n.toString()}`;
        expect(parseLosslessJson(`{"id":${text}}`)).toEqual({ id: text });
      }),
    );
  });
});
