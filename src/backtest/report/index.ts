// The backtest report: everything a run writes, computed purely from its RunRecord.
//   buildReport(record, opts)        → the three files' text and the summary (no I/O but reading the
//                                      inlined chart library and page script)
//   writeReport(dir, record, opts)   → writes report.json, fills.csv, trades.csv, report.html atomically
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { buildChartData, type ChartOptions } from './chart-data.ts';
import { renderFillsCsv, renderTradesCsv } from './csv.ts';
import { reportFills } from './fills.ts';
import { renderReportHtml } from './html.ts';
import { buildReportJson, renderReportJson } from './json.ts';
import { breakdownRows, headlines, pageHeader, priceDecimals, returnsTable, tradeRows } from './page-data.ts';
import { summarizeJoined, type Summary, type SummaryOptions } from './summary.ts';
import { summaryRows } from './table.ts';
import { buildTrades } from './trades.ts';
import type { RunRecord } from './types.ts';

export type { RunRecord, RunInfo, RunStrategy, EquitySample, PricePoint, DisabledStrategy } from './types.ts';
export type { Summary, SummaryOptions } from './summary.ts';
export type { ChartOptions } from './chart-data.ts';
export type { ReportJson, ReportJsonTrade } from './json.ts';
export type { Trade, TradeSide, ExitReason } from './trades.ts';
export { TradeBuilder, buildTrades } from './trades.ts';
export type { SummaryRow } from './table.ts';
export { summarize, DEFAULT_SHARPE_INTERVAL_MS } from './summary.ts';
export { summaryRows, renderSummaryText, disabledText } from './table.ts';
export { FILLS_CSV_COLUMNS, TRADES_CSV_COLUMNS } from './csv.ts';

export type ReportOptions = SummaryOptions & ChartOptions;

export const REPORT_FILES = {
  json: 'report.json',
  csv: 'fills.csv',
  tradesCsv: 'trades.csv',
  html: 'report.html',
} as const;

export interface BuiltReport {
  readonly summary: Summary;
  readonly json: string;
  readonly csv: string;
  readonly tradesCsv: string;
  readonly html: string;
}

export interface WrittenReport {
  readonly summary: Summary;
  /** Absolute or relative paths (as `dir` was given) of the files written. */
  readonly files: {
    readonly json: string;
    readonly csv: string;
    readonly tradesCsv: string;
    readonly html: string;
  };
}

/** The report's three texts and its summary (deterministic: same record and options, same bytes). */
export function buildReport(record: RunRecord, opts: ReportOptions = {}): BuiltReport {
  const fills = reportFills(record.fills, record.orders);
  const trades = buildTrades(fills, record.run.lastTickTime);
  const summary = summarizeJoined(record, fills, trades, opts);
  const report = buildReportJson(record, summary, fills, trades);
  const charts = buildChartData(record, fills, summary, opts);
  return {
    summary,
    json: renderReportJson(report),
    csv: renderFillsCsv(fills),
    tradesCsv: renderTradesCsv(trades),
    html: renderReportHtml({
      run: report.run,
      header: pageHeader(report.run),
      headlines: headlines(summary),
      summaryRows: summaryRows(summary),
      returns: returnsTable(record, summary),
      breakdown: breakdownRows(summary),
      trades: tradeRows(
        report.trades,
        (symbol) =>
          priceDecimals(record, symbol, charts.symbols.find((c) => c.symbol === symbol)?.precision ?? 2),
        record.run.lastTickTime,
      ),
      charts,
    }),
  };
}

let tmpSequence = 0;

/** Writes `text` to `path` through a temporary file and a rename, so readers never see half a file. */
async function writeAtomically(path: string, text: string): Promise<void> {
  // Unique per process, thread and call: sweep workers are threads of one process.
  const tmp = `${path}.${process.pid}-${threadId}-${tmpSequence++}.tmp`;
  try {
    await writeFile(tmp, text, 'utf8');
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Builds the report and writes report.json, fills.csv, trades.csv and report.html into `dir` (created if needed). */
export async function writeReport(
  dir: string,
  record: RunRecord,
  opts: ReportOptions = {},
): Promise<WrittenReport> {
  const built = buildReport(record, opts);
  await mkdir(dir, { recursive: true });
  const files = {
    json: join(dir, REPORT_FILES.json),
    csv: join(dir, REPORT_FILES.csv),
    tradesCsv: join(dir, REPORT_FILES.tradesCsv),
    html: join(dir, REPORT_FILES.html),
  };
  await writeAtomically(files.json, built.json);
  await writeAtomically(files.csv, built.csv);
  await writeAtomically(files.tradesCsv, built.tradesCsv);
  await writeAtomically(files.html, built.html);
  return { summary: built.summary, files };
}
