// A ConsoleSource for the server's own tests: a fixed snapshot, a pause set and a kill flag.
import type { ConsoleSnapshot, ConsoleSource } from '../../src/console/types.ts';

export interface FakeSource extends ConsoleSource {
  readonly paused: Set<string>;
  killed: number;
  change(): void;
}

export function emptySnapshot(over: Partial<ConsoleSnapshot> = {}): ConsoleSnapshot {
  return {
    mode: 'paper',
    title: 'fake',
    at: 0,
    tradingState: 'ACTIVE',
    strategies: [],
    pnl: { realized: '0', unrealized: '0', fees: '0', net: '0' },
    openOrders: [],
    fills: [],
    equity: [],
    equityLabel: 'Equity',
    budget: null,
    reconcile: { lastReconciledAt: null, lastRoundAt: null, corrections: 0, warnings: 0 },
    events: [],
    ...over,
  };
}

export function fakeSource(control = true): FakeSource {
  const listeners = new Set<() => void>();
  const paused = new Set<string>();
  const ids = ['alpha', 'beta'];
  const s: FakeSource = {
    mode: control ? 'paper' : 'backtest',
    strategyIds: ids,
    paused,
    killed: 0,
    snapshot: () =>
      emptySnapshot({
        tradingState: s.killed > 0 ? 'HALTED' : 'ACTIVE',
        strategies: ids.map((id) => ({
          id,
          name: 'x',
          version: '1',
          state: paused.has(id) ? 'paused' : 'running',
          droppedWhilePaused: 0,
          positions: [],
          realizedPnl: '0',
          fees: '0',
        })),
      }),
    onChange: (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    change: () => {
      for (const fn of listeners) fn();
    },
    ...(control
      ? {
          control: {
            pause: (id: string) => (ids.includes(id) ? (paused.add(id), true) : false),
            resume: (id: string) => (ids.includes(id) ? (paused.delete(id), true) : false),
            kill: () => {
              s.killed++;
              return true;
            },
          },
        }
      : {}),
  };
  return s;
}
