// Limits of the pre-trade risk gate. Field names and defaults mirror the `risk` section of the config
// (src/config/schema.ts), which holds them as decimal strings; `riskLimits` turns that into exact values.
import { dec, type Dec } from '../core/decimal.ts';

export interface RiskLimits {
  /** Largest notional (price × size, quote currency) of one order. Applies to every placement. */
  readonly maxOrderNotional: Dec;
  /**
   * Largest gross notional per symbol (long leg + short leg, at the last price) plus the opening
   * orders still working on that symbol, once the new order would fill. Only opening orders are checked.
   */
  readonly maxPositionNotional: Dec;
  /** Largest number of live (non-terminal) orders at once, this one included. */
  readonly maxOpenOrders: number;
  /** Largest number of approved placements per rolling 60 s, this one included. */
  readonly maxOrdersPerMinute: number;
  /** A limit price must lie within this many basis points of the last price. */
  readonly priceBandBps: Dec;
  /** Drawdown from peak equity, in percent, that moves trading to REDUCING. */
  readonly drawdownReducePct: Dec;
  /** Drawdown from peak equity, in percent, that moves trading to HALTED (≥ drawdownReducePct). */
  readonly drawdownHaltPct: Dec;
}

export const DEFAULT_RISK_LIMITS: RiskLimits = Object.freeze({
  maxOrderNotional: dec('1000'),
  maxPositionNotional: dec('5000'),
  maxOpenOrders: 50,
  maxOrdersPerMinute: 120,
  priceBandBps: dec('500'),
  drawdownReducePct: dec('5'),
  drawdownHaltPct: dec('10'),
});

/** The window of the orders-per-minute limit. */
export const ORDER_RATE_WINDOW_MS = 60_000;

type DecLike = Dec | string;

/** Limits as the config holds them: decimals as strings (or Dec), any field may be left out. */
export interface RiskLimitsInput {
  readonly maxOrderNotional?: DecLike;
  readonly maxPositionNotional?: DecLike;
  readonly maxOpenOrders?: number;
  readonly maxOrdersPerMinute?: number;
  readonly priceBandBps?: DecLike;
  readonly drawdownReducePct?: DecLike;
  readonly drawdownHaltPct?: DecLike;
}

/** Exact limits from config values; missing fields take DEFAULT_RISK_LIMITS. Throws RangeError on bad input. */
export function riskLimits(input: RiskLimitsInput = {}): RiskLimits {
  const d = DEFAULT_RISK_LIMITS;
  const limits: RiskLimits = {
    maxOrderNotional: input.maxOrderNotional !== undefined ? dec(input.maxOrderNotional) : d.maxOrderNotional,
    maxPositionNotional:
      input.maxPositionNotional !== undefined ? dec(input.maxPositionNotional) : d.maxPositionNotional,
    maxOpenOrders: input.maxOpenOrders ?? d.maxOpenOrders,
    maxOrdersPerMinute: input.maxOrdersPerMinute ?? d.maxOrdersPerMinute,
    priceBandBps: input.priceBandBps !== undefined ? dec(input.priceBandBps) : d.priceBandBps,
    drawdownReducePct:
      input.drawdownReducePct !== undefined ? dec(input.drawdownReducePct) : d.drawdownReducePct,
    drawdownHaltPct: input.drawdownHaltPct !== undefined ? dec(input.drawdownHaltPct) : d.drawdownHaltPct,
  };
  if (!Number.isInteger(limits.maxOpenOrders) || limits.maxOpenOrders < 1) {
    throw new RangeError(`maxOpenOrders must be a positive integer, got ${limits.maxOpenOrders}`);
  }
  if (!Number.isInteger(limits.maxOrdersPerMinute) || limits.maxOrdersPerMinute < 1) {
    throw new RangeError(`maxOrdersPerMinute must be a positive integer, got ${limits.maxOrdersPerMinute}`);
  }
  if (limits.drawdownReducePct.gt(limits.drawdownHaltPct)) {
    throw new RangeError('drawdownReducePct must not exceed drawdownHaltPct');
  }
  return Object.freeze(limits);
}
