// Plan-order request parameters → typed inputs, or the venue's parameter refusal (as ./params.ts:
// 40019 empty, 40020 invalid, 40017 not a JSON object).
import { dec } from '../../core/decimal.ts';
import type { OrderSide } from '../../core/orders.ts';
import { planOrderBodySchema } from '../weex/schemas.ts';
import type { MarginMode, SimPlanRequest, TriggerSource } from './model.ts';
import { parseCancelBody, rejectFromIssues, type Parsed, type QueryParams } from './params.ts';
import type { PlanSelector } from './plans.ts';
import { REJECT } from './venue-errors.ts';

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });

const SIDE_BY_WIRE: Readonly<Record<string, OrderSide>> = {
  '1': 'open_long',
  '2': 'open_short',
  '3': 'close_long',
  '4': 'close_short',
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The undocumented `triggerPriceType` of a body: anything naming the mark watches the mark price. */
function triggerSourceOf(v: string | undefined): TriggerSource | undefined {
  if (v === undefined || v === '') return undefined;
  return /mark/i.test(v) ? 'mark' : 'last';
}

export interface PlanOrderInput {
  readonly symbol: string;
  readonly request: SimPlanRequest;
}

/**
 * plan_order: `symbol, client_oid, size, type (1..4), match_type (0 limit / 1 market),
 * execute_price ("0" for market), trigger_price, marginMode?`. A limit plan needs a positive
 * execute_price; a market plan's execute_price is ignored.
 */
export function parsePlanOrderBody(body: unknown, known: (s: string) => boolean): Parsed<PlanOrderInput> {
  if (!isRecord(body)) return { ok: false, reject: REJECT.validation('the body must be a JSON object') };
  const b = planOrderBodySchema.safeParse(body);
  if (!b.success) return { ok: false, reject: rejectFromIssues(body, b.error) };
  const w = b.data;
  const side = SIDE_BY_WIRE[w.type];
  if (side === undefined) return { ok: false, reject: REJECT.invalid('type') }; // the schema admits 1..4
  const limit = w.match_type === '0';
  const marginMode: MarginMode = w.marginMode === 3 || w.marginMode === '3' ? 'ISOLATED' : 'SHARED';
  const source = triggerSourceOf(w.triggerPriceType);
  return planInputOf(
    w.symbol,
    {
      clientOid: w.client_oid,
      side,
      size: dec(w.size),
      triggerPrice: dec(w.trigger_price),
      ...(limit ? { executePrice: dec(w.execute_price) } : {}),
      marginMode,
      ...(source !== undefined ? { triggerSource: source } : {}),
    },
    known,
  );
}

/**
 * A plan placement from a request its body check accepted (a parsed body, or the in-process port's
 * request: requests.ts `planRequestOfEntry`), with the venue's refusals: an empty symbol 40019, one
 * not listed 40020, a limit plan without a positive execute_price 40020.
 */
export function planInputOf(
  symbol: string,
  request: SimPlanRequest,
  known: (s: string) => boolean,
): Parsed<PlanOrderInput> {
  if (symbol === '') return { ok: false, reject: REJECT.empty('symbol') };
  if (!known(symbol)) return { ok: false, reject: REJECT.invalid('symbol') };
  if (request.executePrice !== undefined && request.executePrice.lte(0))
    return { ok: false, reject: REJECT.invalid('execute_price') };
  return ok({ symbol, request });
}

/** cancel_plan: the body of cancel_order (`symbol`, `orderId` or `clientOid`). */
export function parseCancelPlanBody(body: unknown, known: (s: string) => boolean): Parsed<PlanSelector> {
  return parseCancelBody(body, known);
}

export interface CurrentPlanFilter {
  readonly symbol?: string;
  readonly page: number;
  readonly limit: number;
}

/** currentPlan: `symbol` optional, `page` from 0 (default 0), `limit` 1..100 (default 100). */
export function parseCurrentPlanQuery(
  q: QueryParams,
  known: (s: string) => boolean,
): Parsed<CurrentPlanFilter> {
  const symbol = q.get('symbol');
  if (symbol !== undefined && !known(symbol)) return { ok: false, reject: REJECT.invalid('symbol') };
  const int = (name: string, min: number, max: number, dflt: number): Parsed<number> => {
    const v = q.get(name);
    if (v === undefined) return ok(dflt);
    if (!/^\d{1,9}$/.test(v)) return { ok: false, reject: REJECT.invalid(name) };
    const n = Number(v);
    return n < min || n > max ? { ok: false, reject: REJECT.invalid(name) } : ok(n);
  };
  const page = int('page', 0, 1_000_000, 0);
  if (!page.ok) return page;
  const limit = int('limit', 1, 100, 100);
  if (!limit.ok) return limit;
  return ok({ ...(symbol !== undefined ? { symbol } : {}), page: page.value, limit: limit.value });
}
