// The zod schema of a backtest Summary, for summaries that arrive from outside the process (a sweep
// worker's reply read back from Redis). Typed against Summary: a field added there and not here
// fails the typecheck, so nothing is silently dropped by the parse.
import { z } from 'zod';
import type { Summary } from '../report/index.ts';

const num = z.number();
const numOrNull = z.number().nullable();
const str = z.string();
const strOrNull = z.string().nullable();
const counts = z.record(z.string(), z.number());

const breakdown = {
  trades: num,
  openTrades: num,
  winRate: numOrNull,
  realizedPnl: str,
  fees: str,
  netPnl: str,
  profitFactor: numOrNull,
  expectancy: strOrNull,
  bestTrade: strOrNull,
  worstTrade: strOrNull,
  avgTradeDurationMs: numOrNull,
};

export const summarySchema: z.ZodType<Summary> = z.object({
  ordersPlaced: num,
  ordersCanceled: num,
  ordersRejected: num,
  planOrders: z.object({ placed: num, triggered: num, canceled: num, rejected: num }),
  fills: num,
  volume: str,
  feesPaid: str,
  realizedPnl: str,
  unrealizedPnl: str,
  netPnl: str,
  maxDrawdown: str,
  maxDrawdownFraction: numOrNull,
  winRate: numOrNull,
  intervalSharpe: numOrNull,
  intervalSharpeAnnualized: numOrNull,
  sharpeIntervalMs: num,
  exposure: num,
  startingBalance: strOrNull,
  finalEquity: strOrNull,
  totalReturn: numOrNull,
  cagr: numOrNull,
  buyAndHoldReturn: numOrNull,
  dailyReturns: num,
  sharpe: numOrNull,
  sortino: numOrNull,
  calmar: numOrNull,
  trades: num,
  openTrades: num,
  tradeWinRate: numOrNull,
  profitFactor: numOrNull,
  expectancy: strOrNull,
  avgTradeDurationMs: numOrNull,
  bestTrade: strOrNull,
  worstTrade: strOrNull,
  maxDrawdownStart: numOrNull,
  maxDrawdownEnd: numOrNull,
  maxDrawdownDurationMs: numOrNull,
  requestsByEndpoint: counts,
  weightUsed: z.object({ ip: num, uid: num }),
  rejectionsByReason: counts,
  responses429: num,
  strategiesDisabled: z.array(z.object({ strategy: str, at: num, reason: str })),
  byStrategy: z.record(z.string(), z.object(breakdown)),
  bySymbol: z.record(z.string(), z.object({ ...breakdown, buyAndHoldReturn: numOrNull })),
});
