// The console's view of a running bot: engine state read on demand (trading state, PnL marked at the
// latest tickers, open orders, budget), plus what only a listener sees go by (fills from the
// reconciliation rounds, the event log, the equity samples). Reading never changes the engine; the
// only writes are the control operations, which go through the runner's existing channels (the pause
// book, the kill request of the operator channel).
import type { Logger } from 'pino';
import { dec, decToNumber, decToString, type Dec } from '../core/decimal.ts';
import type { ClientOid } from '../core/ids.ts';
import type { PositionBook } from '../core/positions.ts';
import type { Engine } from '../engine/engine.ts';
import type { EngineEvent } from '../engine/events.ts';
import { RECONCILE_META } from '../reconcile/pollers.ts';
import type { RoundResult } from '../reconcile/round.ts';
import type { OrderStore, StoredFill } from '../store/port.ts';
import { byStrategy, fillRow, foldFills, MAX_FILLS, orderRow } from './book.ts';
import { eventLine, Ring } from './event-lines.ts';
import type {
  ConsoleControl,
  ConsoleEventLine,
  ConsoleFill,
  ConsoleMode,
  ConsoleSnapshot,
  ConsoleSource,
} from './types.ts';

export interface LiveSourceDeps {
  readonly mode: Exclude<ConsoleMode, 'backtest'>;
  readonly title: string;
  readonly engine: Pick<Engine, 'events$' | 'strategies' | 'tradingState' | 'pnl' | 'openOrders' | 'metrics'>;
  readonly store: Pick<OrderStore, 'getMeta' | 'allFills' | 'getOrder'>;
  readonly pauses: {
    isPaused(s: string): boolean;
    dropped(s: string): number;
  };
  readonly control: ConsoleControl;
  /** Account equity at start (paper: the starting balance); absent = the chart shows net PnL. */
  readonly startingEquity?: Dec;
  /** Wall clock. */
  readonly now: () => number;
  /** Equity sample period (ms). Default 2000. */
  readonly sampleMs?: number;
  readonly log?: Logger;
}

export interface LiveSource extends ConsoleSource {
  /** A committed reconciliation round (the runner's onRound): its fills and findings. */
  round(r: RoundResult): void;
  /** A line of the event log from outside the engine (console actions, notifications). */
  note(level: ConsoleEventLine['level'], kind: string, text: string): void;
  stop(): void;
}

const MAX_EQUITY_POINTS = 2_000;

export function createLiveSource(d: LiveSourceDeps): LiveSource {
  const listeners = new Set<() => void>();
  const changed = (): void => {
    for (const fn of listeners) fn();
  };
  const fills = new Ring<ConsoleFill>(MAX_FILLS);
  const events = new Ring<ConsoleEventLine>(200);
  const disabled = new Map<string, string>();
  const equity: { t: number; v: number }[] = [];
  let lastRoundAt: number | null = null;
  let corrections = 0;
  let warnings = 0;
  const orderOf = (oid: ClientOid) => d.store.getOrder(oid);
  // The book is refolded from the store only when fills arrived (not on every snapshot).
  let book: PositionBook | undefined;
  const strategyOf = (f: StoredFill): string | undefined =>
    f.clientOid !== undefined ? orderOf(f.clientOid)?.strategy : undefined;

  // The most recent fills of earlier runs, so the page is not empty after a restart.
  const earlier = d.store.allFills();
  for (const f of earlier.slice(-MAX_FILLS)) fills.push(fillRow(f, strategyOf(f)));

  // Called inside the engine's event stream and from a timer: an error here must never escape (RxJS
  // would rethrow it as an uncaught exception and end the process); it is logged and dropped.
  const safely = (what: string, fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      d.log?.error({ err: e }, `console: ${what} failed`);
    }
  };

  const sub = d.engine.events$.subscribe((e: EngineEvent) =>
    safely('an event line', () => {
      if (e.kind === 'StrategyDisabled') disabled.set(e.strategy, e.reason);
      const line = eventLine(e);
      if (line === undefined) return;
      events.push(line);
      changed();
    }),
  );

  const sample = (): void =>
    safely('an equity sample', () => {
      const net = d.engine.pnl().net;
      const v = d.startingEquity !== undefined ? d.startingEquity.plus(net) : net;
      equity.push({ t: d.now(), v: decToNumber(v) });
      // Thinning keeps the whole run in view with a bounded number of points.
      if (equity.length > MAX_EQUITY_POINTS) {
        const kept = equity.filter((_, i) => i % 2 === 0);
        equity.length = 0;
        equity.push(...kept);
      }
      changed();
    });
  sample();
  const timer = setInterval(sample, d.sampleMs ?? 2_000);
  timer.unref();

  const snapshot = (): ConsoleSnapshot => {
    book ??= foldFills(d.store.allFills(), orderOf);
    const books = byStrategy(book);
    const pnl = d.engine.pnl();
    const m = d.engine.metrics();
    const last = d.store.getMeta(RECONCILE_META.lastReconciledAt);
    return {
      mode: d.mode,
      title: d.title,
      at: d.now(),
      tradingState: d.engine.tradingState(),
      strategies: d.engine.strategies.map((s) => {
        const b = books.get(s.id);
        const reason = disabled.get(s.id);
        return {
          id: s.id,
          name: s.name,
          version: s.version,
          state: reason !== undefined ? 'disabled' : d.pauses.isPaused(s.id) ? 'paused' : 'running',
          ...(reason !== undefined ? { disabledReason: reason } : {}),
          droppedWhilePaused: d.pauses.dropped(s.id),
          positions: b?.positions ?? [],
          realizedPnl: b?.realizedPnl ?? '0',
          fees: b?.fees ?? '0',
        };
      }),
      pnl: {
        realized: decToString(pnl.realized),
        unrealized: decToString(pnl.unrealized),
        fees: decToString(pnl.fees),
        net: decToString(pnl.net),
      },
      openOrders: d.engine.openOrders().map(orderRow),
      fills: fills.items(),
      equity: equity.slice(),
      equityLabel: d.startingEquity !== undefined ? 'Equity' : 'Net PnL',
      budget: {
        ip: { ...m.budget.ip },
        uid: { ...m.budget.uid },
        orderRate: { ...m.budget.orderRate },
        backoffMs: m.budget.backoffMs,
      },
      reconcile: {
        lastReconciledAt: last !== undefined && /^\d+$/.test(last) ? Number(last) : null,
        lastRoundAt,
        corrections,
        warnings,
      },
      events: events.items(),
    };
  };

  return {
    mode: d.mode,
    strategyIds: d.engine.strategies.map((s) => s.id),
    control: d.control,
    snapshot,
    onChange: (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    round: (r) =>
      safely('a reconciliation round', () => {
        if (r.full) lastRoundAt = d.now();
        for (const n of Object.values(r.corrections)) corrections += n;
        warnings += r.warnings.length;
        for (const w of r.warnings)
          events.push({ at: r.at, level: 'warn', kind: 'ReconcileWarning', text: `${w.code}: ${w.message}` });
        if (r.fillsForEngine.length > 0) {
          book = undefined;
          for (const f of r.fillsForEngine) fills.push(fillRow(f, strategyOf(f)));
        }
        changed();
      }),
    note: (level, kind, text) => {
      events.push({ at: d.now(), level, kind, text });
      changed();
    },
    stop: () => {
      clearInterval(timer);
      sub.unsubscribe();
      listeners.clear();
    },
  };
}

/** For tests and the backtest source: a decimal string's number (chart values only). */
export const chartNumber = (s: string): number => decToNumber(dec(s));
