// report.html: one self-contained, offline file. The chart library (lightweight-charts, standalone
// build) and the page script are inlined; the data rides in a <script type="application/json"> tag,
// escaped so that no text in it can close the tag; a Content-Security-Policy forbids every network
// load, so a report that works at all works offline.
import { readFileSync } from 'node:fs';
import { InvariantViolation } from '../../core/errors.ts';
import type { ChartData } from './chart-data.ts';
import { chartLibrary } from './chart-library.ts';
import { isoTime } from './format.ts';
import type { ReportJsonRun } from './json.ts';
import {
  BREAKDOWN_COLUMNS,
  TRADE_COLUMNS,
  type Headline,
  type PageHeader,
  type ReturnsTable,
  type TradeRow,
} from './page-data.ts';
import type { SummaryRow } from './table.ts';
import { StringSink, type TextSink } from './text-sink.ts';

export interface HtmlInput {
  readonly run: ReportJsonRun;
  readonly header: PageHeader;
  readonly headlines: readonly Headline[];
  readonly summaryRows: readonly SummaryRow[];
  readonly returns: ReturnsTable;
  readonly breakdown: readonly (readonly string[])[];
  readonly trades: readonly TradeRow[];
  readonly charts: ChartData;
}

/**
 * The start of a capibot page, up to its title heading: the doctype, the content security policy,
 * the escaped title and the page's own style (report.html and sweep.html alike).
 */
