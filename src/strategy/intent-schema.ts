// Validation of what a strategy emits. Strategy output is untrusted: it is parsed with zod into a
// fresh, frozen Intent of our own types. Anything invalid throws a StrategyError naming the problem;
// the host turns that into a StrategyDisabled event for that strategy alone.
import { z } from 'zod';
import type { Dec } from '../core/decimal.ts';
import { isMultipleOf } from '../core/decimal.ts';
import { StrategyError } from '../core/errors.ts';
import {
  CLIENT_OID_PATTERN,
  clientOid,
  orderId,
  symbolId,
  type StrategyId,
  type SymbolId,
} from '../core/ids.ts';
import type { AttachedPlans, Intent } from '../core/intents.ts';
import type { ContractSpec } from '../core/market.ts';
import { ORDER_SIDES, ORDER_TYPES } from '../core/orders.ts';
import { toDec } from './dec-like.ts';
import { MAX_TAG, placeFieldsOf } from './place-fields.ts';

const positiveDec = z.unknown().transform((v, ctx): Dec => {
  const d = toDec(v);
  if (d === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be a Dec or a decimal string' });
    return z.NEVER;
  }
  if (d.lte(0)) {
    ctx.addIssue({ code: 'custom', message: `must be positive, got ${d.toFixed()}` });
    return z.NEVER;
  }
  return d;
});

const symbolText = z.string().min(1);

/** A place intent's fields (place-fields.ts checks the common input the same way, without zod). */
export const placeSchema = z.object({
  kind: z.literal('place'),
  symbol: symbolText,
  side: z.enum(ORDER_SIDES),
  size: positiveDec,
  price: positiveDec.optional(),
  orderType: z.enum(ORDER_TYPES).default('normal'),
  tag: z.string().max(MAX_TAG).optional(),
  triggerPrice: positiveDec.optional(),
  stopLoss: positiveDec.optional(),
  takeProfit: positiveDec.optional(),
});

const cancelSchema = z
  .object({
    kind: z.literal('cancel'),
    symbol: symbolText,
    clientOid: z.string().regex(CLIENT_OID_PATTERN).optional(),
    orderId: z.string().min(1).max(40).optional(),
  })
  .refine((c) => c.clientOid !== undefined || c.orderId !== undefined, {
    message: 'a cancel needs a clientOid or an orderId',
  });

const cancelAllSchema = z.object({ kind: z.literal('cancelAll'), symbol: symbolText.optional() });

const intentSchema = z.discriminatedUnion('kind', [placeSchema, cancelSchema, cancelAllSchema]);

export interface IntentRules {
  readonly strategy: StrategyId;
  readonly symbols: ReadonlySet<SymbolId>;
  /** When a spec is known, sizes and prices must sit on its step/tick and within its size limits. */
  readonly specs?: ReadonlyMap<SymbolId, ContractSpec>;
}

function fail(rules: IntentRules, message: string): never {
  throw new StrategyError(`invalid intent: ${message}`, rules.strategy);
}

function checkSymbol(rules: IntentRules, symbol: string): SymbolId {
  const s = symbolId(symbol);
  if (!rules.symbols.has(s)) fail(rules, `symbol ${symbol} is not one of the strategy's symbols`);
  return s;
}

/** Intents this module produced, with the rules they passed (a WeakMap: it cannot be forged). */
const passed = new WeakMap<object, IntentRules>();

/** True when rules `a` are at least as strict as `b`: same strategy and specs, no symbol beyond b's. */
function asStrict(a: IntentRules, b: IntentRules): boolean {
  if (a === b) return true;
  if (a.strategy !== b.strategy || a.specs !== b.specs) return false;
  for (const s of a.symbols) if (!b.symbols.has(s)) return false;
  return true;
}

