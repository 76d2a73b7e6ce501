// The whole account's PnL terms, kept fill by fill: Σ realised, Σ fees, and per symbol and leg the
// open quantity and its entry cost summed over every strategy. What `summarize` over the whole book
// gives, in the work of one fill per fill and of one term per symbol and leg per read, instead of a
// sum over every strategy's legs (with many strategies those are many, and their costs carry the
// 18 places of a divided share: every sum ran on bigints).
//
// Exact: fixed-point sums are exact whatever their order, and a symbol's legs share its mark, so
//   Σ_i (qty_i × mark − cost_i) = (Σ qty_i) × mark − Σ cost_i   (long; the negation for short)
// and every figure equals summarize's to the last digit (test/engine/account-totals.property.test.ts).
import { ZERO, type Dec } from '../core/decimal.ts';
import type { Footprint } from '../core/footprint.ts';
import type { SymbolId } from '../core/ids.ts';
import { unrealizedPnl, type Leg } from '../core/pnl.ts';
import type { Position } from '../core/positions.ts';

export type Marks = (symbol: SymbolId) => Dec | undefined;
/** The same marks as nearest doubles (netEstimate). */
export type MarkNumbers = (symbol: SymbolId) => number | undefined;

interface LegSum {
  readonly symbol: SymbolId;
  readonly leg: Leg;
  qty: Dec;
  cost: Dec;
  /** The nearest doubles of `qty` and `cost` (netEstimate). */
  qtyNumber: number;
  costNumber: number;
}

/** AccountTotals.netEstimate's answer (written into the caller's object: it is asked every ticker). */
export interface NetEstimate {
  /** The account's net PnL as a double, within a few roundings per leg of the exact one. */
  net: number;
  /** A bound of the magnitudes it was computed from (core/float-screen.ts). */
  scale: number;
}

export interface AccountPnl {
  readonly realized: Dec;
  readonly fees: Dec;
  readonly unrealized: Dec;
  readonly net: Dec;
}

export class AccountTotals {
  #realized: Dec = ZERO;
  #fees: Dec = ZERO;
  /** Per symbol and leg (never removed: at most two per symbol), by key and in a list (to iterate). */
  readonly #legs = new Map<string, LegSum>();
  readonly #legList: LegSum[] = [];
  /** closedNet() as the nearest double, until the next fill. */
  #closedNumber: number | undefined;
  /** How many of `#legs` hold quantity (hasOpen is asked on every ticker). */
  #open = 0;

  /** One position replaced by the next (a fill folded in); `prev` undefined for a new position. */
  replace(prev: Position | undefined, next: Position): void {
    this.#realized = this.#realized.plus(next.realizedPnl).minus(prev?.realizedPnl ?? ZERO);
    this.#fees = this.#fees.plus(next.fees).minus(prev?.fees ?? ZERO);
    const key = `${next.symbol}|${next.leg}`;
    let sum = this.#legs.get(key);
    if (sum === undefined) {
      sum = { symbol: next.symbol, leg: next.leg, qty: ZERO, cost: ZERO, qtyNumber: 0, costNumber: 0 };
      this.#legs.set(key, sum);
      this.#legList.push(sum);
    }
    const wasOpen = !sum.qty.eq(0);
    sum.qty = sum.qty.plus(next.qty).minus(prev?.qty ?? ZERO);
    sum.cost = sum.cost.plus(next.cost).minus(prev?.cost ?? ZERO);
    sum.qtyNumber = sum.qty.toNumber();
    sum.costNumber = sum.cost.toNumber();
    this.#open += Number(!sum.qty.eq(0)) - Number(wasOpen);
    this.#closedNumber = undefined;
  }

  /** One term per symbol and leg (footprint.ts). */
  footprint(): Footprint {
    return { legs: this.#legs.size };
  }

  /** Σ realised − Σ fees. */
  closedNet(): Dec {
    return this.#realized.minus(this.#fees);
  }

  /** True when some leg holds quantity. */
  hasOpen(): boolean {
    return this.#open > 0;
  }

  /** Unrealised PnL of the open quantity at `marks` (a symbol without a mark counts nothing). */
  unrealized(marks: Marks): Dec {
    let u = ZERO;
    for (const s of this.#legList) {
      if (s.qty.eq(0)) continue;
      const m = marks(s.symbol);
      if (m !== undefined) u = u.plus(unrealizedPnl(s.leg, s.qty, s.cost, m));
    }
    return u;
  }

  /**
   * `pnl(marks).net` as a double, with the scale of its operands, written into `out`: for the
   * screens of core/float-screen.ts (the drawdown breaker asks on every ticker), never for counting.
   * A few roundings per open leg: each double is the nearest of an exact value (quantity, cost,
   * mark), then one product, one difference and one sum.
   */
  netEstimate(marks: MarkNumbers, out: NetEstimate): void {
    const closed = (this.#closedNumber ??= this.closedNet().toNumber());
    let net = closed;
    let scale = Math.abs(closed);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; flat legs add 0.
    if (this.#open > 0) {
      for (const s of this.#legList) {
        // Stryker disable next-line ConditionalExpression: a flat leg's cost is 0: it would add 0.
        if (s.qtyNumber === 0) continue;
        const m = marks(s.symbol);
        if (m === undefined) continue;
        const value = s.qtyNumber * m;
        net += s.leg === 'long' ? value - s.costNumber : s.costNumber - value;
        scale += Math.abs(value) + Math.abs(s.costNumber);
      }
    }
    out.net = net;
    out.scale = scale + Math.abs(net);
  }

  /** The account's PnL at `marks`, as `summarize` over the whole book gives it. */
  pnl(marks: Marks): AccountPnl {
    const unrealized = this.unrealized(marks);
    return {
      realized: this.#realized,
      fees: this.#fees,
      unrealized,
      net: this.#realized.minus(this.#fees).plus(unrealized),
    };
  }
}
