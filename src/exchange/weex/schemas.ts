// zod schemas of the capi/v2 wire shapes, requests and replies. They accept every documented and
// observed variant of weex-facts.md (extra fields are ignored, ids may arrive as JSON numbers,
// times as strings or numbers, fills wrapped or bare, plan statuses numeric or upper-case words).
// Values stay strings here; ./mappers.ts turns them into core types.
import { z } from 'zod';
import { isDecimalString } from '../../core/decimal.ts';

/** An id sent as a string or a (losslessly parsed) number; always a digit-or-text string after parsing. */
export const wireId = z
  .union([z.string(), z.number().int()])
  .transform((v) => String(v))
  .pipe(z.string().min(1, 'empty id'));

/** A decimal carried as a string ("0.010000", "90755.3"). */
export const wireDecimal = z.string().refine(isDecimalString, { message: 'not a decimal string' });

/** A decimal that some samples send as a number (small integers only) or a string. */
export const wireDecimalLoose = z
  .union([z.string(), z.number()])
  .transform((v) => String(v))
  .pipe(wireDecimal);

/** Epoch ms as a number or a digit string. */
export const wireTime = z
  .union([z.number().int().nonnegative(), z.string().regex(/^\d{1,16}$/, 'not an epoch-ms integer')])
  .transform((v) => Number(v));

const nullableText = z.string().nullable().optional();
/** Preset TP/SL echoed in order rows: display only, so any string or number (or null) is accepted. */
const presetPrice = z
  .union([z.string(), z.number()])
  .transform((v) => String(v))
  .nullable()
  .optional();

// ---------------------------------------------------------------------------------------------
// Market

export const tickerSchema = z.object({
  symbol: z.string().min(1),
  last: wireDecimal,
  best_bid: wireDecimal,
  best_ask: wireDecimal,
  high_24h: wireDecimal,
  low_24h: wireDecimal,
  volume_24h: wireDecimal,
  timestamp: z.string().regex(/^\d{1,16}$/, 'not an epoch-ms integer'),
  priceChangePercent: wireDecimal,
  base_volume: wireDecimal,
  markPrice: wireDecimal.optional(),
  indexPrice: wireDecimal.optional(),
});
export type WireTickerParsed = z.infer<typeof tickerSchema>;

export const tickersSchema = z.array(tickerSchema);

export const timeSchema = z.object({
  epoch: z.string().optional(),
  iso: z.string().optional(),
  timestamp: wireTime,
});

export const contractSchema = z.object({
  symbol: z.string().min(1),
  size_increment: wireDecimalLoose,
  tick_size: wireDecimalLoose,
  priceEndStep: wireDecimalLoose.optional(),
  makerFeeRate: wireDecimalLoose,
  takerFeeRate: wireDecimalLoose,
  minOrderSize: wireDecimalLoose,
  maxOrderSize: wireDecimalLoose,
  contract_val: wireDecimalLoose.optional(),
  maxPositionSize: wireDecimalLoose.optional(),
});
export const contractsSchema = z.array(contractSchema);
export type WireContract = z.infer<typeof contractSchema>;

// ---------------------------------------------------------------------------------------------
// Orders: requests

export const WIRE_TYPE = { open_long: '1', open_short: '2', close_long: '3', close_short: '4' } as const;
export const WIRE_ORDER_TYPE = { normal: '0', postOnly: '1', fok: '2', ioc: '3' } as const;

const digitCode = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .union([z.enum(values), z.number().int()])
    .transform((v) => String(v))
    .pipe(z.enum(values));

export const placeEntrySchema = z.object({
  client_oid: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'client_oid must be 1-40 chars of [A-Za-z0-9_-]'),
  size: wireDecimal,
  type: digitCode(['1', '2', '3', '4']),
  order_type: digitCode(['0', '1', '2', '3']),
  match_price: digitCode(['0', '1']),
  price: wireDecimal.optional(),
  presetTakeProfitPrice: wireDecimal.optional(),
  presetStopLossPrice: wireDecimal.optional(),
});
export type WirePlaceEntry = z.infer<typeof placeEntrySchema>;

