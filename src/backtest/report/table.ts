// The summary as labelled rows of text: one source for the HTML table and the CLI's summary table.
import { dec } from '../../core/decimal.ts';
import type { Summary } from './summary.ts';

export type SummaryRow = readonly [label: string, value: string];

function percent(x: number | null): string {
  return x === null ? 'n/a' : `${dec(String(x)).times(100).toFixed()} %`;
}

function plain(x: number | null): string {
  return x === null ? 'n/a' : String(x);
}

function counts(map: Readonly<Record<string, number>>): string {
  const entries = Object.entries(map);
  return entries.length === 0 ? 'none' : entries.map(([k, n]) => `${k} ${n}`).join(', ');
}

/** `sma at 2022-01-01T00:03:00.000Z: reason` for each, joined by `; `; `none` for none. */
export function disabledText(list: Summary['strategiesDisabled']): string {
  if (list.length === 0) return 'none';
  return list.map((d) => `${d.strategy} at ${new Date(d.at).toISOString()}: ${d.reason}`).join('; ');
}

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Human-readable rows, in a fixed order; money stays exact. */
export function summaryRows(s: Summary): SummaryRow[] {
  return [
    ['Orders placed', String(s.ordersPlaced)],
    ['Orders canceled', String(s.ordersCanceled)],
    ['Orders rejected', String(s.ordersRejected)],
    ['Fills', String(s.fills)],
    ['Volume', s.volume],
    ['Fees paid', s.feesPaid],
    ['Realized PnL', s.realizedPnl],
    ['Unrealized PnL', s.unrealizedPnl],
    ['Net PnL', s.netPnl],
    ['Max drawdown', `${s.maxDrawdown} (${percent(s.maxDrawdownFraction)})`],
    ['Win rate', percent(s.winRate)],
    [`Sharpe (per ${duration(s.sharpeIntervalMs)}, not annualised)`, plain(s.sharpe)],
    ['Sharpe (annualised)', plain(s.sharpeAnnualized)],
    ['Exposure', percent(s.exposure)],
    ['Requests', counts(s.requestsByEndpoint)],
    ['Weight used', `IP ${s.weightUsed.ip}, UID ${s.weightUsed.uid}`],
    ['Rejections', counts(s.rejectionsByReason)],
    ['HTTP 429 responses', String(s.responses429)],
    ['Strategies disabled', disabledText(s.strategiesDisabled)],
  ];
}

/** The rows as aligned plain text (for a terminal), one row per line. */
export function renderSummaryText(s: Summary): string {
  const rows = summaryRows(s);
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n') + '\n';
}
