// Market data for strategy tests: short inline tickers, turned into the same recorded polls a
// backtest replays. A tick names a price (decimal text, as on the wire); the best bid and ask
// default to one price tick either side of it, so `last` is the mid.
import { dec, decToString } from '../../core/decimal.ts';
import { BadInputError } from '../../core/errors.ts';
import type { RecordedPoll, WireTicker } from '../../core/market.ts';

/** One ticker of an inline test scenario. Prices are decimal strings, never floats. */
export interface TickSpec {
  /** Time from the start of the run, ms. Default: the previous tick's time + `stepMs` (the first: 0). */
  readonly at?: number;
  /** Default: the strategy's first symbol. */
  readonly symbol?: string;
  readonly last: string;
  /** Default: `last` − one price tick. */
  readonly bid?: string;
  /** Default: `last` + one price tick. */
  readonly ask?: string;
}

/** What a run replays: inline ticks, recorded polls, or both mixed (polls keep their own `t`). */
export type TickInput = TickSpec | RecordedPoll;

export function isRecordedPoll(v: TickInput): v is RecordedPoll {
  return 't' in v && 'tickers' in v;
}

export interface SeriesOptions {
  readonly symbol?: string;
  /** Time of the first tick from the start of the run, ms. Default 0. */
  readonly startAt?: number;
  /** Default 1000. */
  readonly stepMs?: number;
}

/** One tick per price, `stepMs` apart: `series(['100', '101', '99.5'])`. */
export function series(prices: readonly string[], opts: SeriesOptions = {}): TickSpec[] {
  const step = opts.stepMs ?? 1_000;
  const start = opts.startAt ?? 0;
  return prices.map((last, i) => ({
    at: start + i * step,
    last,
    ...(opts.symbol !== undefined ? { symbol: opts.symbol } : {}),
  }));
}

/** `price` repeated `n` times (a flat stretch), for padding scenarios: `[...hold('100', 5), ...]`. */
export function hold(price: string, n: number): string[] {
  return Array.from({ length: n }, () => price);
}

/** Prices from `from` to `to` in `n` equal steps, each rounded to `tick` (both ends included). */
export function ramp(from: string, to: string, n: number, tick: string): string[] {
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`ramp needs n ≥ 2, got ${n}`);
  const a = dec(from);
  const step = dec(to)
    .minus(a)
    .div(n - 1);
  const t = dec(tick);
  return Array.from({ length: n }, (_, i) => decToString(a.plus(step.times(i)).div(t).round(0).times(t)));
}

export interface PollsOptions {
  /** Epoch ms of offset 0. */
  readonly startMs: number;
  readonly stepMs: number;
  readonly defaultSymbol: string;
  /** Price tick of a symbol (for the default bid/ask). */
  readonly tickOf: (symbol: string) => string;
}

function wireTicker(spec: TickSpec, symbol: string, t: number, tick: string): WireTicker {
  const last = dec(spec.last);
  const bid = spec.bid ?? decToString(last.minus(tick));
  const ask = spec.ask ?? decToString(last.plus(tick));
  return {
    symbol,
    last: spec.last,
    best_bid: bid,
    best_ask: ask,
    high_24h: spec.last,
    low_24h: spec.last,
    volume_24h: '0',
    timestamp: String(t),
    priceChangePercent: '0',
    base_volume: '0',
  };
}

/**
 * Inline ticks → recorded polls: ticks at the same time form one poll (one symbol once per poll);
 * times must not go backwards. Recorded polls pass through unchanged.
 */
export function toPolls(input: readonly TickInput[], o: PollsOptions): RecordedPoll[] {
  const polls: { t: number; tickers: WireTicker[] }[] = [];
  let prevAt: number | undefined;
  let lastT = Number.NEGATIVE_INFINITY;
  input.forEach((item, i) => {
    if (isRecordedPoll(item)) {
      if (item.t < lastT) throw new BadInputError(`tick ${i}: time ${item.t} goes backwards`);
      polls.push({ t: item.t, tickers: [...item.tickers] });
      lastT = item.t;
      return;
    }
    const at = item.at ?? (prevAt === undefined ? 0 : prevAt + o.stepMs);
    prevAt = at;
    const t = o.startMs + at;
    if (!Number.isFinite(t) || t < lastT) throw new BadInputError(`tick ${i}: time ${at} goes backwards`);
    for (const [k, v] of [
      ['last', item.last] as const,
      ['bid', item.bid] as const,
      ['ask', item.ask] as const,
    ]) {
      if (v !== undefined && (typeof v !== 'string' || !/^\d+(?:\.\d+)?$/.test(v))) {
        throw new BadInputError(
          `tick ${i}: ${k} must be a decimal string such as "64000.5", got ${JSON.stringify(v)}`,
        );
      }
    }
    const symbol = item.symbol ?? o.defaultSymbol;
    const ticker = wireTicker(item, symbol, t, o.tickOf(symbol));
    const last = polls[polls.length - 1];
    if (last !== undefined && last.t === t) {
      if (last.tickers.some((w) => w.symbol === symbol))
        throw new BadInputError(`tick ${i}: ${symbol} twice at time ${at}`);
      last.tickers.push(ticker);
    } else {
      polls.push({ t, tickers: [ticker] });
    }
    lastT = t;
  });
  return polls;
}
