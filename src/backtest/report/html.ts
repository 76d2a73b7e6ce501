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
import type { SummaryRow } from './table.ts';

export interface HtmlInput {
  readonly run: ReportJsonRun;
  readonly summaryRows: readonly SummaryRow[];
  readonly charts: ChartData;
}

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:";

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
main { max-width: 1200px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 12px; }
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

/** The whole page (deterministic: the same input gives the same text). */
export function renderReportHtml(input: HtmlInput): string {
  const lib = chartLibrary();
  const data = {
    run: {
      ...input.run,
      firstTickIso: isoTime(input.run.firstTickTime),
      lastTickIso: isoTime(input.run.lastTickTime),
    },
    summaryRows: input.summaryRows,
    charts: input.charts,
  };
  const title = `capibot backtest: ${input.run.data}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body data-status="loading">
<main>
<h1>${escapeHtml(title)}</h1>
<p id="report-error" hidden></p>
<dl id="report-run"></dl>
<table id="report-summary"></table>
<div id="report-charts"></div>
<footer>
Charts drawn with TradingView Lightweight Charts™ v${escapeHtml(lib.version)}, Copyright (c) TradingView, Inc.,
Apache License 2.0 (inlined below with its licence header). Long series are thinned for drawing
(min/max buckets); report.json and fills.csv hold every sample and every fill.
</footer>
</main>
<script type="application/json" id="report-data">${escapeJsonForScript(JSON.stringify(data, bigintAsString))}</script>
<script id="chart-library">
${inlineScript('the chart library', lib.source)}
</script>
<script id="report-page">
${inlineScript('the page script', loadPageScript())}
</script>
</body>
</html>
`;
}
