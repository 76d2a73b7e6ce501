// fills.csv: one row per fill, with a header; RFC 4180 (CRLF line ends, fields holding a comma, a
// double quote, CR or LF are quoted, quotes doubled). Money as exact decimal strings.
import type { ReportFill } from './fills.ts';
import { isoTime, money } from './format.ts';
import type { Trade } from './trades.ts';

export const FILLS_CSV_COLUMNS = [
  'time',
  'timeIso',
  'tradeId',
  'orderId',
  'clientOid',
  'strategy',
  'symbol',
  'side',
  'positionSide',
  'orderSide',
  'direction',
  'price',
  'size',
  'value',
  'fee',
  'realizedPnl',
  // The trigger price of the plan order the fill executed (stop-loss, take-profit); empty otherwise.
  'triggerPrice',
] as const;

/** One field, quoted when RFC 4180 requires it. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function csvRow(fields: readonly string[]): string {
  return fields.map(csvField).join(',') + '\r\n';
}

/** One row of fills.csv (with its CRLF). */
export function fillCsvRow(f: ReportFill): string {
  return csvRow([
    String(f.createdTime),
    isoTime(f.createdTime),
    f.tradeId,
    f.orderId,
    f.clientOid ?? '',
    f.strategy ?? '',
    f.symbol,
    f.side,
    f.positionSide,
    f.orderSide,
    f.direction,
    money(f.price),
    money(f.size),
    money(f.value),
    money(f.fee),
    money(f.realizedPnl),
    f.triggerPrice !== undefined ? money(f.triggerPrice) : '',
  ]);
}

/** The text of fills.csv (fills in the order given). */
export function renderFillsCsv(fills: readonly ReportFill[]): string {
  return csvRow(FILLS_CSV_COLUMNS) + fills.map(fillCsvRow).join('');
}

export const TRADES_CSV_COLUMNS = [
  'strategy',
  'symbol',
  'side',
  'entryTime',
  'entryTimeIso',
  'exitTime',
  'exitTimeIso',
  'size',
  'openSize',
  'entryPrice',
  'exitPrice',
  'pnl',
  'fees',
  'netPnl',
  'durationMs',
  'exitReason',
  'fills',
] as const;

/** One row of trades.csv (with its CRLF); an open trade has empty exit fields. */
export function tradeCsvRow(t: Trade): string {
  return csvRow([
    t.strategy ?? '',
    t.symbol,
    t.side,
    String(t.entryTime),
    isoTime(t.entryTime),
    t.exitTime === null ? '' : String(t.exitTime),
    t.exitTime === null ? '' : isoTime(t.exitTime),
    money(t.size),
    money(t.openSize),
    t.entryPrice === null ? '' : money(t.entryPrice),
    t.exitPrice === null ? '' : money(t.exitPrice),
    money(t.pnl),
    money(t.fees),
    money(t.netPnl),
    String(t.durationMs),
    t.exitReason,
    String(t.fills),
  ]);
}

/** The text of trades.csv (trades in the order given). */
export function renderTradesCsv(trades: readonly Trade[]): string {
  return csvRow(TRADES_CSV_COLUMNS) + trades.map(tradeCsvRow).join('');
}
