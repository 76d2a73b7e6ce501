// The spooled rows (a temporary SQLite database) give the report what the in-memory path gives: the
// same joined fills in the same order as reportFills, trades back by entry time as a stable sort
// would, and so the same four files, byte for byte (issue #24: a backtest's report streams).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildReport, type SpooledRun } from '../../../src/backtest/report/index.ts';
import { countOrders } from '../../../src/backtest/report/order-counts.ts';
import { reportFills, type ReportFill } from '../../../src/backtest/report/fills.ts';
import { MemoryTradeSpool } from '../../../src/backtest/report/report-rows.ts';
import { SpooledRows } from '../../../src/backtest/report/spooled-rows.ts';
import { buildTrades, type Trade } from '../../../src/backtest/report/trades.ts';
import type { RunRecord } from '../../../src/backtest/report/types.ts';
import { dec } from '../../../src/core/decimal.ts';
import { StoreError } from '../../../src/core/errors.ts';
import { clientOid, orderId, strategyId, symbolId, tradeId } from '../../../src/core/ids.ts';
import { ORDER_SIDES, type Order } from '../../../src/core/orders.ts';
import type { StoredFill } from '../../../src/store/port.ts';
import { ORDER_DATA_COLUMNS, fillValues, orderValues } from '../../../src/store/rows.ts';
import { MarkerPicks, buildChartData } from '../../../src/backtest/report/chart-data.ts';
import { pickEvenly } from '../../../src/backtest/report/downsample.ts';
import { buildReportJson, jsonRun, renderReportJson } from '../../../src/backtest/report/json.ts';
import { isoTime } from '../../../src/backtest/report/format.ts';
import {
  BREAKDOWN_COLUMNS,
  TRADE_COLUMNS,
  breakdownRows,
  headlines,
  pageHeader,
  priceDecimals,
  returnsTable,
  tradeRows,
} from '../../../src/backtest/report/page-data.ts';
import { summarize } from '../../../src/backtest/report/summary.ts';
import { summaryRows } from '../../../src/backtest/report/table.ts';
import { hostileRecord } from './hostile.ts';
import { roundTrip, T0 } from './fixtures.ts';

const money = fc
  .tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 4 }))
  .map(([n, k]) =>
    dec(k === 0 ? String(n) : `${Math.floor(n / 10 ** k)}.${String(n % 10 ** k).padStart(k, '0')}`),
  );
const positive = fc.integer({ min: 1, max: 9_999 }).map((n) => dec(`${n}.5`));
// Lone surrogates and characters beyond the BMP too: the spool must keep every string and order
// client_oids as JavaScript does (code units), not as UTF-8 bytes.
const oidPool = fc.constantFrom('c0', 'c1', 'c2', 'c3', 'c-none', 'a\u{10000}', 'a\u{ffff}', 'c\ud800');
const idPool = fc.constantFrom('100', '101', '102', '103', '999', '1\udc00');

const anOrder = fc.record({
  oid: oidPool,
  id: fc.option(idPool, { nil: undefined }),
  strategy: fc.constantFrom('s1', 's2', 's\ud800'),
  side: fc.constantFrom(...ORDER_SIDES),
  trigger: fc.option(positive, { nil: undefined }),
  at: fc.integer({ min: 0, max: 5 }),
  status: fc.constantFrom('filled', 'canceled', 'rejected', 'open'),
});

const aFill = fc.record({
  oid: fc.option(oidPool, { nil: undefined }),
  id: idPool,
  symbol: fc.constantFrom('cmt_btcusdt', 'cmt_ethusdt', 'cmt_\udfffusdt'),
  // Sides readable from the fill itself, for a fill that matches no order.
  direction: fc.constantFrom('OPEN_LONG', 'CLOSE_LONG', 'OPEN_SHORT', 'CLOSE_SHORT'),
  size: positive,
  value: positive,
  fee: money,
  pnl: money,
  t: fc.integer({ min: 0, max: 6 }),
});

function records(): fc.Arbitrary<RunRecord> {
  return fc
    .record({ orders: fc.array(anOrder, { maxLength: 10 }), fills: fc.array(aFill, { maxLength: 25 }) })
    .map(({ orders, fills }) => {
      const base = roundTrip();
      return {
        ...base,
        orders: orders.map((o): Order => ({
          clientOid: clientOid(o.oid),
          ...(o.id !== undefined ? { orderId: orderId(o.id) } : {}),
          strategy: strategyId(o.strategy),
          symbol: symbolId('cmt_btcusdt'),
          side: o.side,
          orderType: 'normal',
          size: dec('1'),
          ...(o.trigger !== undefined ? { triggerPrice: o.trigger } : {}),
          status: o.status,
          filledQty: dec('0'),
          createdAt: T0 + o.at,
          updatedAt: T0 + o.at,
        })),
        fills: fills.map((f, i): StoredFill => ({
          tradeId: tradeId(String(5000 + i)),
          orderId: orderId(f.id),
          ...(f.oid !== undefined ? { clientOid: clientOid(f.oid) } : {}),
          symbol: symbolId(f.symbol),
          positionSide: 'LONG',
          orderSide: 'BUY',
          direction: f.direction,
          size: f.size,
          value: f.value,
          fee: f.fee,
          realizedPnl: f.pnl,
          createdTime: T0 + 60_000 * f.t,
        })),
      };
    });
}

