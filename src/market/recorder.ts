// The recorder behind `capibot record`: polls the tickers endpoint (through the ticker poller, so
// it never overlaps and backs off on errors) and appends one line per poll to a recording, flushed
// after every poll. It stops when `signal` aborts or after `durationMs`, then closes the file, so an
// interrupted recording is always valid.
import {
  asyncScheduler,
  concatMap,
  defaultIfEmpty,
  from,
  fromEvent,
  lastValueFrom,
  merge,
  takeUntil,
  timer,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { BadInputError } from '../core/errors.ts';
import type { Clock } from '../core/clock.ts';
import type { RecordingMeta, Ticker } from '../core/market.ts';
import { createTickerPoller, type PollerRetryOptions } from './poller.ts';
import { isWireTickerShape, RECORDING_FORMAT } from './recording/format.ts';
import { readRecordingMeta } from './recording/reader.ts';
import { openRecordingWriter } from './recording/writer.ts';

export interface RecorderOptions {
  readonly out: string;
  /** One GET of the tickers endpoint (e.g. the WEEX client's `tickers()`); each ticker's `wire` is recorded. */
  readonly fetchTickers: () => Promise<readonly Ticker[]>;
  readonly intervalMs: number;
  /** Stop after this long; default: only when `signal` aborts. */
  readonly durationMs?: number;
  /** Keep only these symbols; default: all. */
  readonly symbols?: readonly string[];
  /** Backoff of failed polls; the poller's defaults otherwise. */
  readonly retry?: PollerRetryOptions;
  /** Taken before each request (the weight budget hook of the poller). */
  readonly gate?: () => Promise<void>;
  readonly signal?: AbortSignal;
  /** Receive time of each poll (`t`); wall time live. */
  readonly clock: Clock;
  readonly scheduler?: SchedulerLike;
  /** Extra meta for a new file (merged into the recorder's own). */
  readonly meta?: RecordingMeta;
  readonly logger?: Logger;
}

export interface RecorderResult {
  readonly path: string;
  /** Polls written in this run. */
  readonly polls: number;
  readonly firstT?: number;
  readonly lastT?: number;
  /** True when the file existed and this run continued it. */
  readonly appended: boolean;
}

/** Throws when continuing a recording listing `meta.symbols` (or none: every symbol) with `wanted`. */
function refuseOtherSymbols(
  meta: RecordingMeta | undefined,
  wanted: ReadonlySet<string> | undefined,
  path: string,
): void {
  const listed = meta?.['symbols'];
  const before = Array.isArray(listed) ? [...(listed as unknown[])].map(String).sort().join(',') : 'all';
  const now = wanted ? [...wanted].sort().join(',') : 'all';
  if (before === now) return;
  throw new BadInputError(
    `this recording holds ${before === 'all' ? 'every symbol' : `--symbols ${before}`}; continuing it with ` +
      `${now === 'all' ? 'every symbol' : `--symbols ${now}`} would make its meta line wrong: record into ` +
      'another file, or pass the same --symbols',
    path,
  );
}

export async function runRecorder(opts: RecorderOptions): Promise<RecorderResult> {
  const scheduler = opts.scheduler ?? asyncScheduler;
  const wanted = opts.symbols && opts.symbols.length > 0 ? new Set(opts.symbols) : undefined;
  const meta: RecordingMeta = {
    format: RECORDING_FORMAT,
    source: { kind: 'weex-capi-v2-tickers', endpoint: '/capi/v2/market/tickers' },
    time: 't is the local receive time of each poll (epoch ms, never going backwards); ticker timestamps are the exchange’s',
    intervalMs: opts.intervalMs,
    ...(wanted ? { symbols: [...wanted] } : {}),
    ...(opts.meta ?? {}),
  };
  // A recording's meta line says which symbols it holds (a backtest trusts it). Continuing a file
  // with other symbols would make it lie: refused before the file is touched. (A file whose start
  // cannot be read is left to the writer, which repairs or refuses it; checked again after.)
  if (existsSync(opts.out)) {
    const existing = await readRecordingMeta(opts.out).catch(() => undefined);
    if (existing !== undefined) refuseOtherSymbols(existing, wanted, opts.out);
  }
  const writer = await openRecordingWriter(opts.out, {
    meta,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  if (writer.appended) {
    try {
      refuseOtherSymbols(writer.meta, wanted, opts.out);
    } catch (e) {
      await writer.close();
      throw e;
    }
  }
  let polls = 0;
  let firstT: number | undefined;
  let missingWarned = false;

  const poller = createTickerPoller({
    fetchTickers: opts.fetchTickers,
    intervalMs: opts.intervalMs,
    scheduler,
    ...(opts.gate ? { gate: opts.gate } : {}),
    ...(opts.retry ? { retry: opts.retry } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });

  const stops: Observable<unknown>[] = [];
  if (opts.signal) stops.push(opts.signal.aborted ? timer(0, scheduler) : fromEvent(opts.signal, 'abort'));
  if (opts.durationMs !== undefined) stops.push(timer(opts.durationMs, scheduler));
  const stop$ = merge(...stops);

  const unusableWarned = new Set<string>();
  const record$ = poller.tickers$.pipe(
    takeUntil(stop$),
    concatMap((tickers) => {
      const wire = tickers.map((t) => t.wire).filter((w) => !wanted || wanted.has(w.symbol));
      if (wanted && wire.length < wanted.size && !missingWarned) {
        missingWarned = true;
        const seen = new Set(wire.map((w) => w.symbol));
        opts.logger?.warn(
          { missing: [...wanted].filter((s) => !seen.has(s)) },
          'record: some requested symbols are not in the tickers reply',
        );
      }
      // A ticker the reader would refuse (a price at or below 0: an empty book side, a broken feed)
      // is left out, so the recording stays readable; said once per symbol.
      const usable = wire.filter((w) => isWireTickerShape(w));
      if (usable.length < wire.length) {
        for (const w of wire) {
          if (isWireTickerShape(w) || unusableWarned.has(w.symbol)) continue;
          unusableWarned.add(w.symbol);
          opts.logger?.warn(
            { symbol: w.symbol, last: w.last, best_bid: w.best_bid, best_ask: w.best_ask },
            'record: ticker left out (a price at or below 0 or not a decimal); said once per symbol',
          );
        }
      }
      // `t` never goes backwards, even if the wall clock steps back.
      const t = Math.max(opts.clock.now(), writer.lastT ?? 0);
      writer.write({ t, tickers: usable });
      firstT ??= t;
      polls++;
      return from(writer.flush());
    }),
    defaultIfEmpty(undefined),
  );

  try {
    await lastValueFrom(record$);
  } finally {
    await writer.close();
  }
  return {
    path: opts.out,
    polls,
    appended: writer.appended,
    ...(firstT !== undefined ? { firstT } : {}),
    ...(writer.lastT !== undefined && polls > 0 ? { lastT: writer.lastT } : {}),
  };
}
