// The trading state as the engine keeps it: ACTIVE / REDUCING / HALTED (risk/trading-state.ts), the
// drawdown breaker fed with the account's net PnL, and the kill switch. The state and the equity
// peak are persisted as store meta values, so a restart keeps a latched HALTED.
import { dec, decToString, isDecimalString, type Dec } from '../core/decimal.ts';
import type { RiskLimits } from '../risk/limits.ts';
import { TRADING_STATES, updateTradingState, type TradingState } from '../risk/trading-state.ts';
import type { OrderStore } from '../store/port.ts';

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
    if (peak !== undefined && isDecimalString(peak)) this.#peak = dec(peak);
  }

  get state(): TradingState {
    return this.#state;
  }

  /** The drawdown breaker: equity = starting equity + `netPnl`. Returns the change, if any. */
  onNetPnl(netPnl: Dec): TradingStateChange | undefined {
    if (this.#startingEquity === undefined || netPnl === this.#lastNet) return undefined;
    this.#lastNet = netPnl;
    const equity = this.#startingEquity.plus(netPnl);
    if (this.#peak === undefined || equity.gt(this.#peak)) {
      this.#peak = equity;
      this.#store.setMeta(EQUITY_PEAK_META, decToString(equity));
    }
    const next = updateTradingState(this.#state, this.#peak, equity, this.#limits);
    if (next === this.#state) return undefined;
    return this.set(next, `drawdown: equity ${decToString(equity)} from peak ${decToString(this.#peak)}`);
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
