// The two pictures a chaos run compares: the runner's SQLite store (opened read-only) and the
// simulator's inspection API (/sim/v1/orders, /sim/v1/fills, /sim/v1/plans, /sim/v1/stats). Both are parsed with zod
// into the plain rows ./compare.ts works on; decimals stay strings.
import Database from 'better-sqlite3';
import { z } from 'zod';

export interface StoreOrderRow {
  readonly clientOid: string;
  readonly orderId: string | null;
  readonly symbol: string;
  readonly status: string;
  readonly size: string;
  readonly filledQty: string;
  /** Sum of the sizes of the fills applied to the order (null = none). */
  readonly fillsQty: string | null;
  readonly reason: string | null;
  /** Set for a plan (trigger) order. */
  readonly triggerPrice: string | null;
  /** A plan's own exchange id once its child is linked (`orderId` is then the child's). */
  readonly planOrderId: string | null;
}

export interface StoreFillRow {
  readonly tradeId: string;
  readonly orderId: string;
  readonly clientOid: string | null;
  readonly size: string;
  readonly value: string;
}

export interface JournalSummary {
  readonly total: number;
  /** By intent kind (place, cancel, cancelAll). */
  readonly byKind: Readonly<Record<string, number>>;
  /** By outcome (approved, refused:...). */
  readonly byOutcome: Readonly<Record<string, number>>;
}

export interface StoreSnapshot {
  readonly orders: readonly StoreOrderRow[];
  readonly fills: readonly StoreFillRow[];
  readonly journal: JournalSummary;
}

const orderRow = z.object({
  client_oid: z.string(),
  order_id: z.string().nullable(),
  symbol: z.string(),
  status: z.string(),
  size: z.string(),
  filled_qty: z.string(),
  fills_qty: z.string().nullable(),
  reason: z.string().nullable(),
  trigger_price: z.string().nullable(),
  plan_order_id: z.string().nullable(),
});

const fillRow = z.object({
  trade_id: z.string(),
  order_id: z.string(),
  client_oid: z.string().nullable(),
  size: z.string(),
  value: z.string(),
});

const journalRow = z.object({ intent: z.string(), outcome: z.string(), n: z.number() });
const intentKind = z.object({ kind: z.string() });

function kindOf(intentJson: string): string {
  try {
    const r = intentKind.safeParse(JSON.parse(intentJson));
    return r.success ? r.data.kind : 'unparsable';
  } catch {
    return 'unparsable';
  }
}

/** Reads the store without writing to it (no lease, no migration). */
export function readStore(path: string): StoreSnapshot {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const orders = z
      .array(orderRow)
      .parse(
        db
          .prepare(
            'SELECT client_oid, order_id, symbol, status, size, filled_qty, fills_qty, reason, trigger_price, plan_order_id FROM orders',
          )
          .all(),
      )
      .map((r) => ({
        clientOid: r.client_oid,
        orderId: r.order_id,
        symbol: r.symbol,
        status: r.status,
        size: r.size,
        filledQty: r.filled_qty,
        fillsQty: r.fills_qty,
        reason: r.reason,
        triggerPrice: r.trigger_price,
        planOrderId: r.plan_order_id,
      }));
    const fills = z
      .array(fillRow)
      .parse(db.prepare('SELECT trade_id, order_id, client_oid, size, value FROM fills').all())
      .map((r) => ({
        tradeId: r.trade_id,
        orderId: r.order_id,
        clientOid: r.client_oid,
        size: r.size,
        value: r.value,
      }));
    const byKind: Record<string, number> = {};
    const byOutcome: Record<string, number> = {};
    let total = 0;
    const rows = z
      .array(journalRow)
      .parse(
        db
          .prepare('SELECT intent, outcome, COUNT(*) AS n FROM intent_journal GROUP BY intent, outcome')
          .all(),
      );
    for (const r of rows) {
      total += r.n;
      const kind = kindOf(r.intent);
      byKind[kind] = (byKind[kind] ?? 0) + r.n;
      byOutcome[r.outcome] = (byOutcome[r.outcome] ?? 0) + r.n;
    }
    return { orders, fills, journal: { total, byKind, byOutcome } };
  } finally {
    db.close();
  }
}

// --- the simulator's inspection API -------------------------------------------------------------

export interface ExchangeOrderRow {
  readonly clientOid: string;
  readonly orderId: string;
  readonly symbol: string;
  readonly status: string;
  readonly size: string;
  readonly filledQty: string;
  /** Market time of the placement (epoch ms of the recording). */
  readonly createTime: number;
}

export interface ExchangeFillRow {
  readonly tradeId: string;
  readonly orderId: string;
  readonly symbol: string;
  readonly size: string;
  readonly value: string;
  /** Market time of the fill (epoch ms of the recording). */
  readonly createdTime: number;
}

