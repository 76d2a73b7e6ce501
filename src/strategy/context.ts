// The StrategyContext handed to `create`: read-only views over the engine's state (frozen
// snapshots), the clock, a child logger, exact rounding helpers and validating intent builders.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import { roundToStep, type Dec, type RoundMode } from '../core/decimal.ts';
import { StrategyError } from '../core/errors.ts';
import { symbolId, type StrategyId, type SymbolId } from '../core/ids.ts';
import type { CancelAllIntent, CancelIntent, PlaceIntent } from '../core/intents.ts';
import type { ContractSpec, Ticker } from '../core/market.ts';
import type { Order } from '../core/orders.ts';
import { numberToDec, toDec } from './dec-like.ts';
import { validateIntent, type IntentRules } from './intent-schema.ts';
import type {
  CancelTarget,
  PlaceParams,
  ProtectParams,
  StrategyContext,
  StrategyStateSource,
} from './types.ts';

export interface ContextDeps {
  readonly id: StrategyId;
  readonly symbols: readonly SymbolId[];
  readonly specs: ReadonlyMap<SymbolId, ContractSpec>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly state: StrategyStateSource;
}

function isOrder(t: CancelTarget): t is Order {
  return 'strategy' in t && 'status' in t;
}

export function createStrategyContext(deps: ContextDeps): StrategyContext {
  const { id, clock, state } = deps;
  const symbols = Object.freeze([...deps.symbols]);
  const rules: IntentRules = { strategy: id, symbols: new Set(symbols), specs: deps.specs };

  /** The last list `state.openOrders` gave, and its orders by symbol (openOrders(symbol)). */
  let openSeen: readonly Order[] | undefined;
  const openBySymbol = new Map<SymbolId, readonly Order[]>();
  const own = (symbol: SymbolId | string): SymbolId => {
    const s = symbolId(symbol);
    if (!rules.symbols.has(s))
      throw new StrategyError(`symbol ${symbol} is not one of the strategy's symbols`, id);
    return s;
  };
  const specOf = (symbol: SymbolId | string): ContractSpec => {
    const s = own(symbol);
    const spec = deps.specs.get(s);
    if (!spec) throw new StrategyError(`no contract spec known for ${s}`, id);
    return spec;
  };
  const decOf = (v: Dec | string | number, what: string): Dec => {
    const d = typeof v === 'number' ? numberToDec(v) : toDec(v);
    if (d === undefined)
      throw new StrategyError(`${what} must be a Dec, a decimal string or a finite number`, id);
    return d;
  };
  /**
   * A number (a signal's float) snapped exactly to the symbol's tick or step: prices to the nearest
   * tick, sizes down to the step (never more than asked). Decs and strings pass as they are (the
   * intent check refuses them off the grid).
   */
  const snapped = <T>(v: T | number, step: () => Dec, mode: RoundMode, what: string): T | Dec =>
    typeof v === 'number' ? roundToStep(decOf(v, what), step(), mode) : v;

  const place = (p: PlaceParams): PlaceIntent => {
    const tick = (): Dec => specOf(p.symbol).priceTick;
    const size = snapped(p.size, () => specOf(p.symbol).sizeStep, 'down', 'size');
    const price = snapped(p.price, tick, 'nearest', 'price');
    const triggerPrice = snapped(p.triggerPrice, tick, 'nearest', 'trigger price');
    const stopLoss = snapped(p.stopLoss, tick, 'nearest', 'stopLoss');
    const takeProfit = snapped(p.takeProfit, tick, 'nearest', 'takeProfit');
    const intent = validateIntent(
      { kind: 'place', ...p, size, price, triggerPrice, stopLoss, takeProfit },
      rules,
    );
    return intent as PlaceIntent;
  };
  /** A close plan for a leg, sized to the leg unless told; undefined when there is nothing to close. */
  const protect = (p: ProtectParams, tag: 'stop-loss' | 'take-profit'): PlaceIntent | undefined => {
    const held = state.position(id, own(p.symbol))[p.leg];
    const size = p.size ?? held;
    if (held.lte(0)) return undefined;
    return place({
      symbol: p.symbol,
      side: p.leg === 'long' ? 'close_long' : 'close_short',
      size,
      price: p.price,
      triggerPrice: p.triggerPrice,
      tag,
    });
  };

  const ctx: StrategyContext = {
    id,
    symbols,
    log: deps.log,
    now: () => clock.now(),
    ticker: (symbol) => state.latestTicker(own(symbol)),
    tickers: () => {
      const m = new Map<SymbolId, Ticker>();
      for (const s of symbols) {
        const t = state.latestTicker(s);
        if (t) m.set(s, t);
      }
      return m;
    },
    openOrders: (symbol) => {
      const all = state.openOrders(id);
      if (symbol === undefined) return all;
      const s = own(symbol);
      // The engine hands out the same frozen list until an order changes: so is each symbol's part.
      if (all !== openSeen) {
        openSeen = all;
        openBySymbol.clear();
      }
      let list = openBySymbol.get(s);
      if (list === undefined) openBySymbol.set(s, (list = Object.freeze(all.filter((o) => o.symbol === s))));
      return list;
    },
    position: (symbol) => state.position(id, own(symbol)),
    pnl: () => state.pnl(id),
    tradingState: () => state.tradingState?.() ?? 'ACTIVE',
    spec: specOf,
    roundPrice: (symbol, price, mode: RoundMode = 'nearest') =>
      roundToStep(decOf(price, 'price'), specOf(symbol).priceTick, mode),
    roundSize: (symbol, size, mode: RoundMode = 'down') =>
      roundToStep(decOf(size, 'size'), specOf(symbol).sizeStep, mode),
    place: (p: PlaceParams): PlaceIntent => place(p),
    stopLoss: (p) => protect(p, 'stop-loss'),
    takeProfit: (p) => protect(p, 'take-profit'),
    cancel: (target: CancelTarget): CancelIntent => {
      if (isOrder(target)) {
        if (target.strategy !== id)
          throw new StrategyError(`order ${target.clientOid} belongs to ${target.strategy}`, id);
        return validateIntent(
          { kind: 'cancel', symbol: target.symbol, clientOid: target.clientOid },
          rules,
        ) as CancelIntent;
      }
      return validateIntent({ kind: 'cancel', ...target }, rules) as CancelIntent;
    },
    cancelAll: (symbol): CancelAllIntent =>
      validateIntent(
        { kind: 'cancelAll', ...(symbol !== undefined ? { symbol } : {}) },
        rules,
      ) as CancelAllIntent,
  };
  return Object.freeze(ctx);
}
