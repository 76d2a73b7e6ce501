// report.json: { run, summary, equityCurve, fills, trades } (ARCHITECTURE.md, "Report"). Built in a fixed key
// order and written by canonicalJson, so the same RunRecord gives the same bytes; no wall-clock value.
import { canonicalJson, canonicalJsonAt, sortKeysDeep } from './canonical-json.ts';
import type { ReportFill } from './fills.ts';
import { money } from './format.ts';
import type { Summary } from './summary.ts';
import type { Trade } from './trades.ts';
import type { TextSink } from './text-sink.ts';
import type { RunFacts } from './types.ts';

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

export function jsonRun(record: RunFacts): ReportJsonRun {
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

function jsonEquityCurve(record: RunFacts): ReportJsonEquityPoint[] {
  return record.equity.map((s) => ({
    t: s.t,
    equity: money(s.equity),
    realized: money(s.realized),
    unrealized: money(s.unrealized),
  }));
}

/** The report as a value (fills already joined and sorted by reportFills). */
export function buildReportJson(
  record: RunFacts,
  summary: Summary,
  fills: readonly ReportFill[],
  trades: readonly Trade[],
): ReportJson {
  return {
    run: jsonRun(record),
    summary,
    equityCurve: jsonEquityCurve(record),
    fills: fills.map(jsonFill),
    trades: trades.map(jsonTrade),
  };
}

/** The text of report.json (ends with a newline). */
export function renderReportJson(report: ReportJson): string {
  return canonicalJson(report) + '\n';
}

/**
 * report.json written in parts, in its key order — `head` (run, summary, equity curve), each fill,
 * `startTrades`, each trade, `end` — without holding the fills or the trades: the same bytes as
 * renderReportJson(buildReportJson(…)) for the same parts (canonicalJson's layout, put together).
 */
export class ReportJsonWriter {
  readonly #out: TextSink;
  #items = 0;
  #array = '';

  constructor(out: TextSink) {
    this.#out = out;
  }

  head(record: RunFacts, summary: Summary): void {
    const at = (v: unknown, key: string): string => canonicalJsonAt(v, '  ', `$.${key}`);
    this.#out.write(
      `{\n  "run": ${at(jsonRun(record), 'run')},\n  "summary": ${at(summary, 'summary')},\n` +
        `  "equityCurve": ${at(jsonEquityCurve(record), 'equityCurve')},\n  "fills": `,
    );
    this.#startArray('fills');
  }

  fill(f: ReportFill): void {
    this.#item(jsonFill(f));
  }

  startTrades(): void {
    this.#endArray();
    this.#out.write(',\n  "trades": ');
    this.#startArray('trades');
  }

  trade(t: ReportJsonTrade): void {
    this.#item(t);
  }

  end(): void {
    this.#endArray();
    this.#out.write('\n}\n');
  }

  #startArray(key: string): void {
    this.#array = key;
    this.#items = 0;
  }

  #item(v: unknown): void {
    const text = canonicalJsonAt(v, '    ', `$.${this.#array}[${this.#items}]`);
    this.#out.write(`${this.#items === 0 ? '[\n' : ',\n'}    ${text}`);
    this.#items++;
  }

  #endArray(): void {
    this.#out.write(this.#items === 0 ? '[]' : '\n  ]');
  }
}
