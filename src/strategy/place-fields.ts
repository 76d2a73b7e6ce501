// The fields of a `place` intent checked by hand: what `placeSchema` (intent-schema.ts) gives for the
// common input, a plain object, without zod. `ctx.place` builds one intent per order and zod's object
// parse with its decimal transforms cost about 25 µs of each (a tenth of what an order cost a
// backtest); this check costs about 1 µs. It is an optimisation, never a second grammar: anything it
// does not settle (another kind of value, an invalid field) returns undefined and goes through zod,
// which also writes the error message. test/strategy/place-fields.test.ts checks that the two agree.
import type { Dec } from '../core/decimal.ts';
import { ORDER_SIDES, ORDER_TYPES, type OrderSide, type OrderType } from '../core/orders.ts';
import { toDec } from './dec-like.ts';

/** Longest tag a place intent may carry. */
export const MAX_TAG = 32;

/** A place intent's fields as `placeSchema` gives them (an absent optional field is undefined). */
export interface PlaceFields {
  readonly kind: 'place';
  readonly symbol: string;
  readonly side: OrderSide;
  readonly size: Dec;
  readonly price?: Dec | undefined;
  readonly orderType: OrderType;
  readonly tag?: string | undefined;
  readonly triggerPrice?: Dec | undefined;
  readonly stopLoss?: Dec | undefined;
  readonly takeProfit?: Dec | undefined;
}

const SIDES: ReadonlySet<unknown> = new Set(ORDER_SIDES);
const TYPES: ReadonlySet<unknown> = new Set(ORDER_TYPES);

/** Returned by `positive` for a value zod would refuse. */
const INVALID = Symbol('invalid');

/** The positive Dec of `v` (undefined stays undefined), or INVALID. */
function positive(v: unknown): Dec | undefined | typeof INVALID {
  if (v === undefined) return undefined;
  const d = toDec(v);
  return d === undefined || d.lte(0) ? INVALID : d;
}

/**
 * The fields of `raw` when it is a plain object holding a valid place intent; undefined for anything
 * else (the caller then parses it with zod). Each field is read once.
 */
export function placeFieldsOf(raw: unknown): PlaceFields | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const proto: unknown = Object.getPrototypeOf(raw);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const r = raw as Record<string, unknown>;
  if (r['kind'] !== 'place') return undefined;
  const symbol = r['symbol'];
  if (typeof symbol !== 'string' || symbol.length === 0) return undefined;
  const side = r['side'];
  if (!SIDES.has(side)) return undefined;
  const size = positive(r['size']);
  if (size === undefined || size === INVALID) return undefined;
  const price = positive(r['price']);
  if (price === INVALID) return undefined;
  const given = r['orderType'];
  const type = given === undefined ? 'normal' : given;
  if (!TYPES.has(type)) return undefined;
  const tag = r['tag'];
  // Counted in UTF-16 units, zod in code points: a tag of astral characters over 32 units but not
  // over 32 code points goes to zod, which takes it (a lost shortcut, never another answer).
  if (tag !== undefined && (typeof tag !== 'string' || tag.length > MAX_TAG)) return undefined;
  const triggerPrice = positive(r['triggerPrice']);
  if (triggerPrice === INVALID) return undefined;
  const stopLoss = positive(r['stopLoss']);
  if (stopLoss === INVALID) return undefined;
  const takeProfit = positive(r['takeProfit']);
  if (takeProfit === INVALID) return undefined;
  return {
    kind: 'place',
    symbol,
    side: side as OrderSide,
    size,
    price,
    orderType: type as OrderType,
    tag,
    triggerPrice,
    stopLoss,
    takeProfit,
  };
}
