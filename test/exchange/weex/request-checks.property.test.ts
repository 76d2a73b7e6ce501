// Input checks reject what they must and accept what they must (before anything is sent).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BadInputError } from '../../../src/core/errors.ts';
import { clientOid, orderId, symbolId } from '../../../src/core/ids.ts';
import {
  checkBatch,
  checkCancel,
  checkClientOid,
  checkCreateDate,
  checkFillsQuery,
  checkHistoryQuery,
  checkPlaceEntry,
  checkPlanHistoryQuery,
  isPositiveDecimal,
} from '../../../src/exchange/weex/request-checks.ts';
import type { WirePlaceEntry } from '../../../src/exchange/weex/schemas.ts';

const NOW = 1_771_475_543_800;
const DAY = 86_400_000;
const OID_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';

const validOid = fc
  .array(fc.constantFrom(...OID_CHARS.split('')), { minLength: 1, maxLength: 40 })
  .map((c) => c.join(''));
const positiveDecimal = fc
  .tuple(fc.nat({ max: 1_000_000 }), fc.option(fc.stringMatching(/^\d{1,8}$/), { nil: undefined }))
  .map(([i, f]) => (f === undefined ? String(i) : `${i}.${f}`))
  .filter((s) => /[1-9]/.test(s));

const entry = (oid: string, size = '0.01'): WirePlaceEntry => ({
  client_oid: oid,
  size,
  type: '1',
  order_type: '0',
  match_price: '0',
  price: '90000.5',
});

const rejects = (f: () => void): void => {
  expect(f).toThrow(BadInputError);
};

describe('client_oid', () => {
  it('accepts 1-40 chars of [A-Za-z0-9_-]', () => {
    fc.assert(fc.property(validOid, (oid) => void checkClientOid(oid)));
  });
  it('rejects longer ids, empty ids and any other character', () => {
    fc.assert(
      fc.property(validOid, fc.string({ minLength: 1, maxLength: 3 }), fc.nat(), (oid, junk, at) => {
        const bad = junk.replace(/[A-Za-z0-9_-]/g, '');
        fc.pre(bad !== '');
        const i = at % (oid.length + 1);
        rejects(() => checkClientOid(oid.slice(0, i) + bad + oid.slice(i)));
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 41, max: 80 }), (n) => rejects(() => checkClientOid('a'.repeat(n)))),
    );
    rejects(() => checkClientOid(''));
  });
});

describe('sizes and prices', () => {
  it('accepts positive plain decimals', () => {
    fc.assert(
      fc.property(positiveDecimal, (d) => {
        expect(isPositiveDecimal(d)).toBe(true);
      }),
    );
  });
  it('rejects zero, negatives, exponents, blanks and junk', () => {
    for (const bad of ['0', '0.000', '-1', '1e-3', '', ' 1', '1.', '.5', '1,5', 'NaN', '+1', '0x10']) {
      expect(isPositiveDecimal(bad)).toBe(false);
      rejects(() => checkPlaceEntry(entry('a', bad)));
    }
  });
  it('a limit order needs a price; a market order does not', () => {
    rejects(() => checkPlaceEntry({ ...entry('a'), price: undefined, match_price: '0' }));
    const { price: _p, ...rest } = entry('a', '1');
    expect(() => checkPlaceEntry({ ...rest, match_price: '1' })).not.toThrow();
  });
});

describe('batches', () => {
  it('accept 1-20 entries with distinct client_oids', () => {
    fc.assert(
      fc.property(fc.uniqueArray(validOid, { minLength: 1, maxLength: 20 }), (oids) => {
        checkBatch(
          'cmt_btcusdt',
          oids.map((o) => entry(o)),
        );
      }),
    );
  });
  it('reject 0 or more than 20 entries, and duplicate client_oids', () => {
    rejects(() => checkBatch('cmt_btcusdt', []));
    fc.assert(
      fc.property(fc.integer({ min: 21, max: 60 }), (n) =>
        rejects(() =>
          checkBatch(
            'cmt_btcusdt',
            Array.from({ length: n }, (_, i) => entry(`o${i}`)),
          ),
        ),
      ),
    );
    rejects(() => checkBatch('cmt_btcusdt', [entry('same'), entry('same')]));
    rejects(() => checkBatch('', [entry('a')]));
  });
});

describe('cancel', () => {
  const symbol = symbolId('cmt_btcusdt');
  it('needs exactly one of orderId and clientOid', () => {
    expect(() => checkCancel({ symbol, orderId: orderId('719220560554361701') })).not.toThrow();
    expect(() => checkCancel({ symbol, clientOid: clientOid('abc_1') })).not.toThrow();
    rejects(() => checkCancel({ symbol }));
    rejects(() => checkCancel({ symbol, orderId: orderId('1'), clientOid: clientOid('a') }));
    rejects(() => checkCancel({ symbol, orderId: orderId('12ab') }));
  });
});

describe('fills limit', () => {
  it('accepts 1-100 and rejects everything else', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 100 }), (limit) => void checkFillsQuery({ limit })));
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 101 }), fc.double({ noInteger: true })),
        (limit) => rejects(() => checkFillsQuery({ limit })),
      ),
    );
  });
  it('rejects a window that ends before it starts', () => {
    rejects(() => checkFillsQuery({ startTime: 10, endTime: 9 }));
    expect(() => checkFillsQuery({ startTime: 9, endTime: 9 })).not.toThrow();
  });
});

describe('createDate', () => {
  it('accepts days 0-90', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 90 }), (d) => void checkCreateDate(d, NOW)));
  });
  it('accepts a 13-digit ms within 90 days of now', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -90 * DAY, max: 90 * DAY }),
        (off) => void checkCreateDate(NOW + off, NOW),
      ),
    );
  });
  it('rejects negatives, 91..(non-13-digit) values and ms further than 90 days away', () => {
    fc.assert(fc.property(fc.integer({ max: -1 }), (v) => rejects(() => checkCreateDate(v, NOW))));
    fc.assert(
      fc.property(fc.integer({ min: 91, max: 999_999_999_999 }), (v) =>
        rejects(() => checkCreateDate(v, NOW)),
      ),
    );
    fc.assert(
      fc.property(fc.integer({ min: 90 * DAY + 1, max: 400 * DAY }), fc.boolean(), (off, past) =>
        rejects(() => checkCreateDate(past ? NOW - off : NOW + off, NOW)),
      ),
    );
    rejects(() => checkHistoryQuery({ createDate: 1.5 }, NOW));
  });
});

describe('plan history', () => {
  it('checks symbol, window, delegateType and pageSize', () => {
    const symbol = symbolId('cmt_btcusdt');
    expect(() =>
      checkPlanHistoryQuery({ symbol, startTime: 1, endTime: 2, delegateType: 4, pageSize: 100 }),
    ).not.toThrow();
    rejects(() => checkPlanHistoryQuery({ symbol, startTime: 3, endTime: 2 }));
    rejects(() => checkPlanHistoryQuery({ symbol, startTime: 1, endTime: 2, pageSize: 101 }));
    rejects(() => checkPlanHistoryQuery({ symbol, startTime: 1, endTime: 2, delegateType: 5 as 4 }));
    rejects(() => checkPlanHistoryQuery({ symbol: symbolId('bad symbol'), startTime: 1, endTime: 2 }));
  });
});
