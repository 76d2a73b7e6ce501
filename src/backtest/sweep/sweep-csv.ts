// sweep.csv: one row per combination, best first (RFC 4180, like fills.csv): rank, grid index, one
// column per param, one per metric, the error of a failed run, and the command reproducing the row.
import { csvRow } from '../report/csv.ts';
import type { Grid } from './grid.ts';
import { SWEEP_METRICS } from './rank.ts';
import type { SweepResult } from './sweep-result.ts';

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function renderSweepCsv(result: SweepResult, grid: Grid): string {
  const names = grid.params.map(([name]) => name);
  const lines = [csvRow(['rank', 'index', ...names, ...SWEEP_METRICS, 'error', 'config', 'command'])];
  for (const r of result.rows) {
    lines.push(
      csvRow([
        cell(r.rank),
        String(r.index),
        ...names.map((n) => cell(r.params[n])),
        ...SWEEP_METRICS.map((m) => cell(r.metrics?.[m])),
        r.error ?? '',
        r.config,
        r.command,
      ]),
    );
  }
  return lines.join('');
}
