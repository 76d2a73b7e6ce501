// What report.html shows besides the charts, formatted for people on the Node side (so the page and
// the terminal print the same text, and the file is a pure function of the run): the header, the
// headline figures, the periodic returns table and the trade list with its sort keys.
import { dec } from '../../core/decimal.ts';
import {
  humanDuration,
  humanMoney,
  humanPercent,
  humanPrice,
  humanRatio,
  humanTime,
  tickDecimals,
} from './format.ts';
import type { ReportJsonRun, ReportJsonTrade } from './json.ts';
import { DAY_MS, periodReturns, periodStart } from './metrics.ts';
import { startingBalance, type Breakdown, type Summary } from './summary.ts';
import type { RunFacts } from './types.ts';

/** A run at least this long gets a monthly returns table; shorter runs a daily one. */
export const MONTHLY_TABLE_MIN_MS = 60 * DAY_MS;

export interface PageHeader {
  readonly title: string;
  readonly strategies: readonly { readonly id: string; readonly file: string; readonly params: string }[];
  readonly data: string;
  readonly from: string;
  readonly to: string;
  readonly span: string;
}

/** A headline figure: label, text, and its sign (for colour: 1 good, −1 bad, 0 neutral). */
export type Headline = readonly [label: string, text: string, tone: number];

export interface ReturnsTable {
  readonly period: 'month' | 'day';
  /** [period label, return text, return value (for colour), closing equity text]. */
  readonly rows: readonly (readonly [string, string, number, string])[];
}

export const TRADE_COLUMNS = [
  '#',
  'Strategy',
  'Symbol',
  'Side',
  'Entry (UTC)',
  'Exit (UTC)',
  'Duration',
  'Size',
  'Entry price',
  'Exit price',
  'PnL',
  'Fees',
  'Net PnL',
  'Exit reason',
] as const;

