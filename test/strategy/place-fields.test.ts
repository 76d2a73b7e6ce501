// The hand-written check of a place intent (src/strategy/place-fields.ts) against the zod schema it
// stands in for: on any input, it gives zod's fields or steps aside (undefined), and it steps aside
// for no valid plain object, so `ctx.place` takes the same intents, with the same values, as before.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, isDec } from '../../src/core/decimal.ts';
import { ORDER_SIDES, ORDER_TYPES } from '../../src/core/orders.ts';
import { placeSchema, validateIntent } from '../../src/strategy/intent-schema.ts';
import { placeFieldsOf } from '../../src/strategy/place-fields.ts';
import { BTC } from '../helpers/market.ts';
import { TEST_STRATEGY } from '../helpers/strategy-context.ts';

/** Fields comparable with toEqual: Decs as their text, undefined fields left out. */
function plain(fields: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields))
    if (v !== undefined) out[k] = isDec(v) ? `dec ${v.toFixed()}` : v;
  return out;
}

const validDecimal = fc.oneof(
  fc.constantFrom('0.01', '1', '64000.5', ' 2.5 ', '1e3', '.5', '5.'),
  fc.integer({ min: 1, max: 100_000 }).map((n) => dec(String(n))),
);
/** Values a field may be given instead: invalid ones, and ones of the wrong kind. */
const otherValue = fc.oneof(
  fc.constantFrom('0', '-1', '1e9999', 'abc', '', 'gtc', 'buy', 'place', 'x'.repeat(33), 'x'.repeat(32)),
  fc.integer({ min: -5, max: 5 }).map((n) => dec(String(n))),
  fc.double(),
  fc.constantFrom(null, true, {}, [], undefined),
  fc.string({ maxLength: 40 }),
);
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arb, { nil: undefined, freq: 3 });
const FIELDS = [
  'kind',
  'symbol',
  'side',
  'size',
  'price',
  'orderType',
  'tag',
  'triggerPrice',
  'stopLoss',
  'takeProfit',
] as const;

/** A valid place intent, then none, one or two of its fields given another value or left out. */
const placeInput = fc
  .tuple(
    fc.record(
      {
        kind: fc.constant('place'),
        symbol: fc.constantFrom(BTC, 'cmt_ethusdt', 'x'),
        side: fc.constantFrom(...ORDER_SIDES),
        size: validDecimal,
        price: maybe(validDecimal),
        orderType: maybe(fc.constantFrom(...ORDER_TYPES)),
        tag: maybe(fc.string({ maxLength: 32 })),
        triggerPrice: maybe(validDecimal),
        stopLoss: maybe(validDecimal),
        takeProfit: maybe(validDecimal),
        extra: fc.anything(),
      },
      { requiredKeys: ['kind', 'symbol', 'side', 'size'] },
    ),
    fc.array(fc.tuple(fc.constantFrom(...FIELDS), fc.option(otherValue, { nil: 'delete' })), {
      maxLength: 2,
    }),
  )
  .map(([base, edits]) => {
    const raw: Record<string, unknown> = { ...base };
    for (const [field, value] of edits)
      if (value === 'delete') delete raw[field];
      else raw[field] = value;
    return raw;
  });

describe('placeFieldsOf', () => {
  it('gives exactly what the zod schema gives, and steps aside for no valid plain object (property)', () => {
    const seen = { valid: 0, invalid: 0 };
    fc.assert(
      fc.property(placeInput, (raw) => {
        const fast = placeFieldsOf(raw);
        const slow = placeSchema.safeParse(raw);
        seen[slow.success ? 'valid' : 'invalid']++;
        if (fast !== undefined) {
          expect(slow.success).toBe(true);
          if (slow.success) expect(plain(fast)).toEqual(plain(slow.data));
        } else {
          expect(slow.success).toBe(false);
        }
      }),
      { numRuns: 3000 },
    );
    // Both sides of the check are exercised, not one.
    expect(seen.valid).toBeGreaterThan(600);
    expect(seen.invalid).toBeGreaterThan(600);
  });

  it('steps aside for what is not a plain object; zod then decides', () => {
    class Intent {
      kind = 'place';
      symbol = BTC;
      side = 'open_long';
      size = '1';
    }
    const made = new Intent();
    expect(placeFieldsOf(made)).toBeUndefined();
    expect(placeSchema.safeParse(made).success).toBe(true);
    const bare = Object.assign(Object.create(null) as object, {
      kind: 'place',
      symbol: BTC,
      side: 'open_long',
      size: '1',
    });
    expect(placeFieldsOf(bare)?.size.toFixed()).toBe('1');
    for (const v of [null, undefined, 'place', 7, [{ kind: 'place' }]])
      expect(placeFieldsOf(v)).toBeUndefined();
  });

  it('leaves the error messages to zod', () => {
    const rules = { strategy: TEST_STRATEGY, symbols: new Set([BTC]) };
    expect(() => validateIntent({ kind: 'place', symbol: BTC, side: 'open_long', size: '0' }, rules)).toThrow(
      /size: must be positive, got 0/,
    );
    expect(() =>
      validateIntent({ kind: 'place', symbol: BTC, side: 'open_long', size: '1', orderType: null }, rules),
    ).toThrow(/orderType/);
  });
});
