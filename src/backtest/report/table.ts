// The summary as labelled rows of text: one source for the HTML table and the CLI's summary table.
// Formatted for people (money at 2 decimals with thousands separators, percentages at 2 decimals);
// report.json (and `--json`) keep the exact figures.
import { humanDuration, humanMoney, humanPercent, humanRatio, humanTime } from './format.ts';
import type { Summary } from './summary.ts';

export type SummaryRow = readonly [label: string, value: string];

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

/** Human-readable rows, in a fixed order. */
export function summaryRows(s: Summary): SummaryRow[] {
  const vsMarket =
    s.totalReturn === null || s.buyAndHoldReturn === null
      ? 'n/a'
      : humanPercent(s.totalReturn - s.buyAndHoldReturn);
  return [
    ['Starting balance', humanMoney(s.startingBalance)],
    ['Final equity', humanMoney(s.finalEquity)],
    ['Total return', humanPercent(s.totalReturn)],
    ['Buy and hold return', humanPercent(s.buyAndHoldReturn)],
    ['Return vs buy and hold', vsMarket],
    ['CAGR', humanPercent(s.cagr)],
    ['Net PnL', humanMoney(s.netPnl)],
    ['Realized PnL', humanMoney(s.realizedPnl)],
    ['Unrealized PnL', humanMoney(s.unrealizedPnl)],
    ['Fees paid', humanMoney(s.feesPaid)],
    ['Volume', humanMoney(s.volume)],
    [
      'Max drawdown',
      `${humanMoney(s.maxDrawdown)} (${humanPercent(s.maxDrawdownFraction)})` +
        (s.maxDrawdownStart === null
          ? ''
          : `, ${humanTime(s.maxDrawdownStart)} to ${humanTime(s.maxDrawdownEnd)}, lasted ${humanDuration(s.maxDrawdownDurationMs)}`),
    ],
    [`Sharpe (daily returns: ${s.dailyReturns}, annualised)`, humanRatio(s.sharpe)],
    ['Sortino (daily, annualised)', humanRatio(s.sortino)],
    ['Calmar', humanRatio(s.calmar)],
    ['Trades (closed)', String(s.trades)],
    ['Trades open at the end', String(s.openTrades)],
    ['Trade win rate', humanPercent(s.tradeWinRate)],
    ['Profit factor', humanRatio(s.profitFactor)],
    ['Expectancy (per trade)', humanMoney(s.expectancy)],
    ['Best trade', humanMoney(s.bestTrade)],
    ['Worst trade', humanMoney(s.worstTrade)],
    ['Average trade duration', humanDuration(s.avgTradeDurationMs)],
    ['Exposure', humanPercent(s.exposure)],
    ['Orders placed', String(s.ordersPlaced)],
    ['Orders canceled', String(s.ordersCanceled)],
    ['Orders rejected', String(s.ordersRejected)],
    ...(s.planOrders.placed > 0
      ? ([
          [
            'Plan orders (stops, targets)',
            `${s.planOrders.placed} placed, ${s.planOrders.triggered} triggered, ${s.planOrders.canceled} canceled, ${s.planOrders.rejected} rejected`,
          ],
        ] as const)
      : []),
    ['Fills', String(s.fills)],
    ['Closing fill win rate', humanPercent(s.winRate)],
    [`Sharpe (per ${duration(s.sharpeIntervalMs)}, not annualised)`, humanRatio(s.intervalSharpe)],
    [`Sharpe (per ${duration(s.sharpeIntervalMs)}, annualised)`, humanRatio(s.intervalSharpeAnnualized)],
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
