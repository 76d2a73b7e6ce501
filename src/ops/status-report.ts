// What `capibot status` shows, computed from the store alone (works while the runner is up or down):
// open orders, positions and PnL folded from the stored fills exactly as the engine folds them at
// start (src/engine/engine.ts #loadState), the trading state, the last reconciliation, the operator
// channel and the runner's last snapshot (weight budget, queue, PnL at the latest prices).
// Decimals are strings, ids are strings, times are epoch ms: the `--json` output is this object.
import { decToString, type Dec } from '../core/decimal.ts';
import type { ClientOid } from '../core/ids.ts';
import { isProtectivePlan } from '../core/intents.ts';
import { isTerminal, ORDER_STATUSES, type Order, type OrderStatus } from '../core/orders.ts';
import { averageEntry, positionsFromFills, summarize, type PositionFill } from '../core/positions.ts';
import { TRADING_STATE_META } from '../engine/trading-guard.ts';
import { RECONCILE_META } from '../reconcile/pollers.ts';
import { TRADING_STATES, type TradingState } from '../risk/trading-state.ts';
import { isCarryOrder } from '../store/carry.ts';
import type { OrderStore } from '../store/port.ts';
import {
  CONTROL_META,
  KillAckSchema,
  pendingKillRequest,
  readMetaJson,
  RunnerSnapshotSchema,
  type KillAck,
  type KillRequest,
  type RunnerSnapshot,
} from './control-protocol.ts';
import type { RunnerInfo } from './lease-info.ts';
import { readPruneRecord, type PruneRecord } from './prune.ts';

