// The backtest report: everything a run writes, computed purely from its record.
//   buildReport(record, opts)        → the four files' text and the summary (no I/O but reading the
//                                      inlined chart library and page script)
//   writeReport(dir, run, opts)      → writes report.json, fills.csv, trades.csv, report.html, each
//                                      through a temporary file renamed once complete; `run` is a
//                                      RunRecord or a long backtest's SpooledRun (its rows in a
//                                      temporary database): the report streams from it either way
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { countOrders, type OrderCounts } from './order-counts.ts';
import { MemoryRows, type ReportRows } from './report-rows.ts';
import { summarizeRows, writeReportParts, type ReportOptions, type ReportSinks } from './report-writer.ts';
import type { SpooledRows } from './spooled-rows.ts';
import type { Summary, SummaryOptions } from './summary.ts';
import { FileSink, StringSink } from './text-sink.ts';
import type { RunFacts, RunRecord } from './types.ts';

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

export type { ReportOptions } from './report-writer.ts';
export type { RunFacts } from './types.ts';
export { SpooledRows } from './spooled-rows.ts';

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

/**
 * A backtest's run with its fills and orders spooled out of memory (runSpooledBacktest): the facts,
 * the counts over every order, and the rows. `rows.close()` removes the spool.
 */
export interface SpooledRun {
  readonly facts: RunFacts;
  readonly orderCounts: OrderCounts;
  readonly rows: SpooledRows;
}

function isSpooled(run: RunRecord | SpooledRun): run is SpooledRun {
  return 'rows' in run;
}

function partsOf(run: RunRecord | SpooledRun): {
  facts: RunFacts;
  counts: OrderCounts;
  rows: ReportRows;
} {
  if (isSpooled(run)) return { facts: run.facts, counts: run.orderCounts, rows: run.rows };
  return { facts: run, counts: run.orderCounts ?? countOrders(run.orders), rows: new MemoryRows(run) };
}

/** The run's summary alone, as its report gives it (a sweep's row). */
export function summarizeRun(run: RunRecord | SpooledRun, opts: SummaryOptions = {}): Summary {
  const { facts, counts, rows } = partsOf(run);
  return summarizeRows(facts, counts, rows, opts);
}

/** The report's four texts and its summary (deterministic: same record and options, same bytes). */
export function buildReport(run: RunRecord | SpooledRun, opts: ReportOptions = {}): BuiltReport {
  const { facts, counts, rows } = partsOf(run);
  const sinks = {
    json: new StringSink(),
    csv: new StringSink(),
    tradesCsv: new StringSink(),
    html: new StringSink(),
  };
  const summary = writeReportParts(facts, counts, rows, sinks, opts);
  return {
    summary,
    json: sinks.json.text(),
    csv: sinks.csv.text(),
    tradesCsv: sinks.tradesCsv.text(),
    html: sinks.html.text(),
  };
}

/**
 * Writes report.json, fills.csv, trades.csv and report.html into `dir` (created if needed), streaming
 * them from the run's rows; each file appears complete or not at all.
 */
export async function writeReport(
  dir: string,
  run: RunRecord | SpooledRun,
  opts: ReportOptions = {},
): Promise<WrittenReport> {
  const { facts, counts, rows } = partsOf(run);
  /** The first folder made here (undefined when `dir` existed): removed again if the report fails. */
  const made = await mkdir(dir, { recursive: true });
  const files = {
    json: join(dir, REPORT_FILES.json),
    csv: join(dir, REPORT_FILES.csv),
    tradesCsv: join(dir, REPORT_FILES.tradesCsv),
    html: join(dir, REPORT_FILES.html),
  };
  const opened: FileSink[] = [];
  const open = (path: string): FileSink => {
    const sink = new FileSink(path);
    opened.push(sink);
    return sink;
  };
  try {
    const sinks: ReportSinks = {
      json: open(files.json),
      csv: open(files.csv),
      tradesCsv: open(files.tradesCsv),
      html: open(files.html),
    };
    const summary = writeReportParts(facts, counts, rows, sinks, opts);
    for (const sink of opened) sink.commit();
    return { summary, files };
  } catch (e) {
    // Every sink, whatever one of them throws: the report's own error is the one to report.
    for (const sink of opened) {
      try {
        sink.abort();
      } catch {
        // its temporary file stays; the folder below may then stay too
      }
    }
    if (made !== undefined) await rm(made, { recursive: true, force: true });
    throw e;
  }
}
