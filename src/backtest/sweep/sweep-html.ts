// sweep.html: one self-contained offline page (no chart library, no network: the same CSP as
// report.html) with the ranked table, sortable by any column, and, when two or more parameters vary,
// a heatmap of the ranking metric over the first two of them. Each heatmap cell shows the best value
// of the metric among the combinations sharing those two values (the other parameters vary inside
// it). Deterministic: the same sweep result gives the same bytes.
import { dec } from '../../core/decimal.ts';
import { humanMoney, humanPercent, humanRatio } from '../report/format.ts';
import { escapeHtml, pageOpening } from '../report/html.ts';
import type { Grid } from './grid.ts';
import { SWEEP_METRICS, type MetricValue, type SortOrder, type SweepMetric } from './rank.ts';
import type { SweepResult, SweepRow } from './sweep-result.ts';

/** Metrics that are fractions (shown as percentages). */
const FRACTIONS: ReadonlySet<SweepMetric> = new Set([
  'maxDrawdownFraction',
  'winRate',
  'exposure',
  'totalReturn',
  'cagr',
  'tradeWinRate',
]);
/** Metrics that are counts. */
const COUNTS: ReadonlySet<SweepMetric> = new Set([
  'fills',
  'trades',
  'ordersPlaced',
  'ordersCanceled',
  'ordersRejected',
  'responses429',
]);

/** A metric value for people: money at 2 decimals, fractions as percentages, ratios at 2 decimals. */
export function metricText(metric: SweepMetric, v: MetricValue): string {
  if (v === null) return 'n/a';
  if (typeof v === 'string') return humanMoney(v);
  if (FRACTIONS.has(metric)) return humanPercent(v);
  if (COUNTS.has(metric)) return String(v);
  return humanRatio(v);
}

function asNumber(v: MetricValue): number | null {
  return v === null ? null : typeof v === 'number' ? v : Number(v);
}

function valueText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Same value (as JSON text: grid values are plain YAML scalars). */
const key = (v: unknown): string => JSON.stringify(v);

export interface Heatmap {
  readonly rowParam: string;
  readonly colParam: string;
  readonly rows: readonly unknown[];
  readonly cols: readonly unknown[];
  /** cells[r][c]: the best metric value, or null when none of those runs has one. */
  readonly cells: readonly (readonly MetricValue[])[];
}

/** Better of two values for the ranking order (null is worst); exact for money strings. */
function better(a: MetricValue, b: MetricValue, order: SortOrder): MetricValue {
  if (a === null) return b;
  if (b === null) return a;
  const c = dec(String(a)).cmp(dec(String(b)));
  return (order === 'desc' ? c >= 0 : c <= 0) ? a : b;
}

/** The heatmap over the first two parameters with more than one value; undefined with fewer. */
export function sweepHeatmap(result: SweepResult, grid: Grid): Heatmap | undefined {
  const varying = grid.params.filter(([, values]) => values.length > 1);
  const [first, second] = varying;
  if (first === undefined || second === undefined) return undefined;
  const [rowParam, rows] = first;
  const [colParam, cols] = second;
  const rowIndex = new Map(rows.map((v, i) => [key(v), i]));
  const colIndex = new Map(cols.map((v, i) => [key(v), i]));
  const cells: MetricValue[][] = rows.map(() => cols.map((): MetricValue => null));
  for (const r of result.rows) {
    if (r.rank === null || r.metrics === null) continue;
    const i = rowIndex.get(key(r.params[rowParam]));
    const j = colIndex.get(key(r.params[colParam]));
    if (i === undefined || j === undefined) continue;
    const line = cells[i]!;
    line[j] = better(line[j] ?? null, r.metrics[result.metric], result.order);
  }
  return { rowParam, colParam, rows, cols, cells };
}

/** Background colour of a heatmap cell: red (worst) to green (best) in HSL, grey for none. */
function cellColour(v: number | null, lo: number, hi: number, order: SortOrder): string {
  if (v === null) return '#eeeeee';
  const f = hi > lo ? (v - lo) / (hi - lo) : 0.5;
  const good = order === 'desc' ? f : 1 - f;
  return `hsl(${Math.round(good * 120)}, 60%, 82%)`;
}

function heatmapHtml(h: Heatmap, metric: SweepMetric, order: SortOrder): string {
  const nums = h.cells.flat().map(asNumber);
  const finite = nums.filter((x): x is number => x !== null);
  const lo = finite.length > 0 ? Math.min(...finite) : 0;
  const hi = finite.length > 0 ? Math.max(...finite) : 0;
  const head = h.cols.map((c) => `<th class="num">${escapeHtml(valueText(c))}</th>`).join('');
  const body = h.rows
    .map((r, i) => {
      const cells = (h.cells[i] ?? [])
        .map((v) => {
          const bg = cellColour(asNumber(v), lo, hi, order);
          return `<td class="num" style="background:${bg}">${escapeHtml(metricText(metric, v))}</td>`;
        })
        .join('');
      return `<tr><th>${escapeHtml(valueText(r))}</th>${cells}</tr>`;
    })
    .join('\n');
  return `<h2>${escapeHtml(metric)} by ${escapeHtml(h.rowParam)} (rows) and ${escapeHtml(h.colParam)} (columns)</h2>
<p class="note">Each cell: the best ${escapeHtml(metric)} among the ranked runs with those two values${
    h.rows.length * h.cols.length > 0 ? ' (other parameters vary inside a cell)' : ''
  }; green is better, red worse, grey none.</p>
<table class="heatmap"><tr><th>${escapeHtml(h.rowParam)} \\ ${escapeHtml(h.colParam)}</th>${head}</tr>
${body}
</table>`;
}

