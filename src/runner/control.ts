// The running process's side of the operator channel (src/ops/control-protocol.ts): `capibot kill`
// while `capibot run` holds the store. The runner calls `startControl` once the engine exists and
// `stop()` when it shuts down.
//
// - Kill: on SIGUSR2, and on every poll of the store's meta (so it also works when the signal cannot
//   be delivered), a pending `control.killRequest` engages the engine's kill switch (HALTED, persisted
//   by the engine's trading guard, and every open order canceled), then `control.killAck` names the
//   request. A request is handled once; HALTED only ever tightens, so handling a late one is safe.
// - Snapshot: every `snapshotMs` the runner writes what only it knows (weight budget use, queue
//   depth, PnL marked at the latest tickers) for `capibot status`.
// Store errors here are logged, never thrown: the operator channel must not stop the trading loop.
import type { Logger } from 'pino';
import { decToString } from '../core/decimal.ts';
import type { Engine } from '../engine/engine.ts';
import {
  CONTROL_META,
  CONTROL_SIGNAL,
  pendingKillRequest,
  type KillAck,
  type KillRequest,
  type Listening,
  type RunnerSnapshot,
} from '../ops/control-protocol.ts';
import type { OrderStore } from '../store/port.ts';

/** Where signals come from (the process; an EventEmitter in tests). */
export interface SignalSource {
  on(signal: typeof CONTROL_SIGNAL, listener: () => void): unknown;
  off(signal: typeof CONTROL_SIGNAL, listener: () => void): unknown;
}

export interface RunnerControlDeps {
  readonly store: Pick<OrderStore, 'getMeta' | 'setMeta'>;
  readonly engine: Pick<Engine, 'killSwitch' | 'tradingState' | 'openOrders' | 'metrics' | 'pnl'>;
  readonly log: Logger;
  /** Wall clock for request and snapshot times. Default Date.now. */
  readonly now?: () => number;
  /** How often the store is checked for a kill request. Default 1000 ms; 0 = only on the signal. */
  readonly pollMs?: number;
  /** How often the snapshot is written. Default 5000 ms; 0 = never. */
  readonly snapshotMs?: number;
  /** Default `process`. */
  readonly signals?: SignalSource;
  /** Default `process.pid`. */
  readonly pid?: number;
  /** After the kill switch was engaged (e.g. to hurry the reconciliation pollers). */
  readonly onKill?: (reason: string) => void;
}

export interface RunnerControl {
  /** Handles a pending kill request now; true when one was handled. */
  checkNow(): boolean;
  /** Writes the snapshot now. */
  snapshotNow(): void;
  /**
   * A kill request from inside the process (the web console): written to the store exactly as
   * `capibot kill` writes one, then handled at once, so `capibot status` shows it the same way.
   * True when the kill switch was engaged.
   */
  requestKill(reason: string): boolean;
  /** Stops listening and polling (the last snapshot stays in the store). */
  stop(): void;
}

export function startControl(d: RunnerControlDeps): RunnerControl {
  const now = d.now ?? Date.now;
  const pid = d.pid ?? process.pid;
  const signals: SignalSource = d.signals ?? process;
  const log = d.log.child({ component: 'control' });
  let stopped = false;

  const safely = (what: string, fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      log.error({ err: e }, `control: ${what} failed`);
    }
  };

  const snapshotNow = (): void =>
    safely('writing the status snapshot', () => {
      const m = d.engine.metrics();
      const pnl = d.engine.pnl();
      const snap: RunnerSnapshot = {
        at: now(),
        pid,
        tradingState: d.engine.tradingState(),
        budget: {
          ip: { ...m.budget.ip },
          uid: { ...m.budget.uid },
          orderRate: { ...m.budget.orderRate },
          backoffMs: m.budget.backoffMs,
        },
        queue: { ...m.queue },
        pnl: {
          realized: decToString(pnl.realized),
          unrealized: decToString(pnl.unrealized),
          fees: decToString(pnl.fees),
          net: decToString(pnl.net),
        },
        openOrders: d.engine.openOrders().length,
      };
      d.store.setMeta(CONTROL_META.snapshot, JSON.stringify(snap));
    });

  const checkNow = (): boolean => {
    if (stopped) return false;
    let handled = false;
    safely('handling a kill request', () => {
      const req = pendingKillRequest((k) => d.store.getMeta(k));
      if (req === undefined) return;
      const reason = `operator kill from pid ${req.pid}${req.reason !== '' ? `: ${req.reason}` : ''}`;
      const open = d.engine.openOrders().length;
      log.warn({ requestId: req.id, requestedAt: req.at, openOrders: open }, `kill switch: ${reason}`);
      d.engine.killSwitch(reason);
      const ack: KillAck = {
        id: req.id,
        at: now(),
        pid,
        tradingState: d.engine.tradingState(),
        canceling: open,
        by: 'runner',
      };
      d.store.setMeta(CONTROL_META.killAck, JSON.stringify(ack));
      handled = true;
      d.onKill?.(reason);
    });
    if (handled) snapshotNow();
    return handled;
  };

  const onSignal = (): void => {
    log.info(`${CONTROL_SIGNAL} received: checking for a kill request`);
    checkNow();
  };

  safely('announcing the control channel', () => {
    const listening: Listening = { pid, signal: CONTROL_SIGNAL, since: now() };
    d.store.setMeta(CONTROL_META.listening, JSON.stringify(listening));
  });
  signals.on(CONTROL_SIGNAL, onSignal);
  // A request written while no runner was up (or just before this one started) is honoured now.
  checkNow();
  snapshotNow();

  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number | undefined, dflt: number, fn: () => void): void => {
    const period = ms ?? dflt;
    if (period <= 0) return;
    const t = setInterval(fn, period);
    t.unref();
    timers.push(t);
  };
  every(d.pollMs, 1_000, () => void checkNow());
  every(d.snapshotMs, 5_000, snapshotNow);

  let seq = 0;
  const requestKill = (reason: string): boolean => {
    if (stopped) return false;
    let written = false;
    safely('writing a kill request', () => {
      const req: KillRequest = {
        id: `runner-${pid}-${now()}-${++seq}`,
        at: now(),
        pid,
        reason: reason.slice(0, 500),
      };
      d.store.setMeta(CONTROL_META.killRequest, JSON.stringify(req));
      written = true;
    });
    return written && checkNow();
  };

  return {
    checkNow,
    snapshotNow,
    requestKill,
    stop: () => {
      if (stopped) return;
      stopped = true;
      for (const t of timers) clearInterval(t);
      signals.off(CONTROL_SIGNAL, onSignal);
      snapshotNow();
    },
  };
}
