// The live ticker source: polls the tickers endpoint on an injected RxJS scheduler.
//
// - A poll first takes its weight through `gate` (the executor's IP-weight budget plugs in here; the
//   tickers endpoint costs 40), then fetches. Polls never overlap: ticks that fall while a poll (or its
//   retries) is running are dropped (exhaustMap).
// - A failed fetch is retried with exponential backoff (a read is always safe to retry); each
//   failure is published as an `error` event. RateLimitedError's retry-after is honoured.
// - When the exchange timestamp stops advancing for `staleAfterPolls` polls (or `staleAfterMs`), a
//   `stale` event is published once, and `fresh` when it moves again.
// - `bySymbol(symbol)` is a shared stream of that symbol's tickers, duplicates (same or older exchange
//   timestamp) removed.
// `fetchTickers` and `gate` are wrapped in `defer`, so tests may return cold observables.
import {
  catchError,
  concat,
  concatMap,
  defaultIfEmpty,
  defer,
  exhaustMap,
  filter,
  map,
  mergeMap,
  of,
  share,
  take,
  timer,
  type Observable,
  type ObservableInput,
  type SchedulerLike,
} from 'rxjs';
import type { Logger } from 'pino';
import { RateLimitedError } from '../core/errors.ts';
import type { Ticker } from '../core/market.ts';

export interface PollerRetryOptions {
  /** First retry delay; default 1000 ms. */
  readonly initialDelayMs?: number;
  /** Cap of the delay; default 30 000 ms. */
  readonly maxDelayMs?: number;
  /** Growth per failed attempt; default 2. */
  readonly factor?: number;
  /** Attempts per poll (first try included) before the poll is given up until the next tick; default unlimited. */
  readonly maxAttempts?: number;
}

export interface TickerPollerOptions {
  /** One request to the tickers endpoint. */
  readonly fetchTickers: () => ObservableInput<readonly Ticker[]>;
  readonly intervalMs: number;
  readonly scheduler: SchedulerLike;
  /** Taken before every request (retries included); the request waits until it resolves/emits/completes. */
  readonly gate?: () => ObservableInput<unknown>;
  readonly retry?: PollerRetryOptions;
  /** Successful polls without the exchange timestamp advancing before `stale`; default 3. */
  readonly staleAfterPolls?: number;
  /** Scheduler time without the exchange timestamp advancing before `stale`; default: not used. */
  readonly staleAfterMs?: number;
  readonly logger?: Logger;
}

export type PollerEvent =
  /** One successful poll; `at` is the scheduler time when the reply arrived. */
  | { readonly kind: 'tickers'; readonly at: number; readonly tickers: readonly Ticker[] }
  /** A failed attempt; `retryInMs` is null when this poll was given up (the next tick tries again). */
  | {
      readonly kind: 'error';
      readonly at: number;
      readonly error: unknown;
      readonly attempt: number;
      readonly retryInMs: number | null;
    }
  /** The exchange timestamp has not advanced for `unchangedPolls` polls / `sinceMs` ms. */
  | {
      readonly kind: 'stale';
      readonly at: number;
      readonly exchangeTime: number;
      readonly unchangedPolls: number;
      readonly sinceMs: number;
    }
  /** The exchange timestamp advanced again after a `stale`. */
  | { readonly kind: 'fresh'; readonly at: number; readonly exchangeTime: number };

export interface TickerPoller {
  /** Every event; polling runs while at least one of the poller's streams is subscribed. */
  readonly events$: Observable<PollerEvent>;
  /** The tickers of each successful poll. */
  readonly tickers$: Observable<readonly Ticker[]>;
  /** One symbol's tickers, exchange timestamp strictly increasing; the same shared stream per symbol. */
  bySymbol(symbol: string): Observable<Ticker>;
}

/** Delay before retry number `attempt` (1 = first retry). */
export function backoffDelay(attempt: number, o: PollerRetryOptions = {}): number {
  const initial = o.initialDelayMs ?? 1000;
  const max = o.maxDelayMs ?? 30_000;
  const factor = o.factor ?? 2;
  return Math.min(max, initial * factor ** Math.max(0, attempt - 1));
}

