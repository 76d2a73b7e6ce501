// What a harness run returns: the strategy's orders (final state), fills, emitted intents, risk
// refusals, every event, and a summary computed exactly (Dec) from the stored fills.
import { ZERO, type Dec } from '../../core/decimal.ts';
import type { OrderEvent } from '../../core/events.ts';
import { symbolId, type StrategyId, type SymbolId } from '../../core/ids.ts';
import type { Intent } from '../../core/intents.ts';
import type { Ticker } from '../../core/market.ts';
import type { Order } from '../../core/orders.ts';
import { positionsFromFills, positionsOf, summarize } from '../../core/positions.ts';
import type { EngineEvent } from '../../engine/events.ts';
import { parseClientOid } from '../../execution/client-oid.ts';
import type { RiskRefused } from '../../risk/decision.ts';
import type { TradingState } from '../../risk/trading-state.ts';
import type { StrategyFill } from '../types.ts';
import type { Session } from './session.ts';

export interface EmittedIntent {
  /** Clock time of the emission, epoch ms. */
  readonly at: number;
  readonly intent: Intent;
}

export interface LegPosition {
  readonly long: Dec;
  readonly short: Dec;
}

export interface RunSummary {
  /** Ticker snapshots (polls) replayed. */
  readonly ticks: number;
  readonly firstTickTime: number | undefined;
  readonly lastTickTime: number | undefined;
  readonly intents: number;
  /** Orders written by the engine (every approved placement). */
  readonly ordersPlaced: number;
  readonly ordersFilled: number;
  readonly ordersCanceled: number;
  readonly ordersRejected: number;
  /** Orders still working at the end. */
  readonly ordersOpen: number;
  readonly fills: number;
  /** Σ fill value (quote). */
  readonly volume: Dec;
  readonly feesPaid: Dec;
  readonly realizedPnl: Dec;
  /** Open positions marked at the last price of each symbol. */
  readonly unrealizedPnl: Dec;
  /** realized − fees + unrealized. */
  readonly netPnl: Dec;
  /** Positions at the end, per symbol (hedge mode legs). */
  readonly positions: Readonly<Record<string, LegPosition>>;
  /** Risk-gate refusals by reason. */
  readonly refusals: Readonly<Record<string, number>>;
  readonly requestsByEndpoint: Readonly<Record<string, number>>;
  readonly weightUsed: { readonly ip: number; readonly uid: number };
  /** 429 answers met (the weight budget should keep this at 0). */
  readonly rateLimited: number;
  readonly tradingState: TradingState;
}

export interface StrategyRun {
  readonly strategy: {
    readonly id: StrategyId;
    readonly name: string;
    readonly version: string;
    readonly params: unknown;
  };
  /** Every order of the strategy, in placement order, in its final state. */
  readonly orders: readonly Order[];
  /** Every fill of the strategy's orders, oldest first. */
  readonly fills: readonly StrategyFill[];
  /** Every intent the strategy emitted (valid ones; before the risk gate), in order. */
  readonly intents: readonly EmittedIntent[];
  readonly refusals: readonly RiskRefused[];
  /** Engine events and reconcile order events, in order. */
  readonly events: readonly (EngineEvent | OrderEvent)[];
  /** Set when the strategy threw or emitted an invalid intent and was disabled. */
  readonly disabled?: { readonly at: number; readonly reason: string };
  readonly summary: RunSummary;
  /** The latest ticker of `symbol` at or before `at` (what the strategy saw then). */
  tickerAt(symbol: string, at: number): Ticker | undefined;
}

/** A ticker with the clock time of the poll that brought it. */
export interface SeenTicker {
  readonly t: number;
  readonly ticker: Ticker;
}

function sequenceOf(o: Order, prefix: string): number {
  return parseClientOid(o.clientOid, prefix)?.sequence ?? Number.MAX_SAFE_INTEGER;
}

