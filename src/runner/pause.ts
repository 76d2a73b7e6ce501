// Pause and resume of single strategies (the console's control; the engine has no such notion).
// A paused strategy keeps running (it sees tickers, fills and its orders, so its own state stays
// current), but every placement that would OPEN exposure (open_long, open_short) is dropped before it
// reaches the risk gate. Closing placements (close_long, close_short: exits, its stop-losses and
// take-profits) and cancels still pass, so a paused strategy can still protect and unwind what it
// holds — "no new entries", as the REDUCING state is for the whole account. Resuming lets its openings
// through again. The set of paused strategies is kept in the store's meta (`control.paused`), so a
// restart keeps them paused.
//
// Invariant: the wrapper only ever REMOVES opening place intents; it never adds, reorders or changes one.
import type { Logger } from 'pino';
import { filter } from 'rxjs';
import { z } from 'zod';
import type { Intent } from '../core/intents.ts';
import type { EngineStrategyConfig } from '../engine/engine.ts';
import type { StrategyDefinition } from '../strategy/define.ts';
import {
  isStreamInstance,
  type HookStrategyInstance,
  type IntentOutput,
  type StrategyInstance,
} from '../strategy/types.ts';
import type { OrderStore } from '../store/port.ts';

export const PAUSED_META = 'control.paused';

const PausedSchema = z.array(z.string().max(64)).max(1000);

export interface PauseBook {
  isPaused(strategy: string): boolean;
  /** The strategies paused now, sorted. */
  paused(): readonly string[];
  /** Pauses `strategy`; false when it is not one of this run's strategies. */
  pause(strategy: string): boolean;
  resume(strategy: string): boolean;
  /** Opening placements dropped while paused, per strategy. */
  dropped(strategy: string): number;
  /** Counts one dropped placement (called by the wrappers of pausableStrategies). */
  countDrop(strategy: string): void;
}

export interface PauseBookDeps {
  readonly strategies: readonly string[];
  readonly store?: Pick<OrderStore, 'getMeta' | 'setMeta'>;
  readonly log?: Logger;
}

export function createPauseBook(d: PauseBookDeps): PauseBook {
  const known = new Set(d.strategies);
  const paused = new Set<string>();
  const drops = new Map<string, number>();
  const saved = d.store?.getMeta(PAUSED_META);
  if (saved !== undefined) {
    try {
      const parsed = PausedSchema.safeParse(JSON.parse(saved));
      if (parsed.success) for (const id of parsed.data) if (known.has(id)) paused.add(id);
    } catch {
      d.log?.warn('control.paused in the store is not valid JSON: no strategy starts paused');
    }
  }
  const persist = (): void => {
    try {
      d.store?.setMeta(PAUSED_META, JSON.stringify([...paused].sort()));
    } catch (e) {
      d.log?.error({ err: e }, 'could not save the paused strategies (kept in memory)');
    }
  };
  return {
    isPaused: (s) => paused.has(s),
    paused: () => [...paused].sort(),
    pause: (s) => {
      if (!known.has(s)) return false;
      if (!paused.has(s)) {
        paused.add(s);
        persist();
        d.log?.warn({ strategy: s }, 'strategy paused: its opening placements are dropped until resumed');
      }
      return true;
    },
    resume: (s) => {
      if (!known.has(s)) return false;
      if (paused.delete(s)) {
        persist();
        d.log?.warn({ strategy: s }, 'strategy resumed');
      }
      return true;
    },
    dropped: (s) => drops.get(s) ?? 0,
    countDrop: (s) => void drops.set(s, (drops.get(s) ?? 0) + 1),
  };
}

/** The strategies with their definitions wrapped so that `book` can pause them. */
export function pausableStrategies(
  strategies: readonly EngineStrategyConfig[],
  book: PauseBook,
): EngineStrategyConfig[] {
  return strategies.map((s) => {
    const pass = (i: Intent): boolean => {
      if (i.kind !== 'place' || !i.side.startsWith('open_') || !book.isPaused(s.id)) return true;
      book.countDrop(s.id);
      return false;
    };
    const def: StrategyDefinition = {
      ...s.definition,
      create: (ctx, params) => wrapInstance(s.definition.create(ctx, params), pass),
    };
    return { ...s, definition: Object.freeze(def) };
  });
}

function filterOutput(out: IntentOutput, pass: (i: Intent) => boolean): IntentOutput {
  if (out === undefined || out === null) return out;
  if (Array.isArray(out)) return (out as readonly Intent[]).filter(pass);
  const one = out as Intent;
  return pass(one) ? one : undefined;
}

function wrapInstance(inst: StrategyInstance, pass: (i: Intent) => boolean): StrategyInstance {
  // Anything unexpected is handed on untouched: the engine's own checks report it as they would.
  if (typeof inst !== 'object' || inst === null) return inst;
  if (isStreamInstance(inst)) {
    return {
      ...(inst.timerIntervalMs !== undefined ? { timerIntervalMs: inst.timerIntervalMs } : {}),
      run: (inputs) => inst.run(inputs).pipe(filter(pass)),
    };
  }
  const h: HookStrategyInstance = inst;
  const out: { -readonly [K in keyof HookStrategyInstance]: HookStrategyInstance[K] } = {};
  if (h.timerIntervalMs !== undefined) out.timerIntervalMs = h.timerIntervalMs;
  if (h.onTicker !== undefined) out.onTicker = (t) => filterOutput(h.onTicker?.call(h, t), pass);
  if (h.onFill !== undefined) out.onFill = (f) => filterOutput(h.onFill?.call(h, f), pass);
  if (h.onOrderUpdate !== undefined)
    out.onOrderUpdate = (o) => filterOutput(h.onOrderUpdate?.call(h, o), pass);
  if (h.onTimer !== undefined) out.onTimer = (n) => filterOutput(h.onTimer?.call(h, n), pass);
  return out;
}