/** The stop-loss / take-profit attached to a place intent: opening regular orders only, on the tick. */
function attachedOf(
  rules: IntentRules,
  v: {
    side: string;
    stopLoss?: Dec | undefined;
    takeProfit?: Dec | undefined;
    triggerPrice?: Dec | undefined;
  },
  spec: ContractSpec | undefined,
): AttachedPlans | undefined {
  if (v.stopLoss === undefined && v.takeProfit === undefined) return undefined;
  if (!v.side.startsWith('open_'))
    fail(rules, `stopLoss / takeProfit attach to an opening order, not ${v.side}`);
  if (v.triggerPrice !== undefined)
    fail(rules, 'stopLoss / takeProfit attach to a regular order, not a plan');
  for (const [name, price] of [
    ['stopLoss', v.stopLoss],
    ['takeProfit', v.takeProfit],
  ] as const) {
    if (price !== undefined && spec !== undefined && !isMultipleOf(price, spec.priceTick))
      fail(rules, `${name} ${price.toFixed()} is not a multiple of the tick ${spec.priceTick.toFixed()}`);
  }
  return Object.freeze({
    ...(v.stopLoss !== undefined ? { stopLoss: v.stopLoss } : {}),
    ...(v.takeProfit !== undefined ? { takeProfit: v.takeProfit } : {}),
  });
}

/** Parses one emitted value into an Intent or throws StrategyError. */
export function validateIntent(raw: unknown, rules: IntentRules): Intent {
  if (typeof raw === 'object' && raw !== null) {
    const before = passed.get(raw);
    if (before !== undefined && asStrict(before, rules)) return raw as Intent;
  }
  const out = parseIntent(raw, rules);
  passed.set(out, rules);
  return out;
}

/** `raw` through the zod schema: its fields, or a StrategyError naming the first problem. */
function schemaFields(raw: unknown, rules: IntentRules): z.output<typeof intentSchema> {
  const r = intentSchema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first && first.path.length > 0 ? `${first.path.map(String).join('.')}: ` : '';
    fail(rules, `${where}${first?.message ?? 'unrecognised value'}`);
  }
  return r.data;
}

function parseIntent(raw: unknown, rules: IntentRules): Intent {
  const v = placeFieldsOf(raw) ?? schemaFields(raw, rules);
  switch (v.kind) {
    case 'place': {
      const symbol = checkSymbol(rules, v.symbol);
      const spec = rules.specs?.get(symbol);
      if (spec) {
        if (!isMultipleOf(v.size, spec.sizeStep))
          fail(rules, `size ${v.size.toFixed()} is not a multiple of ${spec.sizeStep.toFixed()} (${symbol})`);
        if (v.size.lt(spec.minSize))
          fail(rules, `size ${v.size.toFixed()} is below the minimum ${spec.minSize.toFixed()} (${symbol})`);
        if (v.size.gt(spec.maxSize))
          fail(rules, `size ${v.size.toFixed()} is above the maximum ${spec.maxSize.toFixed()} (${symbol})`);
        if (v.price !== undefined && !isMultipleOf(v.price, spec.priceTick)) {
          fail(
            rules,
            `price ${v.price.toFixed()} is not a multiple of the tick ${spec.priceTick.toFixed()} (${symbol})`,
          );
        }
        if (v.triggerPrice !== undefined && !isMultipleOf(v.triggerPrice, spec.priceTick)) {
          fail(
            rules,
            `trigger price ${v.triggerPrice.toFixed()} is not a multiple of the tick ${spec.priceTick.toFixed()} (${symbol})`,
          );
        }
      }
      if (v.price === undefined && v.orderType === 'postOnly')
        fail(rules, 'a market order cannot be postOnly');
      if (v.triggerPrice !== undefined && v.orderType !== 'normal')
        fail(rules, `a plan (trigger) order is always normal, not ${v.orderType}`);
      const attach = attachedOf(rules, v, spec);
      return Object.freeze({
        kind: 'place',
        symbol,
        side: v.side,
        size: v.size,
        orderType: v.orderType,
        ...(v.price !== undefined ? { price: v.price } : {}),
        ...(v.tag !== undefined ? { tag: v.tag } : {}),
        ...(v.triggerPrice !== undefined ? { triggerPrice: v.triggerPrice } : {}),
        ...(attach !== undefined ? { attach } : {}),
      });
    }
    case 'cancel':
      return Object.freeze({
        kind: 'cancel',
        symbol: checkSymbol(rules, v.symbol),
        ...(v.clientOid !== undefined ? { clientOid: clientOid(v.clientOid) } : {}),
        ...(v.orderId !== undefined ? { orderId: orderId(v.orderId) } : {}),
      });
    case 'cancelAll':
      return Object.freeze({
        kind: 'cancelAll',
        ...(v.symbol !== undefined ? { symbol: checkSymbol(rules, v.symbol) } : {}),
      });
  }
}