export function collectRun(
  session: Session,
  id: StrategyId,
  meta: { name: string; version: string; params: unknown },
  history: ReadonlyMap<SymbolId, readonly SeenTicker[]>,
): StrategyRun {
  const { store, engine } = session;
  const orders = store
    .allOrders()
    .filter((o) => o.strategy === id)
    .sort(
      (a, b) => a.createdAt - b.createdAt || sequenceOf(a, session.prefix) - sequenceOf(b, session.prefix),
    );
  const byOid = new Map(orders.map((o) => [o.clientOid as string, o]));
  const stored = store
    .allFills()
    .filter((f) => f.clientOid !== undefined && byOid.has(f.clientOid))
    .sort(
      (a, b) => a.createdTime - b.createdTime || (a.tradeId < b.tradeId ? -1 : a.tradeId > b.tradeId ? 1 : 0),
    );
  const fills: StrategyFill[] = stored.map((f) => {
    const o = byOid.get(f.clientOid ?? '') as Order;
    return Object.freeze({
      ...f,
      strategy: id,
      clientOid: o.clientOid,
      side: o.side,
      price: f.size.gt(0) ? f.value.div(f.size) : f.value,
    });
  });

  const intents: EmittedIntent[] = [];
  const refusals: RiskRefused[] = [];
  let disabled: { at: number; reason: string } | undefined;
  for (const e of session.events) {
    if (e.kind === 'StrategyIntent' && e.strategy === id) intents.push({ at: e.at, intent: e.intent });
    else if (e.kind === 'RiskRefused' && e.strategy === id) refusals.push(e);
    else if (e.kind === 'StrategyDisabled' && e.strategy === id) disabled ??= { at: e.at, reason: e.reason };
  }

  const latest = (symbol: SymbolId): Dec | undefined => {
    const list = history.get(symbol);
    return list !== undefined && list.length > 0 ? list[list.length - 1]?.ticker.last : undefined;
  };
  const book = positionsFromFills(
    stored.map((f) => ({ fill: f, strategy: id, orderSide: (byOid.get(f.clientOid ?? '') as Order).side })),
  ).book;
  const pnl = summarize(book, latest, { strategy: id });
  const positions: Record<string, LegPosition> = {};
  for (const p of positionsOf(book, { strategy: id })) {
    const cur = positions[p.symbol] ?? { long: ZERO, short: ZERO };
    positions[p.symbol] =
      p.leg === 'long' ? { ...cur, long: cur.long.plus(p.qty) } : { ...cur, short: cur.short.plus(p.qty) };
  }
  const refusalCounts: Record<string, number> = {};
  for (const r of refusals) refusalCounts[r.reason] = (refusalCounts[r.reason] ?? 0) + 1;
  const m = engine.metrics();
  const count = (status: Order['status']): number => orders.filter((o) => o.status === status).length;

  const summary: RunSummary = {
    ticks: session.polls,
    firstTickTime: session.firstPollT,
    lastTickTime: session.lastPollT,
    intents: intents.length,
    ordersPlaced: orders.length,
    ordersFilled: count('filled'),
    ordersCanceled: count('canceled'),
    ordersRejected: count('rejected'),
    ordersOpen: orders.filter(
      (o) => o.status !== 'filled' && o.status !== 'canceled' && o.status !== 'rejected',
    ).length,
    fills: fills.length,
    volume: pnl.volume,
    feesPaid: pnl.fees,
    realizedPnl: pnl.realizedPnl,
    unrealizedPnl: pnl.unrealizedPnl,
    netPnl: pnl.netPnl,
    positions,
    refusals: refusalCounts,
    requestsByEndpoint: { ...m.requestsByEndpoint },
    weightUsed: m.weightUsed,
    rateLimited: m.rateLimited,
    tradingState: engine.tradingState(),
  };

  const tickerAt = (symbol: string, at: number): Ticker | undefined => {
    const list = history.get(symbolId(symbol)) ?? [];
    let lo = 0;
    let hi = list.length - 1;
    let found: Ticker | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const t = list[mid] as SeenTicker;
      if (t.t <= at) {
        found = t.ticker;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };

  return Object.freeze({
    strategy: { id, ...meta },
    orders,
    fills,
    intents,
    refusals,
    events: [...session.events],
    ...(disabled !== undefined ? { disabled } : {}),
    summary,
    tickerAt,
  });
}