export const placeOrderBodySchema = placeEntrySchema.extend({
  symbol: z.string().min(1),
  marginMode: z.union([z.literal(1), z.literal(3), z.literal('1'), z.literal('3')]).optional(),
});
export type WirePlaceOrderBody = z.infer<typeof placeOrderBodySchema>;

export const batchOrdersBodySchema = z.object({
  symbol: z.string().min(1),
  marginMode: z.union([z.literal(1), z.literal(3), z.literal('1'), z.literal('3')]).optional(),
  orderDataList: z
    .array(placeEntrySchema)
    .min(1, 'orderDataList is empty')
    .max(20, 'at most 20 orders per batch'),
});
export type WireBatchOrdersBody = z.infer<typeof batchOrdersBodySchema>;

/**
 * plan_order body (weex-facts.md §5): `match_type` 0 limit / 1 market, `execute_price` the limit
 * price ("0" for market, as live bots send), `trigger_price`. `triggerPriceType` is not documented for
 * requests: only the simulator reads it (last | mark), the client never sends it.
 */
export const planOrderBodySchema = z.object({
  symbol: z.string().min(1),
  client_oid: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'client_oid must be 1-40 chars of [A-Za-z0-9_-]'),
  size: wireDecimal,
  type: digitCode(['1', '2', '3', '4']),
  match_type: digitCode(['0', '1']),
  execute_price: wireDecimal,
  trigger_price: wireDecimal,
  marginMode: z.union([z.literal(1), z.literal(3), z.literal('1'), z.literal('3')]).optional(),
  triggerPriceType: z.string().optional(),
});
export type WirePlanOrderBody = z.infer<typeof planOrderBodySchema>;

export const cancelOrderBodySchema = z.object({
  symbol: z.string().min(1).optional(),
  orderId: wireId.optional(),
  clientOid: z.string().min(1).optional(),
});
export type WireCancelOrderBody = z.infer<typeof cancelOrderBodySchema>;

// ---------------------------------------------------------------------------------------------
// Orders: replies

export const placeOrderReplySchema = z.object({
  client_oid: z.string().nullable().optional(),
  order_id: wireId,
});

export const batchOrdersReplySchema = z.object({
  order_info: z.array(
    z.object({
      order_id: z.union([wireId, z.literal(''), z.null()]).optional(),
      client_oid: z.string().nullable().optional(),
      result: z.boolean(),
      error_code: z.union([z.string(), z.number()]).nullable().optional(),
      error_message: nullableText,
    }),
  ),
  result: z.boolean().optional(),
});
export type WireBatchReply = z.infer<typeof batchOrdersReplySchema>;

export const cancelOrderReplySchema = z.object({
  symbol: z.string().optional(),
  order_id: z.union([wireId, z.null()]).optional(),
  client_oid: z.string().nullable().optional(),
  result: z.boolean(),
  err_code: z.union([z.string(), z.number()]).nullable().optional(),
  err_msg: nullableText,
});
export type WireCancelReply = z.infer<typeof cancelOrderReplySchema>;

export const historyRowSchema = z.object({
  symbol: z.string().min(1),
  size: wireDecimal,
  client_oid: z.string().nullable().optional(),
  createTime: wireTime,
  filled_qty: wireDecimal,
  fee: wireDecimal,
  order_id: wireId,
  price: wireDecimal,
  price_avg: wireDecimal,
  status: z.string().min(1),
  type: z.string().min(1),
  order_type: z.string().min(1),
  totalProfits: wireDecimal,
  contracts: z.number().optional(),
  filledQtyContracts: z.number().optional(),
  presetTakeProfitPrice: presetPrice,
  presetStopLossPrice: presetPrice,
});
export type WireHistoryRow = z.infer<typeof historyRowSchema>;
export const historySchema = z.array(historyRowSchema);

