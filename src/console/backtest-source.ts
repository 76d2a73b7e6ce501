// The console's view of a finished backtest (`capibot backtest … --serve`): the same snapshot shape
// as a running bot, computed once from the run's record, so the same page shows it (read-only: no
// control). What a backtest does not record is shown as absent (no budget pools, no reconciliation
// times) rather than made up.
import { basename } from 'node:path';
import type { RunRecord } from '../backtest/report/types.ts';
import { decToNumber, decToString, ZERO } from '../core/decimal.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import { byStrategy, fillRow, foldFills, MAX_FILLS, orderRow } from './book.ts';
import type { ConsoleEventLine, ConsoleSnapshot, ConsoleSource } from './types.ts';

const MAX_EQUITY_POINTS = 2_000;

export function createBacktestSource(record: RunRecord, title?: string): ConsoleSource {
  const snapshot = backtestSnapshot(record, title);
  return {
    mode: 'backtest',
    strategyIds: record.run.strategies.map((s) => s.id),
    snapshot: () => snapshot,
    // A finished run never changes.
    onChange: () => () => undefined,
  };
}

export function backtestSnapshot(record: RunRecord, title?: string): ConsoleSnapshot {
  const orders = new Map<string, Order>(record.orders.map((o) => [o.clientOid, o]));
  const books = byStrategy(foldFills(record.fills, (oid) => orders.get(oid)));
  const disabled = new Map(record.strategiesDisabled.map((d) => [d.strategy, d]));
  const last = record.equity[record.equity.length - 1];
  let realized = ZERO;
  let fees = ZERO;
  for (const f of record.fills) {
    realized = realized.plus(f.realizedPnl);
    fees = fees.plus(f.fee);
  }
  const unrealized = last?.unrealized ?? ZERO;
  const step = Math.max(1, Math.ceil(record.equity.length / MAX_EQUITY_POINTS));
  const equity = record.equity
    .filter((_, i) => i % step === 0 || i === record.equity.length - 1)
    .map((e) => ({ t: e.t, v: decToNumber(e.equity) }));
  const events: ConsoleEventLine[] = [
    ...record.strategiesDisabled.map((d) => ({
      at: d.at,
      level: 'error' as const,
      kind: 'StrategyDisabled',
      text: `${d.strategy} disabled: ${d.reason}`,
    })),
    ...Object.entries(record.rejectionsByReason).map(([reason, n]) => ({
      at: record.run.lastTickTime,
      level: 'warn' as const,
      kind: 'Rejections',
      text: `${n} placement(s) refused or rejected: ${reason}`,
    })),
    {
      at: record.run.lastTickTime,
      level: 'info',
      kind: 'Backtest',
      text:
        `replayed ${record.run.tickers} polls of ${record.run.data}; ${record.orderCounts?.placed ?? record.orders.length} orders, ` +
        `${record.fills.length} fills; ${record.responses429} HTTP 429; weight used ip ${record.weightUsed.ip}, uid ${record.weightUsed.uid}`,
    },
  ];
  return {
    mode: 'backtest',
    title:
      title ??
      `capibot backtest: ${record.run.strategies.map((s) => s.id).join(', ')} on ${basename(record.run.data)}`,
    at: record.run.lastTickTime,
    // A backtest does not record its final trading state; refusals are in the event log.
    tradingState: 'ACTIVE',
    strategies: record.run.strategies.map((s) => {
      const b = books.get(s.id);
      const d = disabled.get(s.id);
      return {
        id: s.id,
        name: basename(s.file).replace(/\.[cm]?[tj]s$/, ''),
        version: '',
        state: d !== undefined ? 'disabled' : 'finished',
        ...(d !== undefined ? { disabledReason: d.reason } : {}),
        droppedWhilePaused: 0,
        positions: b?.positions ?? [],
        realizedPnl: b?.realizedPnl ?? '0',
        fees: b?.fees ?? '0',
      };
    }),
    pnl: {
      realized: decToString(realized),
      unrealized: decToString(unrealized),
      fees: decToString(fees),
      net: decToString(realized.minus(fees).plus(unrealized)),
    },
    openOrders: record.orders.filter((o) => !isTerminal(o.status)).map(orderRow),
    fills: record.fills
      .slice(-MAX_FILLS)
      .reverse()
      .map((f) => fillRow(f, f.clientOid !== undefined ? orders.get(f.clientOid)?.strategy : undefined)),
    equity,
    equityLabel: 'Equity',
    budget: null,
    reconcile: { lastReconciledAt: null, lastRoundAt: null, corrections: 0, warnings: 0 },
    events: events.sort((a, b) => b.at - a.at).slice(0, 200),
  };
}
