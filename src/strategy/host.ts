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
  Subscription,
  throwError,
} from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { StrategyId, SymbolId } from '../core/ids.ts';
import type { Intent } from '../core/intents.ts';
import type { ContractSpec, Ticker } from '../core/market.ts';
import type { Order } from '../core/orders.ts';
import { describeFailure, HookFailure, HookMisuse, type HookName } from './hook-failure.ts';
import { validateIntent, type IntentRules } from './intent-schema.ts';
import { routeByKey } from './route-by-key.ts';
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

/** Shared engine streams; the host hands each strategy its part (`filteredInputs`, `routedInputs`). */
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

/** The order updates and fills of each strategy (see `routedInputs`). */
export interface OwnStreams {
  readonly ordersOf: (id: StrategyId) => Observable<Order>;
  readonly fillsOf: (id: StrategyId) => Observable<StrategyFill>;
}

/** Each strategy's order updates and fills through a filter of its own (any source, cold ones too). */
export function filteredInputs(inputs: HostInputs): OwnStreams {
  return {
    ordersOf: (id) => inputs.orders$.pipe(filter((o) => o.strategy === id)),
    fillsOf: (id) => inputs.fills$.pipe(filter((f) => f.strategy === id)),
  };
}

/**
 * Each strategy's order updates and fills routed to it by its id (./route-by-key.ts): every update
 * belongs to one strategy, so its cost stays the same however many strategies run. For hot sources
 * (the engine's Subjects).
 */
export function routedInputs(inputs: HostInputs): OwnStreams {
  return {
    ordersOf: routeByKey(inputs.orders$, (o) => o.strategy),
    fillsOf: routeByKey(inputs.fills$, (f) => f.strategy),
  };
}

function strategyInputs(s: HostedStrategy, inputs: HostInputs, own: OwnStreams): StrategyInputs {
  const symbols = new Set(s.symbols);
  return {
    tickers$: inputs.tickers$.pipe(filter((t) => symbols.has(t.symbol))),
    orders$: own.ordersOf(s.id),
    fills$: own.fillsOf(s.id),
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

/** One hook call's intents; a throw becomes the HookFailure naming the hook. */
function invoke<T>(hook: HookName, call: (input: T) => IntentOutput, input: T): readonly unknown[] {
  let out: IntentOutput;
  try {
    out = call(input);
  } catch (e) {
    throw new HookFailure(hook, e);
  }
  return outputs(hook, out);
}

/** A hook and the input stream that calls it. */
interface HookFeed<T> {
  readonly hook: HookName;
  readonly input$: Observable<T>;
  readonly call: (input: T) => IntentOutput;
}

const feed = <T>(
  hook: HookName,
  input$: Observable<T>,
  call: (input: T) => IntentOutput,
): HookFeed<unknown> => ({ hook, input$, call }) as HookFeed<unknown>;

/**
 * Hook style as a stream: each hook call's return value becomes zero or more raw intents, emitted in
 * order, synchronously. What `merge` of the inputs, each mapped to its hook's call and flattened,
 * emits (a failing call errors the stream and unsubscribes every input; it completes when every
 * input has), without an object, a closure or an operator per input value: a quiet poll's ticker
 * goes from the strategy's filtered input straight into its hook.
 */
function hookStream(instance: HookStrategyInstance, inputs: StrategyInputs): Observable<unknown> {
  const feeds: HookFeed<unknown>[] = [];
  // Hooks are called as methods of the instance (`this` is the instance).
  if (instance.onTicker) feeds.push(feed('onTicker', inputs.tickers$, (t: Ticker) => instance.onTicker?.(t)));
  if (instance.onOrderUpdate)
    feeds.push(feed('onOrderUpdate', inputs.orders$, (o: Order) => instance.onOrderUpdate?.(o)));
  if (instance.onFill) feeds.push(feed('onFill', inputs.fills$, (f: StrategyFill) => instance.onFill?.(f)));
  if (instance.onTimer) feeds.push(feed('onTimer', inputs.timer$, (now: number) => instance.onTimer?.(now)));
  if (feeds.length === 0) return EMPTY;
  return new Observable<unknown>((subscriber) => {
    const subscriptions = new Subscription();
    let open = feeds.length;
    for (const f of feeds) {
      if (subscriber.closed) break;
      subscriptions.add(
        f.input$.subscribe({
          next: (input) => {
            let out: readonly unknown[];
            try {
              out = invoke(f.hook, f.call, input);
            } catch (e) {
              subscriber.error(e);
              return;
            }
            for (const value of out) subscriber.next(value);
          },
          error: (e: unknown) => subscriber.error(e),
          complete: () => {
            if (--open === 0) subscriber.complete();
          },
        }),
      );
    }
    return subscriptions;
  });
}

/** One strategy's isolated stream: intents, then at most one StrategyDisabled, then completion. */
export function hostStrategy(
  s: HostedStrategy,
  inputs: HostInputs,
  clock: Clock,
  own: OwnStreams = filteredInputs(inputs),
): Observable<HostOutput> {
  const rules: IntentRules = {
    strategy: s.id,
    symbols: new Set(s.symbols),
    ...(s.specs ? { specs: s.specs } : {}),
  };
  const raw$ = defer(() => {
    const streams = strategyInputs(s, inputs, own);
    const instance = s.instance;
    if (!isStreamInstance(instance)) return hookStream(instance, streams);
    let run$: unknown;
    try {
      run$ = instance.run(streams);
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

/**
 * Every strategy, merged; errors never reach this level. `inputs` are the engine's hot streams: each
 * order update and fill is routed to its strategy (`routedInputs`).
 */
export function hostStrategies(
  strategies: readonly HostedStrategy[],
  inputs: HostInputs,
  clock: Clock,
): Observable<HostOutput> {
  const own = routedInputs(inputs);
  return merge(...strategies.map((s) => hostStrategy(s, inputs, clock, own)));
}
