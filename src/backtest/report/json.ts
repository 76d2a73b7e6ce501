// report.json: { run, summary, equityCurve, fills, trades } (ARCHITECTURE.md, "Report"). Built in a fixed key
// order and written by canonicalJson, so the same RunRecord gives the same bytes; no wall-clock value.
import { canonicalJson, sortKeysDeep } from './canonical-json.ts';
import type { ReportFill } from './fills.ts';
import { money } from './format.ts';
import type { Summary } from './summary.ts';
import type { Trade } from './trades.ts';
import type { RunRecord } from './types.ts';

export interface ReportJsonRun {
  readonly strategies: readonly { readonly id: string; readonly file: string; readonly params: unknown }[];
  readonly data: string;
  readonly firstTickTime: number;
  readonly lastTickTime: number;
  readonly tickers: number;
  readonly symbols?: readonly string[];
}

export interface ReportJsonEquityPoint {
  readonly t: number;
  readonly equity: string;
  readonly realized: string;
  readonly unrealized: string;
}

export interface ReportJsonFill {
  readonly tradeId: string;
  readonly orderId: string;
  readonly clientOid: string | null;
  readonly strategy: string | null;
  readonly symbol: string;
  readonly side: string;
  readonly positionSide: string;
  readonly orderSide: string;
  readonly direction: string;
  readonly time: number;
  readonly price: string;
  readonly size: string;
  readonly value: string;
  readonly fee: string;
  readonly realizedPnl: string;
}

export interface ReportJsonTrade {
  readonly strategy: string | null;
  readonly symbol: string;
  readonly side: string;
  readonly entryTime: number;
  readonly exitTime: number | null;
  readonly size: string;
  readonly openSize: string;
  readonly entryPrice: string | null;
  readonly exitPrice: string | null;
  readonly pnl: string;
  readonly fees: string;
  readonly netPnl: string;
  readonly durationMs: number;
  readonly exitReason: string;
  readonly fills: number;
}

export interface ReportJson {
  readonly run: ReportJsonRun;
  readonly summary: Summary;
  readonly equityCurve: readonly ReportJsonEquityPoint[];
  readonly fills: readonly ReportJsonFill[];
  readonly trades: readonly ReportJsonTrade[];
}

export function jsonTrade(t: Trade): ReportJsonTrade {
  return {
    strategy: t.strategy,
    symbol: t.symbol,
    side: t.side,
    entryTime: t.entryTime,
    exitTime: t.exitTime,
    size: money(t.size),
    openSize: money(t.openSize),
    entryPrice: t.entryPrice === null ? null : money(t.entryPrice),
    exitPrice: t.exitPrice === null ? null : money(t.exitPrice),
    pnl: money(t.pnl),
    fees: money(t.fees),
    netPnl: money(t.netPnl),
    durationMs: t.durationMs,
    exitReason: t.exitReason,
    fills: t.fills,
  };
}

export function jsonFill(f: ReportFill): ReportJsonFill {
  return {
    tradeId: f.tradeId,
    orderId: f.orderId,
    clientOid: f.clientOid ?? null,
    strategy: f.strategy ?? null,
    symbol: f.symbol,
    side: f.side,
    positionSide: f.positionSide,
    orderSide: f.orderSide,
    direction: f.direction,
    time: f.createdTime,
    price: money(f.price),
    size: money(f.size),
    value: money(f.value),
    fee: money(f.fee),
    realizedPnl: money(f.realizedPnl),
  };
}

export function jsonRun(record: RunRecord): ReportJsonRun {
  const { run } = record;
  return {
    strategies: run.strategies.map((s) => ({ id: s.id, file: s.file, params: sortKeysDeep(s.params) })),
    data: run.data,
    firstTickTime: run.firstTickTime,
    lastTickTime: run.lastTickTime,
    tickers: run.tickers,
    ...(run.symbols !== undefined ? { symbols: [...run.symbols] } : {}),
  };
}

/** The report as a value (fills already joined and sorted by reportFills). */
export function buildReportJson(
  record: RunRecord,
  summary: Summary,
  fills: readonly ReportFill[],
  trades: readonly Trade[],
): ReportJson {
  return {
    run: jsonRun(record),
    summary,
    equityCurve: record.equity.map((s) => ({
      t: s.t,
      equity: money(s.equity),
      realized: money(s.realized),
      unrealized: money(s.unrealized),
    })),
    fills: fills.map(jsonFill),
    trades: trades.map(jsonTrade),
  };
}

/** The text of report.json (ends with a newline). */
export function renderReportJson(report: ReportJson): string {
  return canonicalJson(report) + '\n';
}
