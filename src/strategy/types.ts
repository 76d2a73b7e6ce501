// The types a strategy author sees: the read-only context, the two instance styles (hooks or a
// stream function) and the inputs they receive. Part of the public, versioned strategy API.
import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import type { Dec, RoundMode } from '../core/decimal.ts';
import type { ClientOid, OrderId, StrategyId, SymbolId } from '../core/ids.ts';
import type { CancelAllIntent, CancelIntent, Intent, PlaceIntent } from '../core/intents.ts';
import type { ContractSpec, Ticker } from '../core/market.ts';
import type { Order, OrderSide, OrderType } from '../core/orders.ts';
import type { FillReport } from '../core/reports.ts';
import type { TradingState } from '../risk/trading-state.ts';

/** A fill of one of the strategy's own orders. */
export interface StrategyFill extends FillReport {
  readonly strategy: StrategyId;
  readonly clientOid: ClientOid;
  /** The side of the order that filled. */
  readonly side: OrderSide;
  /** Fill price (value ÷ size). */
  readonly price: Dec;
}

/** The strategy's position in one symbol (hedge mode: long and short are held separately). */
export interface PositionSnapshot {
  readonly symbol: SymbolId;
  /** Open long size in base coin (≥ 0). */
  readonly long: Dec;
  /** Open short size in base coin (≥ 0). */
  readonly short: Dec;
  /** Average entry price of the long leg, when one is open. */
  readonly longEntryPrice?: Dec;
  /** Average entry price of the short leg, when one is open. */
  readonly shortEntryPrice?: Dec;
}

export interface PnlSnapshot {
  readonly realized: Dec;
  /** Marked to the latest ticker's last price. */
  readonly unrealized: Dec;
  /** Fees paid (positive means paid). */
  readonly fees: Dec;
  /** realized + unrealized − fees. */
  readonly net: Dec;
}

/** What the engine fills in for the context: every value returned is a frozen snapshot. */
export interface StrategyStateSource {
  latestTicker(symbol: SymbolId): Ticker | undefined;
  openOrders(strategy: StrategyId): readonly Order[];
  position(strategy: StrategyId, symbol: SymbolId): PositionSnapshot;
  pnl(strategy: StrategyId): PnlSnapshot;
  /** The risk gate's trading state; a source without it means `ACTIVE`. */
  tradingState?(): TradingState;
}

/**
 * Fields of `ctx.place`. Size and price accept a Dec or a decimal string, which must sit on the
 * symbol's step and tick, or a number (a signal's float), which the framework snaps exactly: the
 * price to the nearest tick, the size down to the step. No float ever reaches the wire unrounded.
 */
export interface PlaceParams {
  readonly symbol: SymbolId | string;
  readonly side: OrderSide;
  readonly size: Dec | string | number;
  /** Limit price; omit (or undefined) for a market order. */
  readonly price?: Dec | string | number | undefined;
  /** Default `normal`. */
  readonly orderType?: OrderType | undefined;
  /** Free text kept with the order (≤ 32 chars). */
  readonly tag?: string | undefined;
  /**
   * Makes this a plan (trigger) order resting at the exchange: when the last price crosses it, the
   * order executes (market without `price`, limit at `price`). A number snaps to the nearest tick.
   * The exchange holds it even if this bot stops: see `stopLoss` / `takeProfit` for protection.
   */
  readonly triggerPrice?: Dec | string | number | undefined;
  /**
   * Attaches an exchange-side stop-loss to this opening order: once it has ended with a fill, the
   * engine places a close plan of the filled size triggering at this price (tag `stop-loss`), even
   * after a restart. A number snaps to the nearest tick.
   */
  readonly stopLoss?: Dec | string | number | undefined;
  /** Attaches a take-profit the same way (tag `take-profit`). */
  readonly takeProfit?: Dec | string | number | undefined;
}

/**
 * Fields of `ctx.stopLoss` / `ctx.takeProfit`: an exchange-side plan order that closes (part of) a
 * leg of the strategy's position when the last price crosses `triggerPrice`. It survives the bot
 * (process, server or network down), and the engine cancels it once the leg is flat.
 */
export interface ProtectParams {
  readonly symbol: SymbolId | string;
  /** The leg to protect. */
  readonly leg: 'long' | 'short';
  readonly triggerPrice: Dec | string | number;
  /** Default: the whole leg as the strategy holds it now. */
  readonly size?: Dec | string | number | undefined;
  /** Execution price of the close once triggered; omit for a market close (the usual stop). */
  readonly price?: Dec | string | number | undefined;
}

