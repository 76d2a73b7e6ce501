// What the risk gate sees and decides, kept up to date as things change instead of rebuilt per intent: the account legs (cached until the next fill), the live orders' exposure (summed in OpenOrders), the placement-rate window, the last prices; plus the history headroom for placements.
import type { Dec } from '../core/decimal.ts';
import type { Footprint } from '../core/footprint.ts';
import { windowFootprint } from '../core/sliding-window.ts';
import type { SymbolId } from '../core/ids.ts';
import type { Intent } from '../core/intents.ts';
import type { Ticker } from '../core/market.ts';
import {
  DEFAULT_HISTORY_HEADROOM,
  historyBacklog,
  type HistoryHeadroomConfig,
} from '../reconcile/history-headroom.ts';
import { refuse, type RiskDecision } from '../risk/decision.ts';
import type { HedgePosition } from '../risk/exposure.ts';
import { evaluate, type RiskContext } from '../risk/gate.ts';
import type { RiskLimits } from '../risk/limits.ts';
import { createOrderRate, recordPlacement, type OrderRateWindow } from '../risk/order-rate.ts';
import type { OrderStore } from '../store/port.ts';
import type { OpenOrders } from './open-orders.ts';
import type { Portfolio } from './portfolio.ts';
import type { TradingGuard } from './trading-guard.ts';

export interface RiskViewDeps {
  readonly limits: RiskLimits;
  readonly portfolio: Portfolio;
  readonly open: OpenOrders;
  /** The latest ticker per symbol. */
  readonly latest: ReadonlyMap<SymbolId, Ticker>;
  readonly guardian: TradingGuard;
  readonly store: Pick<OrderStore, 'countOrdersSince'>;
  readonly historyHeadroom: HistoryHeadroomConfig | undefined;
}

export class RiskView {
  readonly #limits: RiskLimits;
  readonly #portfolio: Portfolio;
  readonly #open: OpenOrders;
  readonly #latest: ReadonlyMap<SymbolId, Ticker>;
  readonly #guardian: TradingGuard;
  readonly #store: Pick<OrderStore, 'countOrdersSince'>;
  readonly #historyHeadroom: HistoryHeadroomConfig;
  /** The risk gate's account-wide legs per symbol, until the next fill changes them. */
  #hedgePositions: ReadonlyMap<SymbolId, HedgePosition> | undefined;
  #orderRate: OrderRateWindow = createOrderRate();

  constructor(deps: RiskViewDeps) {
    this.#limits = deps.limits;
    this.#portfolio = deps.portfolio;
    this.#open = deps.open;
    this.#latest = deps.latest;
    this.#guardian = deps.guardian;
    this.#store = deps.store;
    this.#historyHeadroom = deps.historyHeadroom ?? DEFAULT_HISTORY_HEADROOM;
  }

  /**
   * The cached account legs (one per symbol) and the order-rate window, whose backing store holds
   * the placements of the last minute plus at most as many dead ones (sliding-window.ts): footprint.ts.
   */
  footprint(): Footprint {
    return {
      hedgePositions: this.#hedgePositions?.size ?? 0,
      ...windowFootprint('orderRate', this.#orderRate.log),
    };
  }

  /** A fill changed the positions: the legs are summed again at the next decision. */
  positionsChanged(): void {
    this.#hedgePositions = undefined;
  }

  /** The account-wide legs of `symbol` as folded from the fills seen (absent: flat). */
  position(symbol: SymbolId): HedgePosition | undefined {
    this.#hedgePositions ??= this.#portfolio.hedgePositions();
    return this.#hedgePositions.get(symbol);
  }

  /** An approved placement was created at `now` (the order-rate window counts it). */
  placed(now: number): void {
    this.#orderRate = recordPlacement(this.#orderRate, now);
  }

  /**
   * The risk gate's answer; for a placement it approves, also the history headroom: while the symbol
   * holds an order with an unknown outcome, placements wait once one order-history page would no
   * longer reach that order (src/reconcile/history-headroom.ts).
   */
  decide(intent: Intent, now: number): RiskDecision {
    const decision = evaluate(intent, this.#context(now));
    if (!decision.approved || intent.kind !== 'place' || !this.#open.hasUnknown(intent.symbol)) {
      return decision;
    }
    const store = this.#store;
    const backlog = historyBacklog(
      this.#open.values(),
      intent.symbol,
      (t) => store.countOrdersSince?.(intent.symbol, t) ?? 0,
      now,
      this.#historyHeadroom,
    );
    return backlog === undefined ? decision : refuse('reconcile_backlog', backlog);
  }

  /**
   * The gate's inputs. Positions and the live orders' exposure are kept summed as fills and orders
   * change (not rebuilt per intent); an approved placement is in the open orders before the next
   * decision.
   */
  #context(now: number): RiskContext {
    this.#hedgePositions ??= this.#portfolio.hedgePositions();
    return {
      now,
      limits: this.#limits,
      tradingState: this.#guardian.state,
      lastPrices: this.#lastPrices,
      positions: this.#hedgePositions,
      openOrders: this.#open.exposure(),
      orderRate: this.#orderRate,
    };
  }

  /** The exact last price of a symbol, read from the latest ticker when the gate asks (one symbol). */
  readonly #lastPrices: Pick<ReadonlyMap<SymbolId, Dec>, 'get'> = {
    get: (symbol) => this.#latest.get(symbol)?.last,
  };
}