/** How far a plan got at the venue. */
export type PlanState = 'untriggered' | 'triggered' | 'failed' | 'canceled' | 'expired';

export interface ExchangePlanRow {
  readonly clientOid: string;
  /** The plan's own order id. */
  readonly orderId: string;
  readonly symbol: string;
  /** triggered = fired with a child order; failed = fired, its child refused. */
  readonly state: PlanState;
  readonly childOrderId: string | null;
  /** Market time it fired (null = never). */
  readonly triggerTime: number | null;
  readonly createTime: number;
  readonly reason: string | null;
}

export interface SimStats {
  readonly faults: { readonly total: number; readonly byKind: Readonly<Record<string, number>> };
  readonly requests: number;
  readonly responses429: number;
  /** Market time of the simulator when the stats were read. */
  readonly marketTime: number;
}

export interface ExchangeSnapshot {
  readonly orders: readonly ExchangeOrderRow[];
  readonly fills: readonly ExchangeFillRow[];
  readonly plans: readonly ExchangePlanRow[];
  readonly stats: SimStats;
}

const idText = z.union([z.string(), z.number().transform(String)]);
const wireOrder = z.object({
  client_oid: z.string().nullable(),
  order_id: idText,
  symbol: z.string(),
  status: z.string(),
  size: z.string(),
  filled_qty: z.string(),
  createTime: z.union([z.number(), z.string().transform(Number)]),
});
const wireFill = z.object({
  tradeId: idText,
  orderId: idText,
  symbol: z.string(),
  fillSize: z.string(),
  fillValue: z.string(),
  createdTime: z.union([z.number(), z.string().transform(Number)]),
});
// A /sim/v1/plans row: the historyPlan row (status as documented codes or live words) plus the
// simulator's links (childOrderId, reason).
const wirePlan = z.object({
  client_oid: z.string().nullable(),
  order_id: idText,
  symbol: z.string(),
  status: z.string(),
  createTime: z.union([z.number(), z.string().transform(Number)]),
  triggerTime: z.union([z.number(), z.string()]),
  childOrderId: idText.optional(),
  reason: z.string().optional(),
});

/** The state of a plan row: fired or not by its trigger time, then its child, status and reason. */
export function planState(p: {
  readonly status: string;
  readonly triggerTime: number | null;
  readonly childOrderId: string | null;
  readonly reason: string | null;
}): PlanState {
  if (p.triggerTime !== null) return p.childOrderId !== null ? 'triggered' : 'failed';
  if (p.status === '0' || p.status.toUpperCase() === 'UNTRIGGERED') return 'untriggered';
  return p.reason !== null && /expired/i.test(p.reason) ? 'expired' : 'canceled';
}

const wireStats = z.object({
  requests: z.object({ total: z.number() }),
  responses429: z.number(),
  faults: z.object({ total: z.number(), byKind: z.record(z.string(), z.number()) }),
  market: z.object({ time: z.number() }),
});

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return res.json();
}

export async function readExchange(baseUrl: string): Promise<ExchangeSnapshot> {
  // Stats first: its market time bounds what the orders and fills read right after may contain.
  const stats = wireStats.parse(await getJson(`${baseUrl}/sim/v1/stats`));
  const orders = z.array(wireOrder).parse(await getJson(`${baseUrl}/sim/v1/orders`));
  const fills = z.array(wireFill).parse(await getJson(`${baseUrl}/sim/v1/fills`));
  const plans = z.array(wirePlan).parse(await getJson(`${baseUrl}/sim/v1/plans`));
  return {
    orders: orders.map((o) => ({
      clientOid: o.client_oid ?? '',
      orderId: o.order_id,
      symbol: o.symbol,
      status: o.status,
      size: o.size,
      filledQty: o.filled_qty,
      createTime: o.createTime,
    })),
    fills: fills.map((f) => ({
      tradeId: f.tradeId,
      orderId: f.orderId,
      symbol: f.symbol,
      size: f.fillSize,
      value: f.fillValue,
      createdTime: f.createdTime,
    })),
    plans: plans.map((p) => {
      const triggerTime = p.triggerTime === '' ? null : Number(p.triggerTime);
      const childOrderId = p.childOrderId ?? null;
      const reason = p.reason ?? null;
      return {
        clientOid: p.client_oid ?? '',
        orderId: p.order_id,
        symbol: p.symbol,
        state: planState({ status: p.status, triggerTime, childOrderId, reason }),
        childOrderId,
        triggerTime,
        createTime: p.createTime,
        reason,
      };
    }),
    stats: {
      faults: stats.faults,
      requests: stats.requests.total,
      responses429: stats.responses429,
      marketTime: stats.market.time,
    },
  };
}

/** Market time of the simulator now. */
export async function readMarketTime(baseUrl: string): Promise<number> {
  return wireStats.parse(await getJson(`${baseUrl}/sim/v1/stats`)).market.time;
}
