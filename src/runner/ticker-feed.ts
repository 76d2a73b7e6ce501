// The live ticker source of a run: the tickers poller (src/market/poller.ts) reading the venue through
// the weight budget, each poll shown to the engine (strategies, risk marks) after the venue's clock
// and the embedded simulator (if any) have taken it.
import type { Logger } from 'pino';
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { SymbolId } from '../core/ids.ts';
import type { Ticker } from '../core/market.ts';
import type { Engine } from '../engine/engine.ts';
import type { ReadThrough } from '../reconcile/fetch.ts';
import { createTickerPoller } from '../market/poller.ts';
import type { Venue } from './venue.ts';

export interface TickerFeedDeps {
  readonly venue: Venue;
  readonly engine: Engine;
  /** Budgeted reads (the session's). */
  readonly read: ReadThrough;
  /** Only these symbols reach the engine (the exchange lists hundreds). */
  readonly symbols: readonly SymbolId[];
  readonly intervalMs: number;
  readonly staleAfterMs: number;
  /** Wall clock: ticker freshness is judged in real time, whatever the venue's clock does. */
  readonly wall: Clock;
  readonly log: Logger;
  readonly scheduler?: SchedulerLike;
  readonly onTickers?: (tickers: readonly Ticker[]) => void;
}

export class TickerFeed {
  readonly #d: TickerFeedDeps;
  #sub: Subscription | undefined;
  #lastAt: number | undefined;

  constructor(deps: TickerFeedDeps) {
    this.#d = deps;
  }

  /** Wall time of the last successful poll. */
  get lastTickersAt(): number | undefined {
    return this.#lastAt;
  }

  start(): void {
    const d = this.#d;
    const wanted = new Set<string>(d.symbols);
    const poller = createTickerPoller({
      fetchTickers: () => d.venue.fetchTickers(d.read),
      intervalMs: d.intervalMs,
      scheduler: d.scheduler ?? asyncScheduler,
      staleAfterMs: d.staleAfterMs,
      retry: { initialDelayMs: Math.min(1_000, d.intervalMs), maxDelayMs: 30_000 },
      logger: d.log,
    });
    this.#sub = poller.events$.subscribe((ev) => {
      if (ev.kind !== 'tickers') return;
      this.#lastAt = d.wall.now();
      const ours = ev.tickers.filter((t) => wanted.has(t.symbol));
      d.onTickers?.(ours);
      d.engine.onTick(ours);
    });
  }

  stop(): void {
    this.#sub?.unsubscribe();
    this.#sub = undefined;
  }
}
