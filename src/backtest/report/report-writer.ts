// The report written as the run's rows pass (ReportRows: a RunRecord's arrays or a long backtest's
// spooled rows): report.json, fills.csv, trades.csv and report.html go to their sinks part by part,
// and the summary is computed as the fills and trades go by. Nothing here holds the fills or the
// trades: what it keeps is bounded by the strategies, symbols and chart sizes (issue #24).
//
// The passes, in order:
//   1. every fill: fills.csv, the summary's fill figures, the chart's counts, the trades (closed
//      ones into the spool as they close; then the trades still open at the end);
//   2. every trade (by entry time): the summary's trade figures; the summary is complete;
//   3. every fill again: report.json's fills (after its run, summary and equity curve), the markers;
//   4. every trade again: report.json's and trades.csv's trades, report.html's trade rows (after its
//      head, before its charts).
import { csvRow, fillCsvRow, FILLS_CSV_COLUMNS, TRADES_CSV_COLUMNS, tradeCsvRow } from './csv.ts';
import { ChartBuilder, type ChartOptions } from './chart-data.ts';
import { ReportHtmlWriter } from './html.ts';
import { jsonRun, jsonTrade, ReportJsonWriter } from './json.ts';
import type { OrderCounts } from './order-counts.ts';
import { breakdownRows, headlines, pageHeader, priceDecimals, returnsTable, tradeRow } from './page-data.ts';
import type { ReportFill } from './fills.ts';
import type { ReportRows, TradeSpool } from './report-rows.ts';
import { SummaryBuilder, type Summary, type SummaryOptions } from './summary.ts';
import { summaryRows } from './table.ts';
import type { TextSink } from './text-sink.ts';
import { TradeBuilder } from './trades.ts';
import type { RunFacts } from './types.ts';

export type ReportOptions = SummaryOptions & ChartOptions;

/** Where each file's text goes. */
export interface ReportSinks {
  readonly json: TextSink;
  readonly csv: TextSink;
  readonly tradesCsv: TextSink;
  readonly html: TextSink;
}

/**
 * Passes 1 and 2: the summary, with the trades spooled by entry time; `each` sees every fill of
 * pass 1 too.
 */
function summarized(
  facts: RunFacts,
  counts: OrderCounts,
  rows: ReportRows,
  opts: SummaryOptions,
  each: (f: ReportFill) => void,
): { readonly summary: Summary; readonly figures: SummaryBuilder; readonly trades: TradeSpool } {
  const figures = new SummaryBuilder(facts);
  const building = new TradeBuilder();
  const trades = rows.tradeSpool();
  rows.forEachFill((f) => {
    figures.addFill(f);
    each(f);
    const closed = building.add(f);
    if (closed !== undefined) trades.add(closed);
  });
  for (const t of building.openTrades(facts.run.lastTickTime)) trades.add(t);
  trades.forEach((t) => figures.addTrade(t));
  return { summary: figures.finish(counts, opts), figures, trades };
}

/** The summary of a run from its rows, as the report computes it (a sweep's row). */
export function summarizeRows(
  facts: RunFacts,
  counts: OrderCounts,
  rows: ReportRows,
  opts: SummaryOptions = {},
): Summary {
  return summarized(facts, counts, rows, opts, () => undefined).summary;
}

/** Writes the four files of a run into `sinks` and returns its summary (deterministic). */
export function writeReportParts(
  facts: RunFacts,
  counts: OrderCounts,
  rows: ReportRows,
  sinks: ReportSinks,
  opts: ReportOptions = {},
): Summary {
  const endTime = facts.run.lastTickTime;
  const charts = new ChartBuilder(facts, opts);
  sinks.csv.write(csvRow(FILLS_CSV_COLUMNS));
  const { summary, figures, trades } = summarized(facts, counts, rows, opts, (f) => {
    charts.countFill(f);
    sinks.csv.write(fillCsvRow(f));
  });

  const json = new ReportJsonWriter(sinks.json);
  json.head(facts, summary);
  rows.forEachFill((f) => {
    json.fill(f);
    charts.markFill(f);
  });
  json.startTrades();

  const run = jsonRun(facts);
  const html = new ReportHtmlWriter(sinks.html);
  html.head({
    run,
    header: pageHeader(run),
    headlines: headlines(summary),
    summaryRows: summaryRows(summary),
    returns: returnsTable(facts, summary),
    breakdown: breakdownRows(summary),
  });
  const decimalsOf = (symbol: string): number =>
    priceDecimals(facts, symbol, charts.precisionOf(symbol) ?? 2);
  sinks.tradesCsv.write(csvRow(TRADES_CSV_COLUMNS));
  let i = 0;
  trades.forEach((t) => {
    const jt = jsonTrade(t);
    json.trade(jt);
    sinks.tradesCsv.write(tradeCsvRow(t));
    html.trade(tradeRow(jt, i++, decimalsOf, endTime));
  });
  json.end();
  html.end(charts.finish(summary, figures.symbols()));
  return summary;
}