export interface TradeRow {
  /** The cells' texts, one per TRADE_COLUMNS entry. */
  readonly cells: readonly string[];
  /** Sort keys, one per column: numbers for figures and times, text otherwise; null sorts last. */
  readonly keys: readonly (number | string | null)[];
  readonly symbol: string;
  /** Entry and exit (or end of data) in chart seconds. */
  readonly from: number;
  readonly to: number;
  /** Sign of the net PnL (for colour). */
  readonly tone: number;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function pageHeader(run: ReportJsonRun): PageHeader {
  const ids = run.strategies.map((s) => s.id);
  return {
    title: `capibot backtest: ${run.data}, ${ids.length > 0 ? ids.join(', ') : 'no strategy'}`,
    strategies: run.strategies.map((s) => ({ id: s.id, file: s.file, params: JSON.stringify(s.params) })),
    data: run.data,
    from: humanTime(run.firstTickTime),
    to: humanTime(run.lastTickTime),
    span: humanDuration(run.lastTickTime - run.firstTickTime),
  };
}

const sign = (x: number | null): number => (x === null || x === 0 ? 0 : x > 0 ? 1 : -1);
const moneySign = (s: string | null): number => (s === null ? 0 : dec(s).cmp(0));

export function headlines(s: Summary): Headline[] {
  return [
    ['Total return', humanPercent(s.totalReturn), sign(s.totalReturn)],
    ['Buy and hold', humanPercent(s.buyAndHoldReturn), 0],
    ['Net PnL', humanMoney(s.netPnl), moneySign(s.netPnl)],
    ['Max drawdown', humanPercent(s.maxDrawdownFraction === null ? null : -s.maxDrawdownFraction), 0],
    ['Sharpe (daily)', humanRatio(s.sharpe), 0],
    ['Trades', String(s.trades + s.openTrades), 0],
    ['Win rate', humanPercent(s.tradeWinRate), 0],
    ['Profit factor', humanRatio(s.profitFactor), 0],
  ];
}

function periodLabel(start: number, period: 'month' | 'day'): string {
  const d = new Date(start);
  const month = MONTHS[d.getUTCMonth()] ?? '';
  return period === 'month'
    ? `${month} ${d.getUTCFullYear()}`
    : `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
}

/** Monthly returns when the run lasts MONTHLY_TABLE_MIN_MS or more, daily otherwise (UTC periods). */
export function returnsTable(record: RunFacts, summary: Summary): ReturnsTable {
  const period = record.run.lastTickTime - record.run.firstTickTime >= MONTHLY_TABLE_MIN_MS ? 'month' : 'day';
  const start = startingBalance(record, dec(summary.netPnl));
  if (start === null) return { period, rows: [] };
  const closes = new Map<number, string>();
  for (const sample of record.equity) closes.set(periodStart(sample.t, period), humanMoney(sample.equity));
  return {
    period,
    rows: periodReturns(record.equity, start, period).map((r) => {
      const x = Number(r.ret.toFixed(12));
      return [periodLabel(r.start, period), humanPercent(x), sign(x), closes.get(r.start) ?? ''] as const;
    }),
  };
}

/** Decimals to print a symbol's prices at: its tick when known, else the chart's precision. */
export function priceDecimals(record: RunFacts, symbol: string, fallback: number): number {
  const tick =
    record.tickSizes !== undefined && Object.hasOwn(record.tickSizes, symbol)
      ? record.tickSizes[symbol]
      : undefined;
  return tick === undefined ? fallback : tickDecimals(tick);
}

/** humanTime without its ` UTC` suffix (for table cells under a UTC heading). */
const shortTime = (ms: number): string => humanTime(ms).slice(0, -4);

/** The per-strategy and per-symbol breakdowns as rows: [kind, key, trades, open, win rate, PF, expectancy, net PnL, fees, B&H]. */
export function breakdownRows(s: Summary): (readonly string[])[] {
  const rows: (readonly string[])[] = [];
  const add = (kind: string, key: string, b: Breakdown, bh: number | null | undefined): void => {
    rows.push([
      kind,
      key,
      String(b.trades),
      String(b.openTrades),
      humanPercent(b.winRate),
      humanRatio(b.profitFactor),
      humanMoney(b.expectancy),
      humanMoney(b.netPnl),
      humanMoney(b.fees),
      bh === undefined ? '' : humanPercent(bh),
    ]);
  };
  for (const [k, b] of Object.entries(s.byStrategy)) add('strategy', k, b, undefined);
  for (const [k, b] of Object.entries(s.bySymbol)) add('symbol', k, b, b.buyAndHoldReturn);
  return rows;
}

export const BREAKDOWN_COLUMNS = [
  'By',
  'Name',
  'Trades',
  'Open',
  'Win rate',
  'Profit factor',
  'Expectancy',
  'Net PnL',
  'Fees',
  'Buy and hold',
] as const;

/** The page's row of the `i`-th trade (0-based) of the report's order. */
export function tradeRow(
  t: ReportJsonTrade,
  i: number,
  decimalsOf: (symbol: string) => number,
  endTime: number,
): TradeRow {
  const d = decimalsOf(t.symbol);
  const num = (x: string | null): number | null => (x === null ? null : Number(x));
  return {
    cells: [
      String(i + 1),
      t.strategy ?? '',
      t.symbol,
      t.side,
      shortTime(t.entryTime),
      t.exitTime === null ? 'open' : shortTime(t.exitTime),
      humanDuration(t.durationMs),
      t.size,
      humanPrice(t.entryPrice, d),
      humanPrice(t.exitPrice, d),
      humanMoney(t.pnl),
      humanMoney(t.fees),
      humanMoney(t.netPnl),
      t.exitReason.replaceAll('_', ' '),
    ],
    keys: [
      i + 1,
      t.strategy ?? '',
      t.symbol,
      t.side,
      t.entryTime,
      t.exitTime,
      t.durationMs,
      num(t.size),
      num(t.entryPrice),
      num(t.exitPrice),
      num(t.pnl),
      num(t.fees),
      num(t.netPnl),
      t.exitReason,
    ],
    symbol: t.symbol,
    from: Math.floor(t.entryTime / 1000),
    to: Math.floor((t.exitTime ?? Math.max(endTime, t.entryTime)) / 1000),
    tone: moneySign(t.netPnl),
  };
}

export function tradeRows(
  trades: readonly ReportJsonTrade[],
  decimalsOf: (symbol: string) => number,
  endTime: number,
): TradeRow[] {
  return trades.map((t, i) => tradeRow(t, i, decimalsOf, endTime));
}
