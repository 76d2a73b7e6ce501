// The strategy host: runs every strategy instance as its own stream and merges their intents.
// Isolation (invariant 7): each strategy's stream has its own catchError, so a throw or an invalid
// intent ends THAT stream with one StrategyDisabled event; the merged root never sees an error and
// the other strategies go on. Everything is synchronous: a ticker pushed in comes out as intents
// before `next` returns, which is what virtual-time driving relies on.
import {
  catchError,
  defer,
  EMPTY,
  filter,
  isObservable,
  map,
  merge,
  NEVER,
  Observable,
  of,
  throwError,
} from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { StrategyId, SymbolId } from '../core/ids.ts';
import type { Intent } from '../core/intents.ts';
import type { ContractSpec, Ticker } from '../core/market.ts';
import type { Order } from '../core/orders.ts';
import { describeFailure, HookFailure, HookMisuse, type HookName } from './hook-failure.ts';
import { validateIntent, type IntentRules } from './intent-schema.ts';
import {
  isStreamInstance,
  type HookStrategyInstance,
  type IntentOutput,
  type StrategyFill,
  type StrategyInputs,
  type StrategyInstance,
} from './types.ts';

export interface HostedStrategy {
  readonly id: StrategyId;
  readonly symbols: readonly SymbolId[];
  /** Used to check emitted sizes and prices against steps and ticks. */
  readonly specs?: ReadonlyMap<SymbolId, ContractSpec>;
  readonly instance: StrategyInstance;
}

/** Shared engine streams; the host filters them per strategy. */
export interface HostInputs {
  readonly tickers$: Observable<Ticker>;
  readonly orders$: Observable<Order>;
  readonly fills$: Observable<StrategyFill>;
  /** Clock pulses (the current time); strategy timers fire from these. */
  readonly clock$: Observable<number>;
}

export interface StrategyIntentEmitted {
  readonly kind: 'StrategyIntent';
  readonly strategy: StrategyId;
  readonly intent: Intent;
  readonly at: number;
}

export interface StrategyDisabled {
  readonly kind: 'StrategyDisabled';
  readonly strategy: StrategyId;
  readonly reason: string;
  readonly at: number;
}

export type HostOutput = StrategyIntentEmitted | StrategyDisabled;

/** Fires at most once per pulse, every `intervalMs` on a fixed grid from the first pulse seen. */
export function timerFromPulses(
  clock$: Observable<number>,
  intervalMs: number | undefined,
): Observable<number> {
  if (intervalMs === undefined) return NEVER;
  if (!Number.isFinite(intervalMs) || intervalMs <= 0)
    throw new RangeError(`timerIntervalMs must be positive, got ${intervalMs}`);
  return defer(() => {
    let next: number | undefined;
    return clock$.pipe(
      filter((now) => {
        if (next === undefined) {
          next = now + intervalMs;
          return false;
        }
        if (now < next) return false;
        next += intervalMs * (Math.floor((now - next) / intervalMs) + 1);
        return true;
      }),
    );
  });
}

function strategyInputs(s: HostedStrategy, inputs: HostInputs): StrategyInputs {
  const symbols = new Set(s.symbols);
  return {
    tickers$: inputs.tickers$.pipe(filter((t) => symbols.has(t.symbol))),
    orders$: inputs.orders$.pipe(filter((o) => o.strategy === s.id)),
    fills$: inputs.fills$.pipe(filter((f) => f.strategy === s.id)),
    timer$: timerFromPulses(inputs.clock$, s.instance.timerIntervalMs),
  };
}

/** A hook's return value as raw intents. A Promise is refused by name (hooks are synchronous). */
function outputs(hook: HookName, out: IntentOutput): readonly unknown[] {
  if (out === undefined || out === null) return [];
  if (Array.isArray(out)) return out as readonly unknown[];
  if (typeof (out as { then?: unknown }).then === 'function') {
    // Its rejection is nobody's to handle: mark it handled, or it would end the process.
    (out as unknown as PromiseLike<unknown>).then(undefined, () => undefined);
    throw new HookFailure(
      hook,
      new HookMisuse(
        'returned a Promise: hooks are synchronous and return intents (or nothing), never a Promise',
      ),
    );
  }
  return [out];
}