export const fillSchema = z.object({
  tradeId: wireId,
  orderId: wireId,
  symbol: z.string().min(1),
  marginMode: z.string().optional(),
  separatedMode: z.string().optional(),
  positionSide: z.string(),
  orderSide: z.string(),
  fillSize: wireDecimal,
  fillValue: wireDecimal,
  fillFee: wireDecimal,
  liquidateFee: z.string().optional(),
  realizePnl: wireDecimal,
  direction: z.string(),
  liquidateType: z.string().optional(),
  legacyOrdeDirection: z.string().optional(),
  createdTime: wireTime,
});
export type WireFill = z.infer<typeof fillSchema>;

/** Fills as documented `{list,nextFlag,totals}`, as observed (a bare array), or under `data`. */
export const fillsReplySchema = z
  .union([
    z.object({ list: z.array(fillSchema), nextFlag: z.boolean().optional(), totals: z.number().optional() }),
    z.array(fillSchema),
    z.object({ data: z.array(fillSchema) }),
    z.object({
      data: z.object({
        list: z.array(fillSchema),
        nextFlag: z.boolean().optional(),
        totals: z.number().optional(),
      }),
    }),
  ])
  .transform((v) => {
    if (Array.isArray(v))
      return { list: v, nextFlag: false as boolean, totals: undefined as number | undefined };
    if ('list' in v) return { list: v.list, nextFlag: v.nextFlag ?? false, totals: v.totals };
    if (Array.isArray(v.data)) return { list: v.data, nextFlag: false, totals: undefined };
    return { list: v.data.list, nextFlag: v.data.nextFlag ?? false, totals: v.data.totals };
  });

export const planRowSchema = z.object({
  symbol: z.string().min(1),
  size: wireDecimal,
  client_oid: z.string().nullable().optional(),
  createTime: wireTime,
  filled_qty: wireDecimal.optional(),
  fee: wireDecimal.optional(),
  order_id: wireId,
  price: wireDecimal,
  price_avg: wireDecimal.optional(),
  status: z.union([z.string(), z.number()]).transform((v) => String(v)),
  type: z.union([z.string(), z.number()]).transform((v) => String(v)),
  order_type: z.union([z.string(), z.number()]).transform((v) => String(v)),
  totalProfits: wireDecimal.optional(),
  triggerPrice: wireDecimal,
  triggerPriceType: z.string().nullable().optional(),
  triggerTime: z.union([wireTime, z.literal(''), z.null()]).optional(),
  presetTakeProfitPrice: presetPrice,
  presetStopLossPrice: presetPrice,
});
export type WirePlanRow = z.infer<typeof planRowSchema>;

export const planHistoryReplySchema = z.object({
  list: z.array(planRowSchema),
  nextPage: z.boolean().optional(),
});

/** plan_order answers like placeOrder: `{client_oid, order_id}` (client_oid echoed or null). */
export const planOrderReplySchema = placeOrderReplySchema;

/** cancel_plan answers like cancel_order: `{order_id, client_oid, result, err_msg}` (live: client_oid null). */
export const cancelPlanReplySchema = cancelOrderReplySchema;

/**
 * currentPlan: documented and observed as a bare array of plan rows; `{list,nextPage}` and `{data:[…]}`
 * are accepted too (the history-plan shape and the Bitget wrapper), as for fills.
 */
export const currentPlanReplySchema = z
  .union([
    z.array(planRowSchema),
    z.object({ list: z.array(planRowSchema), nextPage: z.boolean().optional() }),
    z.object({ data: z.array(planRowSchema) }),
  ])
  .transform((v) => {
    if (Array.isArray(v)) return { list: v, nextPage: undefined as boolean | undefined };
    if ('list' in v) return { list: v.list, nextPage: v.nextPage };
    return { list: v.data, nextPage: undefined as boolean | undefined };
  });

// ---------------------------------------------------------------------------------------------
// Errors

/** `{"code":"40020","msg":"…","requestTime":1765776928145,"data":null}`; code sometimes numeric. */
export const errorEnvelopeSchema = z.object({
  code: z.union([z.string(), z.number()]).transform((v) => String(v)),
  msg: z.string().optional().default(''),
  requestTime: z.union([z.number(), z.string()]).optional(),
  data: z.unknown().optional(),
});
export type WireErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