/** A fill as plain text values, Dec fields by their exact text. */
function plain(f: ReportFill): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(f).map(([k, v]) => [
      k,
      typeof v === 'object' && v !== null ? (v as { toFixed(): string }).toFixed() : v,
    ]),
  );
}

/** The fills a spool gives back, as plain values; the spool is closed. */
function readFills(rows: SpooledRows): Record<string, unknown>[] {
  try {
    const out: Record<string, unknown>[] = [];
    rows.forEachFill((f) => out.push(plain(f)));
    return out;
  } finally {
    rows.close();
  }
}

function spooled(record: RunRecord): SpooledRun {
  const rows = SpooledRows.fromRecord(record);
  return { facts: record, orderCounts: rows.orderCounts, rows };
}

describe('SpooledRows', () => {
  it('joins and orders the fills as reportFills does, for any orders and fills', () => {
    fc.assert(
      fc.property(records(), (record) => {
        expect(readFills(SpooledRows.fromRecord(record))).toEqual(
          reportFills(record.fills, record.orders).map(plain),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('counts every order, as countOrders does', () => {
    fc.assert(
      fc.property(records(), (record) => {
        const rows = SpooledRows.fromRecord(record);
        rows.close();
        expect(rows.orderCounts).toEqual(countOrders(record.orders));
      }),
      { numRuns: 100 },
    );
  });

  it('gives trades back by entry time, ties in the order added, every field intact', () => {
    fc.assert(
      fc.property(records(), (record) => {
        const trades = buildTrades(
          reportFills(record.fills, record.orders),
          record.run.lastTickTime,
        ).reverse();
        const rows = SpooledRows.fromRecord(record);
        const memory = new MemoryTradeSpool();
        const disk = rows.tradeSpool();
        for (const t of trades) {
          memory.add(t);
          disk.add(t);
        }
        const read = (spool: { forEach(each: (t: Trade) => void): void }): unknown[] => {
          const out: unknown[] = [];
          spool.forEach((t) => out.push(JSON.stringify(t)));
          return out;
        };
        try {
          expect(read(disk)).toEqual(read(memory));
          expect(read(disk)).toEqual(read(memory)); // read again: the same
        } finally {
          rows.close();
        }
      }),
      { numRuns: 200 },
    );
  });

  it('writes the same four files as the in-memory record, byte for byte', () => {
    fc.assert(
      fc.property(records(), (record) => {
        const run = spooled(record);
        try {
          expect(buildReport(run)).toEqual(buildReport(record));
        } finally {
          run.rows.close();
        }
      }),
      { numRuns: 60 },
    );
    for (const record of [roundTrip(), hostileRecord()]) {
      const run = spooled(record);
      try {
        expect(buildReport(run)).toEqual(buildReport(record));
      } finally {
        run.rows.close();
      }
    }
  });
});

describe('the streamed writers', () => {
  it('pick the markers pickEvenly picks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: -1, max: 40 }), (n, max) => {
        const items = Array.from({ length: n }, (_, i) => i);
        const picks = new MarkerPicks(n, max);
        expect(items.filter((i) => picks.picks(i))).toEqual(pickEvenly(items, max));
        expect(picks.shown).toBe(pickEvenly(items, max).length);
      }),
    );
  });

  it('write report.json as canonicalJson writes the whole report, and report.html with the whole page data', () => {
    fc.assert(
      fc.property(records(), (record) => {
        const built = buildReport(record);
        const fills = reportFills(record.fills, record.orders);
        const trades = buildTrades(fills, record.run.lastTickTime);
        const summary = summarize(record);
        const report = buildReportJson(record, summary, fills, trades);
        expect(built.json).toBe(renderReportJson(report));
        const charts = buildChartData(record, fills, summary);
        const run = jsonRun(record);
        const data = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(
          built.html,
        )?.[1];
        expect(JSON.parse(data ?? 'null')).toEqual(
          JSON.parse(
            JSON.stringify({
              run: {
                ...run,
                firstTickIso: isoTime(run.firstTickTime),
                lastTickIso: isoTime(run.lastTickTime),
              },
              header: pageHeader(run),
              headlines: headlines(summary),
              summaryRows: summaryRows(summary),
              returns: returnsTable(record, summary),
              breakdownColumns: BREAKDOWN_COLUMNS,
              breakdown: breakdownRows(summary),
              tradeColumns: TRADE_COLUMNS,
              trades: tradeRows(
                report.trades,
                (symbol) =>
                  priceDecimals(
                    record,
                    symbol,
                    charts.symbols.find((c) => c.symbol === symbol)?.precision ?? 2,
                  ),
                record.run.lastTickTime,
              ),
              charts,
            }),
          ),
        );
      }),
      { numRuns: 60 },
    );
  });
});

describe('SpooledRows keys', () => {
  const base = roundTrip();
  const anOrderWith = (oid: string, id: string, strategy: string): Order => ({
    ...base.orders[0]!,
    clientOid: clientOid(oid),
    orderId: orderId(id),
    strategy: strategyId(strategy),
    createdAt: T0,
  });
  const aFillOf = (oid: string | undefined, id: string): StoredFill => ({
    ...base.fills[0]!,
    orderId: orderId(id),
    ...(oid !== undefined ? { clientOid: clientOid(oid) } : {}),
  });
  const fromStore = (fills: StoredFill[], orders: Order[]): Record<string, unknown>[] =>
    readFills(
      SpooledRows.fromStore({
        forEachFillValues: (each) => fills.forEach((f, i) => each(fillValues(f), undefined, i)),
        forEachOrderValues: (each) => orders.forEach((o) => each(orderValues(o))),
      }),
    );

  it("orders a store's client_oids as JavaScript does (code units), beyond the BMP too", () => {
    // Same exchange order id and creation time: the fill without a client_oid takes the order last
    // by (createdAt, client_oid). In code units 'a\u{10000}' (a high surrogate) sorts before 'a\u{ffff}';
    // in UTF-8 bytes it sorts after.
    const orders = [anOrderWith('a\u{ffff}', '7', 's1'), anOrderWith('a\u{10000}', '7', 's2')];
    const fills = [aFillOf(undefined, '7')];
    const sorted = [...orders].sort((x, y) => (x.clientOid < y.clientOid ? -1 : 1));
    expect(fromStore(fills, orders)).toEqual(reportFills(fills, sorted).map(plain));
    expect(fromStore(fills, orders)[0]?.['strategy']).toBe('s1');
  });

  it('keeps lone surrogates apart (TEXT would turn both into U+FFFD)', () => {
    const orders = [anOrderWith('x\ud800', '1', 's1'), anOrderWith('x\ud801', '2', 's\udc00')];
    const fills = [aFillOf('x\ud801', '3'), aFillOf('x\ud800', '4')];
    const got = fromStore(fills, orders);
    expect(got.map((f) => f['strategy'])).toEqual(['s\udc00', 's1']);
    expect(got).toEqual(reportFills(fills, orders).map(plain));
  });
});

describe('SpooledRows from a store with a corrupt row', () => {
  const base = roundTrip();
  const order = base.orders[0]!;
  const plan: Order = { ...order, triggerPrice: dec('59000') };
  // A fill of the order, so that the spool copies the order's row (it copies only orders joined).
  const fill: StoredFill = { ...base.fills[0]!, clientOid: order.clientOid };
  const spool = (values: readonly unknown[]) => () =>
    SpooledRows.fromStore({
      forEachFillValues: (each) => each(fillValues(fill), undefined, 0),
      forEachOrderValues: (each) => each(values),
    }).close();
  const at = (column: (typeof ORDER_DATA_COLUMNS)[number]): number => ORDER_DATA_COLUMNS.indexOf(column);
  const broken = (o: Order, column: (typeof ORDER_DATA_COLUMNS)[number], v: unknown): unknown[] => {
    const values: unknown[] = orderValues(o);
    values[at(column)] = v;
    return values;
  };

  it('refuses it with a StoreError naming the value', () => {
    expect(spool(orderValues(order))).not.toThrow();
    expect(spool(broken(order, 'side', 'sideways'))).toThrow(
      /corrupt store: an order row of the report spool has side "sideways"/,
    );
    expect(spool(broken(order, 'status', 'lost?'))).toThrow(StoreError);
    expect(spool(broken(order, 'created_at', 'noon'))).toThrow(StoreError);
    expect(spool(broken(plan, 'filled_qty', '1x'))).toThrow(/has filled_qty "1x", not a decimal/);
    expect(spool(broken(plan, 'trigger_price', 'high'))).toThrow(/has trigger_price "high", not a decimal/);
    expect(spool(broken(plan, 'plan_order_id', 7))).toThrow(StoreError);
  });
});