/** The latest exchange timestamp of a poll (-1 for an empty poll). */
function pollExchangeTime(tickers: readonly Ticker[]): number {
  let max = -1;
  for (const t of tickers) if (t.timestamp > max) max = t.timestamp;
  return max;
}

export function createTickerPoller(opts: TickerPollerOptions): TickerPoller {
  const { scheduler, logger } = opts;
  const maxAttempts = opts.retry?.maxAttempts ?? Number.POSITIVE_INFINITY;
  const staleAfterPolls = opts.staleAfterPolls ?? 3;
  const gate = opts.gate;

  const request = (): Observable<readonly Ticker[]> => {
    const fetch$ = defer(opts.fetchTickers).pipe(take(1));
    if (!gate) return fetch$;
    return defer(gate).pipe(
      take(1),
      defaultIfEmpty(undefined),
      concatMap(() => fetch$),
    );
  };

  const attempt = (n: number): Observable<PollerEvent> =>
    request().pipe(
      map((tickers): PollerEvent => ({ kind: 'tickers', at: scheduler.now(), tickers })),
      catchError((error: unknown) => {
        const giveUp = n >= maxAttempts;
        const backoff = backoffDelay(n, opts.retry);
        const delay = error instanceof RateLimitedError ? Math.max(backoff, error.retryAfterMs) : backoff;
        const ev: PollerEvent = {
          kind: 'error',
          at: scheduler.now(),
          error,
          attempt: n,
          retryInMs: giveUp ? null : delay,
        };
        logger?.warn({ err: error, attempt: n, retryInMs: ev.retryInMs }, 'tickers poll failed');
        if (giveUp) return of(ev);
        return concat(of(ev), timer(delay, scheduler).pipe(concatMap(() => attempt(n + 1))));
      }),
    );

  const events$ = defer(() => {
    // Staleness state lives per subscription of the shared stream.
    let lastExchangeTime = -1;
    let lastAdvanceAt = scheduler.now();
    let unchanged = 0;
    let stale = false;
    const staleness = (ev: PollerEvent): PollerEvent[] => {
      if (ev.kind !== 'tickers') return [ev];
      const ts = pollExchangeTime(ev.tickers);
      if (ts > lastExchangeTime) {
        const wasStale = stale;
        lastExchangeTime = ts;
        lastAdvanceAt = ev.at;
        unchanged = 0;
        stale = false;
        return wasStale ? [{ kind: 'fresh', at: ev.at, exchangeTime: ts }, ev] : [ev];
      }
      unchanged++;
      const sinceMs = ev.at - lastAdvanceAt;
      const byPolls = unchanged >= staleAfterPolls;
      const byTime = opts.staleAfterMs !== undefined && sinceMs >= opts.staleAfterMs;
      if (stale || !(byPolls || byTime)) return [ev];
      stale = true;
      logger?.warn(
        { exchangeTime: lastExchangeTime, unchangedPolls: unchanged, sinceMs },
        'tickers are stale',
      );
      return [
        ev,
        { kind: 'stale', at: ev.at, exchangeTime: lastExchangeTime, unchangedPolls: unchanged, sinceMs },
      ];
    };
    return timer(0, opts.intervalMs, scheduler).pipe(
      exhaustMap(() => attempt(1)),
      mergeMap(staleness),
    );
  }).pipe(share());

  const tickers$ = events$.pipe(
    filter((ev): ev is Extract<PollerEvent, { kind: 'tickers' }> => ev.kind === 'tickers'),
    map((ev) => ev.tickers),
  );

  const streams = new Map<string, Observable<Ticker>>();
  const bySymbol = (symbol: string): Observable<Ticker> => {
    const known = streams.get(symbol);
    if (known) return known;
    const stream = defer(() => {
      let lastTs = -1;
      return tickers$.pipe(
        mergeMap((list) => list.filter((t) => t.symbol === symbol)),
        filter((t) => {
          if (t.timestamp <= lastTs) return false;
          lastTs = t.timestamp;
          return true;
        }),
      );
    }).pipe(share());
    streams.set(symbol, stream);
    return stream;
  };

  return { events$, tickers$, bySymbol };
}
