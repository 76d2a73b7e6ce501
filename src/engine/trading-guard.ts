// The trading state as the engine keeps it: ACTIVE / REDUCING / HALTED (risk/trading-state.ts), the
// drawdown breaker fed with the account's net PnL, and the kill switch. The state and the equity
// peak are persisted as store meta values, so a restart keeps a latched HALTED.
import { dec, decToString, isDecimalString, type Dec } from '../core/decimal.ts';
import { surelyBelow } from '../core/float-screen.ts';
import type { RiskLimits } from '../risk/limits.ts';
import { TRADING_STATES, updateTradingState, type TradingState } from '../risk/trading-state.ts';
import type { OrderStore } from '../store/port.ts';
import type { NetEstimate } from './account-totals.ts';

export const TRADING_STATE_META = 'tradingState';
export const EQUITY_PEAK_META = 'equityPeak';

export interface TradingStateChange {
  readonly from: TradingState;
  readonly to: TradingState;
  readonly reason: string;
}

export class TradingGuard {
  readonly #store: Pick<OrderStore, 'getMeta' | 'setMeta'>;
  readonly #limits: RiskLimits;
  readonly #startingEquity: Dec | undefined;
  #state: TradingState = 'ACTIVE';
  #peak: Dec | undefined;
  /** The last net PnL weighed: the same value again changes nothing (no leg open, no fill since). */
  #lastNet: Dec | undefined;
  /** Nearest doubles of the starting equity, the peak and the two limits (surelyUnchanged). */
  readonly #startNumber: number;
  #peakNumber = Number.NaN;
  readonly #reduceNumber: number;
  readonly #haltNumber: number;

  /** Without a starting equity the drawdown breaker is off (the kill switch still works). */
  constructor(
    store: Pick<OrderStore, 'getMeta' | 'setMeta'>,
    limits: RiskLimits,
    startingEquity: Dec | undefined,
  ) {
    this.#store = store;
    this.#limits = limits;
    this.#startingEquity = startingEquity;
    const saved = store.getMeta(TRADING_STATE_META);
    if (saved !== undefined && (TRADING_STATES as readonly string[]).includes(saved))
      this.#state = saved as TradingState;
    const peak = store.getMeta(EQUITY_PEAK_META);
    if (peak !== undefined && isDecimalString(peak)) this.#setPeak(dec(peak));
    this.#startNumber = startingEquity?.toNumber() ?? Number.NaN;
    this.#reduceNumber = limits.drawdownReducePct.toNumber();
    this.#haltNumber = limits.drawdownHaltPct.toNumber();
  }

  get state(): TradingState {
    return this.#state;
  }

  /** The drawdown breaker: equity = starting equity + `netPnl`. Returns the change, if any. */
  onNetPnl(netPnl: Dec): TradingStateChange | undefined {
    if (this.#startingEquity === undefined || netPnl === this.#lastNet) return undefined;
    this.#lastNet = netPnl;
    const equity = this.#startingEquity.plus(netPnl);
    let peak = this.#peak;
    if (peak === undefined || equity.gt(peak)) {
      peak = equity;
      this.#setPeak(peak);
      this.#store.setMeta(EQUITY_PEAK_META, decToString(peak));
    }
    const next = updateTradingState(this.#state, peak, equity, this.#limits);
    if (next === this.#state) return undefined;
    return this.set(next, `drawdown: equity ${decToString(equity)} from peak ${decToString(peak)}`);
  }

  /**
   * True when `onNetPnl` would change nothing for the exact net PnL that `e` estimates
   * (AccountTotals.netEstimate): equity certainly below the peak (no new peak to save) and certainly
   * above the level that would tighten the state (core/float-screen.ts). False means "ask onNetPnl",
   * never "something changes". The breaker reads the account on every ticker, and is almost never
   * close to either edge.
   */
  surelyUnchanged(e: NetEstimate): boolean {
    if (this.#startingEquity === undefined) return true; // onNetPnl does nothing without one
    const peak = this.#peakNumber;
    if (!(peak > 0)) return false; // no peak yet, or one that is not positive: the exact rules
    const equity = this.#startNumber + e.net;
    const pct = this.#state === 'ACTIVE' ? this.#reduceNumber : this.#haltNumber;
    // One scale for both comparisons: every operand of the estimate, the equity, the peak and the
    // peak's share at the limit (pct may exceed 100).
    const scale = e.scale + Math.abs(this.#startNumber) + Math.abs(equity) + peak * Math.max(1, pct / 100);
    if (!surelyBelow(equity, peak, scale)) return false;
    if (this.#state === 'HALTED') return true;
    // updateTradingState tightens when (peak − equity) × 100 ≥ pct × peak, or when equity ≤ 0.
    return surelyBelow(peak - (peak * pct) / 100, equity, scale) && surelyBelow(0, equity, scale);
  }

  #setPeak(peak: Dec): void {
    this.#peak = peak;
    this.#peakNumber = peak.toNumber();
  }

  /** Moves to `to` (persisted). Returns the change, or undefined when already there. */
  set(to: TradingState, reason: string): TradingStateChange | undefined {
    this.#lastNet = undefined;
    const from = this.#state;
    if (from === to) return undefined;
    this.#state = to;
    this.#store.setMeta(TRADING_STATE_META, to);
    return { from, to, reason };
  }
}
