// The pre-trade risk gate: one pure decision per intent. Cancels always pass (in every trading
// state: they only ever reduce risk). A placement passes the checks below in order; the first that
// fails is the refusal:
//   1. a positive size and (limit orders) a positive price;
//   2. the trading state: HALTED refuses every placement, REDUCING every opening one;
//   3. a last price for the symbol (notional and band are measured against it);
//   4. the price band: |price − last| ≤ last × priceBandBps / 10 000 (limit orders; not plan orders,
//      whose price applies only once the trigger is crossed, possibly far from today's last);
//   5. the order notional: size × (price, or last for a market order) ≤ maxOrderNotional;
//   6. the position notional (opening orders): gross exposure of the symbol with this order ≤ max;
//   7. the number of live orders, this one included, ≤ maxOpenOrders;
//   8. the placements approved in the last minute, this one included, ≤ maxOrdersPerMinute.
// The gate does not record anything: after an approval the caller records it (recordPlacement) and
// includes the new order in `openOrders` before evaluating the next intent. `openOrders` may be the
// list of orders or their exposure summed ahead of time (exposure.ts): the decisions are the same.
import { dec, decToString, type Dec } from '../core/decimal.ts';
import type { SymbolId } from '../core/ids.ts';
import type { Intent, PlaceIntent } from '../core/intents.ts';
import { isOpening } from '../core/orders.ts';
import { APPROVED, refuse, type RiskDecision } from './decision.ts';
import {
  grossExposure,
  liveOrderCount,
  signOf,
  type HedgePosition,
  type OpenOrdersView,
} from './exposure.ts';
import type { RiskLimits } from './limits.ts';
import { placementsInWindow, type OrderRateWindow } from './order-rate.ts';
import type { TradingState } from './trading-state.ts';

export interface RiskContext {
  /** Clock time of the decision, epoch ms. */
  readonly now: number;
  readonly limits: RiskLimits;
  readonly tradingState: TradingState;
  /** Last traded price per symbol. */
  readonly lastPrices: Pick<ReadonlyMap<SymbolId, Dec>, 'get'>;
  /** Positions per symbol (absent: flat). */
  readonly positions: ReadonlyMap<SymbolId, HedgePosition>;
  /**
   * Orders that may still be working (terminal ones are ignored), across the scope of the limits: the
   * orders, or `openOrderExposure(orders)` (kept incrementally by the engine).
   */
  readonly openOrders: OpenOrdersView;
  readonly orderRate: OrderRateWindow;
}

const s = decToString;
const BPS_PER_UNIT = dec(10_000);

export function evaluate(intent: Intent, ctx: RiskContext): RiskDecision {
  switch (intent.kind) {
    case 'cancel':
    case 'cancelAll':
      return APPROVED;
    case 'place':
      return evaluatePlace(intent, ctx);
  }
}

/** True when the intent can only reduce risk (cancels, close_* placements). */
export function isReducing(intent: Intent): boolean {
  return intent.kind !== 'place' || !isOpening(intent.side);
}

function evaluatePlace(p: PlaceIntent, ctx: RiskContext): RiskDecision {
  const { limits } = ctx;
  if (signOf(p.size) <= 0) return refuse('invalid_intent', `size ${s(p.size)} is not positive`);
  if (p.price !== undefined && signOf(p.price) <= 0)
    return refuse('invalid_intent', `price ${s(p.price)} is not positive`);

  if (ctx.tradingState === 'HALTED')
    return refuse('halted', `trading is HALTED: ${p.side} refused, only cancels pass`);
  if (ctx.tradingState === 'REDUCING' && isOpening(p.side)) {
    return refuse(
      'reducing_only',
      `trading is REDUCING: ${p.side} refused, only close_* placements and cancels pass`,
    );
  }

  const last = ctx.lastPrices.get(p.symbol);
  if (last === undefined || signOf(last) <= 0) return refuse('no_price', `no last price for ${p.symbol}`);

  if (p.price !== undefined && p.triggerPrice === undefined) {
    const distance = p.price.minus(last).abs();
    const allowed = last.times(limits.priceBandBps).div(BPS_PER_UNIT);
    if (distance.gt(allowed)) {
      return refuse(
        'price_band',
        `price ${s(p.price)} is ${s(distance)} from last ${s(last)}; the band of ${s(limits.priceBandBps)} bps allows ${s(allowed)}`,
      );
    }
  }

  const notional = p.size.times(p.price ?? p.triggerPrice ?? last);
  if (notional.gt(limits.maxOrderNotional)) {
    return refuse('order_notional', `order notional ${s(notional)} exceeds ${s(limits.maxOrderNotional)}`);
  }

  if (isOpening(p.side)) {
    const exposure = grossExposure(p.symbol, ctx.positions.get(p.symbol), ctx.openOrders, last).plus(
      notional,
    );
    if (exposure.gt(limits.maxPositionNotional)) {
      return refuse(
        'position_notional',
        `${p.symbol} gross notional with this order would be ${s(exposure)}, exceeding ${s(limits.maxPositionNotional)}`,
      );
    }
  }

  const live = liveOrderCount(ctx.openOrders);
  if (live + 1 > limits.maxOpenOrders) {
    return refuse('open_orders', `${live} orders are live; at most ${limits.maxOpenOrders} are allowed`);
  }

  const recent = placementsInWindow(ctx.orderRate, ctx.now);
  if (recent + 1 > limits.maxOrdersPerMinute) {
    return refuse(
      'order_rate',
      `${recent} placements in the last minute; at most ${limits.maxOrdersPerMinute} are allowed`,
    );
  }
  return APPROVED;
}