export function pageOpening(title: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body data-status="loading">
<main>
<h1>${escapeHtml(title)}</h1>`;
}

export const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:";

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
main { max-width: 1200px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 4px; overflow-wrap: anywhere; }
.kpis { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: 8px; margin: 12px 0 16px; }
.kpi { background: #fff; border: 1px solid #e5e5e5; padding: 8px 10px; }
.kpi .label { color: #666; font-size: 12px; } .kpi .value { font-size: 18px; font-variant-numeric: tabular-nums; }
.pos { color: #1b7f3b; } .neg { color: #c62828; }
.cols { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
td.num, th.num { text-align: right; }
#report-trades-box { max-height: 520px; overflow: auto; border: 1px solid #e5e5e5; background: #fff; }
#report-trades { width: 100%; font-size: 13px; }
#report-trades th { position: sticky; top: 0; background: #f3f3f3; cursor: pointer; user-select: none; white-space: nowrap; }
#report-trades td { white-space: nowrap; }
#report-trades tr.trade { cursor: pointer; } #report-trades tr.trade:hover { background: #eef3ff; }
#report-trades tr.selected { background: #dde7ff; }
.filters { display: flex; gap: 12px; align-items: center; margin: 4px 0 8px; }
.filters input { padding: 3px 6px; min-width: 240px; }
.legend { display: inline-block; width: 18px; height: 3px; vertical-align: middle; margin: 0 4px 0 8px; }
h2 { font-size: 16px; margin: 24px 0 4px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 16px; }
dt { color: #666; } dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: 3px 12px; border-bottom: 1px solid #eee; }
th { font-weight: normal; color: #555; } td { font-variant-numeric: tabular-nums; }
.chart { height: 320px; background: #fff; border: 1px solid #e5e5e5; }
.note { margin: 0 0 6px; color: #666; font-size: 12px; }
#report-error { background: #fdecea; color: #b71c1c; padding: 8px 12px; }
footer { margin-top: 32px; color: #777; font-size: 12px; }
`;

let pageScript: string | undefined;

function loadPageScript(): string {
  pageScript ??= readFileSync(new URL('./page.js', import.meta.url), 'utf8');
  return pageScript;
}

/**
 * JSON text safe inside <script type="application/json">: `<`, `>` and `&` become \u escapes (so
 * neither `</script` nor `<!--` can appear), as do U+2028/U+2029. JSON.parse reads it back unchanged.
 */
export function escapeJsonForScript(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** Inlined code must not be able to end its <script> element early or enter the escaped states. */
function inlineScript(name: string, code: string): string {
  if (/<\/script|<!--/i.test(code)) {
    throw new InvariantViolation(
      `${name} contains "</script" or "<!--" and cannot be inlined into report.html`,
    );
  }
  return code;
}

/** The page's parts before its trade rows (HtmlInput without the trades and the charts). */
export type HtmlHead = Omit<HtmlInput, 'trades' | 'charts'>;

/** The whole page (deterministic: the same input gives the same text). */
export function renderReportHtml(input: HtmlInput): string {
  const sink = new StringSink();
  const page = new ReportHtmlWriter(sink);
  page.head(input);
  for (const row of input.trades) page.trade(row);
  page.end(input.charts);
  return sink.text();
}

/**
 * report.html written in parts — `head`, each trade row, `end` with the charts — without holding the
 * trade rows: the same bytes as renderReportHtml. The page data is one JSON text whose `trades`
 * array sits between the parts known before the trades and the charts; JSON.stringify of an object
 * is the texts of its members put together, and the script escaping works character by character,
 * so the parts escaped one by one give the whole escaped.
 */
export class ReportHtmlWriter {
  readonly #out: TextSink;
  #rows = 0;

  constructor(out: TextSink) {
    this.#out = out;
  }

  head(input: HtmlHead): void {
    const data = {
      run: {
        ...input.run,
        firstTickIso: isoTime(input.run.firstTickTime),
        lastTickIso: isoTime(input.run.lastTickTime),
      },
      header: input.header,
      headlines: input.headlines,
      summaryRows: input.summaryRows,
      returns: input.returns,
      breakdownColumns: BREAKDOWN_COLUMNS,
      breakdown: input.breakdown,
      tradeColumns: TRADE_COLUMNS,
    };
    const title = input.header.title;
    const json = JSON.stringify(data, bigintAsString);
    this.#out.write(`${pageOpening(title, STYLE)}
<p id="report-error" hidden></p>
<dl id="report-run"></dl>
<div id="report-kpis" class="kpis"></div>
<div id="report-charts"></div>
<div class="cols">
<section><h2>Summary</h2><table id="report-summary"></table></section>
<section><h2 id="report-returns-title">Returns</h2><table id="report-returns"></table></section>
</div>
<section><h2>By strategy and by symbol</h2><table id="report-breakdown"></table></section>
<section id="report-trades-section">
<h2>Trades</h2>
<p class="note">A trade is one position's life per strategy and symbol, flat to flat. Click a column to sort, a row to show it on the price chart.</p>
<div class="filters"><input id="report-trades-filter" type="search" placeholder="Filter (symbol, side, strategy, reason…)"><span id="report-trades-count" class="note"></span></div>
<div id="report-trades-box"><table id="report-trades"></table></div>
</section>
<footer>
Charts drawn with TradingView Lightweight Charts™ v${escapeHtml(chartLibrary().version)}, Copyright (c) TradingView, Inc.,
Apache License 2.0 (inlined below with its licence header). Long series are thinned for drawing
(min/max buckets); report.json, fills.csv and trades.csv hold every sample, fill and trade. Times are UTC.
</footer>
</main>
<script type="application/json" id="report-data">${escapeJsonForScript(json.slice(0, -1))},"trades":[`);
  }

  trade(row: TradeRow): void {
    this.#out.write(
      (this.#rows++ === 0 ? '' : ',') + escapeJsonForScript(JSON.stringify(row, bigintAsString)),
    );
  }

  end(charts: ChartData): void {
    this.#out.write(`],"charts":${escapeJsonForScript(JSON.stringify(charts, bigintAsString))}}</script>
<script id="chart-library">
${inlineScript('the chart library', chartLibrary().source)}
</script>
<script id="report-page">
${inlineScript('the page script', loadPageScript())}
</script>
</body>
</html>
`);
  }
}