/** Sort key of a cell (number, text, or empty for none): read by the page script. */
function sortKey(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return v;
  return valueText(v);
}

function rankedTableHtml(result: SweepResult, names: readonly string[]): string {
  const columns = ['Rank', '#', ...names, ...SWEEP_METRICS, 'Error'];
  const head = columns
    .map((c, i) => `<th data-col="${i}" title="Sort by ${escapeHtml(c)}">${escapeHtml(c)}</th>`)
    .join('');
  const line = (r: SweepRow): string => {
    const cells: [string, string, boolean][] = [
      [sortKey(r.rank), r.rank === null ? '—' : String(r.rank), true],
      [String(r.index), String(r.index), true],
      ...names.map((n): [string, string, boolean] => [sortKey(r.params[n]), valueText(r.params[n]), false]),
      ...SWEEP_METRICS.map((m): [string, string, boolean] => {
        const v = r.metrics?.[m] ?? null;
        return [sortKey(v), metricText(m, v), true];
      }),
      ['', r.error ?? '', false],
    ];
    const tds = cells
      .map(
        ([k, text, num]) =>
          `<td${num ? ' class="num"' : ''} data-key="${escapeHtml(k)}">${escapeHtml(text)}</td>`,
      )
      .join('');
    return `<tr title="${escapeHtml(r.command)}">${tds}</tr>`;
  };
  return `<div class="box"><table id="sweep-table"><thead><tr>${head}</tr></thead><tbody>
${result.rows.map(line).join('\n')}
</tbody></table></div>`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
main { max-width: 1400px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 4px; overflow-wrap: anywhere; } h2 { font-size: 16px; margin: 24px 0 4px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; } dt { color: #666; } dd { margin: 0; }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: left; white-space: nowrap; }
td { font-variant-numeric: tabular-nums; } .num { text-align: right; }
#sweep-table th { position: sticky; top: 0; background: #f3f3f3; cursor: pointer; user-select: none; }
.box { max-height: 640px; overflow: auto; border: 1px solid #e5e5e5; }
.heatmap td { min-width: 70px; } .note { color: #666; font-size: 12px; margin: 0 0 6px; }
`;

// Click a header to sort by it (again to reverse); empty keys sort last; ties keep the rank order.
const SCRIPT = `(function () {
  'use strict';
  var table = document.getElementById('sweep-table');
  if (!table) return;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  rows.forEach(function (r, i) { r.dataset.pos = String(i); });
  var column = -1;
  var ascending = true;
  function cmp(a, b) {
    var x = a.cells[column].dataset.key;
    var y = b.cells[column].dataset.key;
    if (x === '' || y === '') return x === y ? 0 : x === '' ? 1 : -1;
    var nx = Number(x);
    var ny = Number(y);
    var c = !isNaN(nx) && !isNaN(ny) ? nx - ny : x < y ? -1 : x > y ? 1 : 0;
    return ascending ? c : -c;
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
    th.addEventListener('click', function () {
      ascending = column === i ? !ascending : true;
      column = i;
      rows.sort(function (a, b) { return cmp(a, b) || Number(a.dataset.pos) - Number(b.dataset.pos); });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  document.body.dataset.status = 'ok';
})();`;

/** The whole sweep page (deterministic). */
export function renderSweepHtml(result: SweepResult, grid: Grid): string {
  const names = grid.params.map(([name]) => name);
  const heatmap = sweepHeatmap(result, grid);
  const title = `capibot sweep: ${result.strategy} on ${result.data}`;
  const facts: [string, string][] = [
    ['Config', result.config],
    [
      'Grid',
      `${result.grid}: ${grid.params.map(([n, vs]) => `${n} ∈ {${vs.map(valueText).join(', ')}}`).join(', ')}`,
    ],
    ['Data', result.data],
    ['Ranked by', `${result.metric} (${result.order === 'desc' ? 'highest first' : 'lowest first'})`],
    ['Combinations', String(result.combinations)],
  ];
  return `${pageOpening(title, STYLE)}
<dl>${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>
${heatmap === undefined ? '' : heatmapHtml(heatmap, result.metric, result.order)}
<h2>Ranked runs</h2>
<p class="note">Click a column to sort by it. Hover a row for the command that reproduces it. Unranked rows failed or had a strategy disabled.</p>
${rankedTableHtml(result, names)}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