/** What `ctx.cancel` accepts: one of the strategy's orders, or a symbol plus one of its ids. */
export type CancelTarget =
  | Order
  | { readonly symbol: SymbolId | string; readonly clientOid: ClientOid | string }
  | { readonly symbol: SymbolId | string; readonly orderId: OrderId | string };

/** The read-only world a strategy sees, plus validating intent builders. */
export interface StrategyContext {
  /** The instance id from the config (part of every client_oid). */
  readonly id: StrategyId;
  readonly symbols: readonly SymbolId[];
  /** A pino child logger bound to this strategy. */
  readonly log: Logger;
  /** Clock time in epoch ms (virtual time in backtests). */
  now(): number;
  ticker(symbol: SymbolId | string): Ticker | undefined;
  /** Latest ticker per symbol of this strategy. */
  tickers(): ReadonlyMap<SymbolId, Ticker>;
  /** This strategy's non-terminal orders, optionally for one symbol. */
  openOrders(symbol?: SymbolId | string): readonly Order[];
  position(symbol: SymbolId | string): PositionSnapshot;
  pnl(): PnlSnapshot;
  /**
   * The risk gate's trading state: `ACTIVE`, `REDUCING` (only close_* placements and cancels pass)
   * or `HALTED` (only cancels pass). Strategies should step back rather than emit refused intents.
   */
  tradingState(): TradingState;
  /** Trading rules of a symbol of this strategy. */
  spec(symbol: SymbolId | string): ContractSpec;
  /** Rounds a price (a number too) to the symbol's tick, exactly. Default mode `nearest`. */
  roundPrice(symbol: SymbolId | string, price: Dec | string | number, mode?: RoundMode): Dec;
  /** Rounds a size (a number too) to the symbol's size step, exactly. Default mode `down`. */
  roundSize(symbol: SymbolId | string, size: Dec | string | number, mode?: RoundMode): Dec;
  /** Builds a validated placement intent (throws StrategyError when invalid). */
  place(params: PlaceParams): PlaceIntent;
  /**
   * A stop-loss on a leg: a close plan order (tag `stop-loss`) that triggers when the price moves
   * against the leg to `triggerPrice` (below it for a long, above for a short). Undefined when the
   * leg is flat (nothing to protect).
   */
  stopLoss(params: ProtectParams): PlaceIntent | undefined;
  /** A take-profit on a leg: like `stopLoss`, for a price moving in the leg's favour (tag `take-profit`). */
  takeProfit(params: ProtectParams): PlaceIntent | undefined;
  cancel(target: CancelTarget): CancelIntent;
  /** Cancels every open order of this strategy, in one symbol or in all of them. */
  cancelAll(symbol?: SymbolId | string): CancelAllIntent;
}

/** What a hook may return. */
export type IntentOutput = Intent | readonly Intent[] | void | undefined;

/** Hook style: the host calls these and sends what they return through the risk gate. */
export interface HookStrategyInstance {
  onTicker?(ticker: Ticker): IntentOutput;
  onFill?(fill: StrategyFill): IntentOutput;
  onOrderUpdate?(order: Order): IntentOutput;
  onTimer?(now: number): IntentOutput;
  /** Period of `onTimer` in ms (virtual time in backtests). Required for onTimer to be called. */
  readonly timerIntervalMs?: number;
}

/** Inputs of a stream-style strategy, already filtered to its symbols and its own orders. */
export interface StrategyInputs {
  readonly tickers$: Observable<Ticker>;
  readonly fills$: Observable<StrategyFill>;
  readonly orders$: Observable<Order>;
  /** Emits the clock time every `timerIntervalMs` (never when no interval is declared). */
  readonly timer$: Observable<number>;
}

/** Stream style: one function from the input streams to intents. */
export interface StreamStrategyInstance {
  run(inputs: StrategyInputs): Observable<Intent>;
  readonly timerIntervalMs?: number;
}

export type StrategyInstance = HookStrategyInstance | StreamStrategyInstance;

export function isStreamInstance(i: StrategyInstance): i is StreamStrategyInstance {
  return typeof (i as Partial<StreamStrategyInstance>).run === 'function';
}