export interface StatusOrder {
  readonly clientOid: string;
  readonly orderId: string | null;
  readonly strategy: string;
  readonly symbol: string;
  readonly side: string;
  readonly orderType: string;
  readonly price: string | null;
  readonly size: string;
  readonly filledQty: string;
  readonly status: OrderStatus;
  /** A plan (trigger) order's trigger price; null for a regular order. */
  readonly triggerPrice: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface StatusPosition {
  /** null: fills not attributed to a capibot order (foreign or not yet matched). */
  readonly strategy: string | null;
  readonly symbol: string;
  readonly leg: 'long' | 'short';
  readonly qty: string;
  readonly avgEntry: string | null;
  readonly realizedPnl: string;
  readonly fees: string;
  readonly volume: string;
  readonly fills: number;
}

export interface StatusPnl {
  readonly realizedPnl: string;
  readonly fees: string;
  /** realised − fees (the store has no prices; see `runner.pnl` for the marked figures). */
  readonly realizedNet: string;
  readonly volume: string;
  readonly fills: number;
}

export interface StatusRunner {
  readonly state: RunnerInfo['state'];
  readonly pid?: number;
  readonly hostname?: string;
  readonly sameHost?: boolean;
  readonly acquiredAt?: number;
  readonly heartbeatAt?: number;
  readonly heartbeatAgeMs?: number;
  /** The runner's last snapshot (absent before its first one). */
  readonly snapshot?: RunnerSnapshot & { readonly ageMs: number };
}

export interface StatusReport {
  readonly store: string;
  readonly now: number;
  readonly tradingState: TradingState;
  /** Venue-clock time of the last reconciliation round that read order history (null: never). */
  readonly lastReconciledAt: number | null;
  readonly runner: StatusRunner;
  readonly openOrders: readonly StatusOrder[];
  /** Every order in the store, by status (statuses with none are left out; carry rows not counted). */
  readonly ordersByStatus: Readonly<Partial<Record<OrderStatus, number>>>;
  readonly positions: readonly StatusPosition[];
  readonly pnl: StatusPnl;
  /** Fills that could not be classified (leg/direction unknown): left out of the positions. */
  readonly skippedFills: readonly string[];
  /**
   * Plan orders: `total` / `untriggered` as last seen at the venue (historyPlan, currentPlan rows of
   * any origin); `resting` / `protective`: capibot's own plans waiting for their trigger.
   */
  readonly planOrders: {
    readonly total: number;
    readonly untriggered: number;
    readonly resting: number;
    readonly protective: number;
  };
  readonly kill: { readonly pending?: KillRequest; readonly lastAck?: KillAck };
  /** The last `capibot store prune` (absent if never): positions and PnL include what it carried. */
  readonly lastPrune?: PruneRecord;
}

const str = (d: Dec): string => decToString(d);

/** An order as `capibot status` and the web console show it (decimals as strings). */
export function statusOrder(o: Order): StatusOrder {
  return {
    clientOid: o.clientOid,
    orderId: o.orderId ?? null,
    strategy: o.strategy,
    symbol: o.symbol,
    side: o.side,
    orderType: o.orderType,
    price: o.price !== undefined ? str(o.price) : null,
    size: str(o.size),
    filledQty: str(o.filledQty),
    status: o.status,
    triggerPrice: o.triggerPrice !== undefined ? str(o.triggerPrice) : null,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}

function tradingStateOf(store: Pick<OrderStore, 'getMeta'>): TradingState {
  const saved = store.getMeta(TRADING_STATE_META);
  // The engine starts ACTIVE when nothing (or nothing valid) is saved.
  return saved !== undefined && (TRADING_STATES as readonly string[]).includes(saved)
    ? (saved as TradingState)
    : 'ACTIVE';
}

export interface StatusInput {
  readonly store: OrderStore;
  readonly path: string;
  readonly runner: RunnerInfo;
  /** Wall clock (epoch ms). */
  readonly now: number;
}

export function collectStatus(i: StatusInput): StatusReport {
  const { store } = i;
  const orders = store.allOrders();
  const byOid = new Map<ClientOid, Order>(orders.map((o) => [o.clientOid, o]));
  const ordersByStatus: Partial<Record<OrderStatus, number>> = {};
  // Carry rows of a prune stand for pruned fills (positions), not for orders anyone placed.
  const placed = orders.filter((o) => !isCarryOrder(o));
  for (const s of ORDER_STATUSES) {
    const n = placed.filter((o) => o.status === s).length;
    if (n > 0) ordersByStatus[s] = n;
  }

  // Attribution as the engine does it: a fill's client_oid names the order (strategy and side).
  const fills = store.allFills();
  const positionFills: PositionFill[] = fills.map((f) => {
    const o = f.clientOid !== undefined ? byOid.get(f.clientOid) : undefined;
    return {
      fill: f,
      ...(o !== undefined ? { strategy: o.strategy, orderSide: o.side } : {}),
    };
  });
  const { book, skipped } = positionsFromFills(positionFills);
  const positions: StatusPosition[] = [...book.values()]
    .map((p) => {
      const entry = averageEntry(p);
      return {
        strategy: p.strategy ?? null,
        symbol: p.symbol,
        leg: p.leg,
        qty: str(p.qty),
        avgEntry: entry !== undefined ? str(entry) : null,
        realizedPnl: str(p.realizedPnl),
        fees: str(p.fees),
        volume: str(p.volume),
        fills: p.fills,
      };
    })
    .sort(
      (a, b) =>
        (a.strategy ?? '').localeCompare(b.strategy ?? '') ||
        a.symbol.localeCompare(b.symbol) ||
        a.leg.localeCompare(b.leg),
    );
  const totals = summarize(book, () => undefined);

  const last = store.getMeta(RECONCILE_META.lastReconciledAt);
  const snapshot = readMetaJson((k) => store.getMeta(k), CONTROL_META.snapshot, RunnerSnapshotSchema);
  const holder = i.runner.holder;
  // A snapshot belongs to the runner shown only when it came from that runner's pid.
  const ownSnapshot =
    snapshot !== undefined && (holder === undefined || snapshot.pid === holder.pid) ? snapshot : undefined;
  const runner: StatusRunner = {
    state: i.runner.state,
    ...(holder !== undefined
      ? {
          pid: holder.pid,
          hostname: holder.hostname,
          acquiredAt: holder.acquiredAt,
          heartbeatAt: holder.heartbeatAt,
        }
      : {}),
    ...(i.runner.sameHost !== undefined ? { sameHost: i.runner.sameHost } : {}),
    ...(i.runner.heartbeatAgeMs !== undefined ? { heartbeatAgeMs: i.runner.heartbeatAgeMs } : {}),
    ...(ownSnapshot !== undefined
      ? { snapshot: { ...ownSnapshot, ageMs: Math.max(0, i.now - ownSnapshot.at) } }
      : {}),
  };
  const getMeta = (k: string): string | undefined => store.getMeta(k);
  const pending = pendingKillRequest(getMeta);
  const lastAck = readMetaJson(getMeta, CONTROL_META.killAck, KillAckSchema);
  const plans = store.planOrders?.() ?? [];
  const lastPrune = readPruneRecord(getMeta);

  return {
    store: i.path,
    now: i.now,
    tradingState: tradingStateOf(store),
    lastReconciledAt: last !== undefined && /^\d+$/.test(last) ? Number(last) : null,
    runner,
    openOrders: orders.filter((o) => !isTerminal(o.status)).map(statusOrder),
    ordersByStatus,
    positions,
    pnl: {
      realizedPnl: str(totals.realizedPnl),
      fees: str(totals.fees),
      realizedNet: str(totals.realizedPnl.minus(totals.fees)),
      volume: str(totals.volume),
      fills: fills.length,
    },
    skippedFills: skipped,
    planOrders: {
      total: plans.length,
      untriggered: plans.filter((p) => p.status === 'untriggered').length,
      resting: orders.filter((o) => o.status === 'untriggered').length,
      protective: orders.filter((o) => o.status === 'untriggered' && isProtectivePlan(o)).length,
    },
    kill: {
      ...(pending !== undefined ? { pending } : {}),
      ...(lastAck !== undefined ? { lastAck } : {}),
    },
    ...(lastPrune !== undefined ? { lastPrune } : {}),
  };
}