/** One hook call, named for the error it may throw. */
interface HookCall {
  readonly hook: HookName;
  readonly call: () => IntentOutput;
}

function invoke({ hook, call }: HookCall): readonly unknown[] {
  let out: IntentOutput;
  try {
    out = call();
  } catch (e) {
    throw new HookFailure(hook, e);
  }
  return outputs(hook, out);
}

/** Hook style as a stream: each hook call's return value becomes zero or more raw intents. */
function hookStream(instance: HookStrategyInstance, inputs: StrategyInputs): Observable<unknown> {
  const calls: Observable<HookCall>[] = [];
  if (instance.onTicker)
    calls.push(inputs.tickers$.pipe(map((t) => ({ hook: 'onTicker', call: () => instance.onTicker?.(t) }))));
  if (instance.onOrderUpdate)
    calls.push(
      inputs.orders$.pipe(map((o) => ({ hook: 'onOrderUpdate', call: () => instance.onOrderUpdate?.(o) }))),
    );
  if (instance.onFill)
    calls.push(inputs.fills$.pipe(map((f) => ({ hook: 'onFill', call: () => instance.onFill?.(f) }))));
  if (instance.onTimer)
    calls.push(inputs.timer$.pipe(map((now) => ({ hook: 'onTimer', call: () => instance.onTimer?.(now) }))));
  if (calls.length === 0) return EMPTY;
  return merge(...calls).pipe(flatInvoke);
}

/**
 * Each hook call's intents, emitted in order, synchronously: what `mergeMap((c) => from(invoke(c)))`
 * emits (a failing call errors the stream), without an inner subscription per call (per ticker).
 */
function flatInvoke(calls$: Observable<HookCall>): Observable<unknown> {
  return new Observable<unknown>((subscriber) =>
    calls$.subscribe({
      next: (c) => {
        let out: readonly unknown[];
        try {
          out = invoke(c);
        } catch (e) {
          subscriber.error(e);
          return;
        }
        for (const value of out) subscriber.next(value);
      },
      error: (e: unknown) => subscriber.error(e),
      complete: () => subscriber.complete(),
    }),
  );
}

/** One strategy's isolated stream: intents, then at most one StrategyDisabled, then completion. */
export function hostStrategy(s: HostedStrategy, inputs: HostInputs, clock: Clock): Observable<HostOutput> {
  const rules: IntentRules = {
    strategy: s.id,
    symbols: new Set(s.symbols),
    ...(s.specs ? { specs: s.specs } : {}),
  };
  const raw$ = defer(() => {
    const own = strategyInputs(s, inputs);
    const instance = s.instance;
    if (!isStreamInstance(instance)) return hookStream(instance, own);
    let run$: unknown;
    try {
      run$ = instance.run(own);
    } catch (e) {
      throw new HookFailure('run', e);
    }
    if (!isObservable(run$)) {
      if (typeof (run$ as { then?: unknown } | null)?.then === 'function')
        (run$ as PromiseLike<unknown>).then(undefined, () => undefined); // never an unhandled rejection
      throw new HookFailure(
        'run',
        new HookMisuse('did not return an Observable of intents (run is synchronous)'),
      );
    }
    return run$.pipe(catchError((e: unknown) => throwError(() => new HookFailure('run', e))));
  });
  return raw$.pipe(
    map((value): HostOutput => ({
      kind: 'StrategyIntent',
      strategy: s.id,
      intent: validateIntent(value, rules),
      at: clock.now(),
    })),
    catchError((e: unknown) =>
      of<HostOutput>({
        kind: 'StrategyDisabled',
        strategy: s.id,
        reason: describeFailure(e),
        at: clock.now(),
      }),
    ),
  );
}

/** Every strategy, merged; errors never reach this level. */
export function hostStrategies(
  strategies: readonly HostedStrategy[],
  inputs: HostInputs,
  clock: Clock,
): Observable<HostOutput> {
  return merge(...strategies.map((s) => hostStrategy(s, inputs, clock)));
}
