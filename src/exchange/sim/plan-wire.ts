// Simulator plans → the plan rows of currentPlan and historyPlan (fixtures currentPlan.json,
// historyPlan.json): every field a string (client_oid null for venue-made plans, the preset fields
// null). Two vocabularies, as both are met (weex-facts.md §7.6): `documented` numeric codes (status
// -1/0/1/2, type 1..4) as in the doc samples, or `live` upper-case words (UNTRIGGERED, CLOSE_LONG).
import { decToString, ZERO, type Dec } from '../../core/decimal.ts';
import type { ContractTable } from './contracts.ts';
import { decimalPlaces } from './contracts.ts';
import { isActive, type SimPlan } from './model.ts';
import { padDecimals } from './wire.ts';

export type PlanRowStyle = 'documented' | 'live';

export interface WirePlanRowOut {
  readonly symbol: string;
  readonly size: string;
  readonly client_oid: string | null;
  readonly createTime: string;
  readonly filled_qty: string;
  readonly fee: string;
  readonly order_id: string;
  readonly price: string;
  readonly price_avg: string;
  readonly status: string;
  readonly type: string;
  readonly order_type: string;
  readonly totalProfits: string;
  readonly triggerPrice: string;
  readonly triggerPriceType: string;
  readonly triggerTime: string;
  readonly presetTakeProfitPrice: null;
  readonly presetStopLossPrice: null;
}

const TYPE_CODE = { open_long: '1', open_short: '2', close_long: '3', close_short: '4' } as const;

type RowStatus = 'untriggered' | 'triggered' | 'partially_filled' | 'filled' | 'canceled';

/**
 * The row status: untriggered; canceled (by request, expired, or its child refused); once triggered,
 * the child's progress: filled, partially filled (some fill, even if the rest was then canceled),
 * triggered (nothing filled yet, child still working), canceled (child ended without a fill).
 */
export function planRowStatus(p: SimPlan): RowStatus {
  if (p.status === 'untriggered') return 'untriggered';
  if (p.status !== 'triggered' || p.child === undefined) return 'canceled';
  const c = p.child;
  if (c.filledQty.eq(p.size)) return 'filled';
  if (c.filledQty.gt(0)) return 'partially_filled';
  return isActive(c) ? 'triggered' : 'canceled';
}

/** Documented codes have no "triggered": a triggered plan not filled yet is "0" (waiting to fill) with a triggerTime. */
const STATUS_CODE: Readonly<Record<RowStatus, string>> = {
  untriggered: '0',
  triggered: '0',
  partially_filled: '1',
  filled: '2',
  canceled: '-1',
};
const STATUS_WORD: Readonly<Record<RowStatus, string>> = {
  untriggered: 'UNTRIGGERED',
  triggered: 'TRIGGERED',
  partially_filled: 'PARTIALLY_FILLED',
  filled: 'FILLED',
  canceled: 'CANCELED',
};

/** A plan row's `status` text in `style`. */
export function planRowStatusText(p: SimPlan, style: PlanRowStyle): string {
  const status = planRowStatus(p);
  return style === 'live' ? STATUS_WORD[status] : STATUS_CODE[status];
}

/** A plan row's `type` text in `style`. */
export function planRowType(p: SimPlan, style: PlanRowStyle): string {
  return style === 'live' ? p.side.toUpperCase() : TYPE_CODE[p.side];
}

/** Decimal places of the symbol's price tick (at least one), as plan rows print prices. */
export function planPricePlaces(p: SimPlan, contracts: ContractTable): number {
  return Math.max(1, decimalPlaces(contracts.rules(p.symbol).priceTick));
}

/** The child's average fill price as a plan row shows it; undefined before a fill. */
export function planAveragePrice(p: SimPlan, tickPlaces: number): Dec | undefined {
  const c = p.child;
  return c !== undefined && c.filledQty.gt(0)
    ? c.filledValue.div(c.filledQty).round(tickPlaces + 8)
    : undefined;
}

export function planRowToWire(p: SimPlan, contracts: ContractTable, style: PlanRowStyle): WirePlanRowOut {
  const tickPlaces = planPricePlaces(p, contracts);
  const c = p.child;
  const avg = planAveragePrice(p, tickPlaces);
  return {
    symbol: p.symbol,
    size: padDecimals(p.size, 6),
    client_oid: p.clientOid ?? null,
    createTime: String(p.createTime),
    filled_qty: padDecimals(c?.filledQty ?? ZERO, 6),
    fee: padDecimals(c?.fee ?? ZERO, 8),
    order_id: p.orderId,
    price: p.executePrice === undefined ? '0.0' : padDecimals(p.executePrice, tickPlaces),
    price_avg: avg === undefined ? '0' : padDecimals(avg, tickPlaces),
    status: planRowStatusText(p, style),
    type: planRowType(p, style),
    // The execution type of the child: normal for a limit plan, ioc for a market one (as market orders).
    order_type: p.executePrice === undefined ? '3' : '0',
    totalProfits: c === undefined ? '0' : decToString(c.totalProfits),
    triggerPrice: padDecimals(p.triggerPrice, tickPlaces),
    triggerPriceType: p.triggerSource === 'mark' ? 'MARK_PRICE' : '',
    triggerTime: p.triggerTime === undefined ? '' : String(p.triggerTime),
    presetTakeProfitPrice: null,
    presetStopLossPrice: null,
  };
}
