// Importer of raw Binance USDⓈ-M websocket dumps (hftbacktest collector format, see
// ../shared/data/market/SOURCES.md): one message per line, `<recv_ts_ns> <json>`, the JSON being
// the combined-stream envelope `{"stream": ..., "data": {...}}`.
//
// - bookTicker sets best bid/ask, trade sets last; depth diffs (and anything else) are skipped.
// - Time is the exchange event time `E`. The collector's receive time is NOT used: its clock was
//   ~1.5 s slow. Messages of different streams arrive slightly out of `E` order (up to ~30 ms in the
//   samples), so events pass through a reorder window and are applied in `E` order.
// - Output: a snapshot for every exchange millisecond with an update, or on a fixed grid of exchange
//   time (`gridMs`): the last state at or before each boundary, carried forward over gaps.
// - Nothing is emitted before both a book ticker and a trade have been seen.
// - The 24 h fields cannot come from a short session: they are session-relative (since the first
//   trade of the input) and the meta line says so. Mark and index prices are absent.
import { basename } from 'node:path';
import { dec, decToString, type Dec } from '../../core/decimal.ts';
import { BadInputError } from '../../core/errors.ts';
import type { RecordedPoll, RecordingMeta, WireTicker } from '../../core/market.ts';
import { isDecimalText, isPositiveText, RECORDING_FORMAT } from '../recording/format.ts';
import { fileSha256, inputLineBatches } from './input-lines.ts';

export interface BinanceWsImportOptions {
  /** Symbol written into the recording, e.g. `cmt_btcusdt`. */
  readonly symbol: string;
  /** Snapshot grid in exchange-time ms; undefined: one snapshot per exchange millisecond with an update. */
  readonly gridMs?: number;
  /** Binance symbol to take (`data.s`, e.g. `BTCUSDT`); default: the file's only symbol. */
  readonly sourceSymbol?: string;
  /** How far (ms of `E`) a message may arrive behind a later one and still be applied in order; default 1000. */
  readonly reorderWindowMs?: number;
}

/** Counts gathered while importing (filled in as the polls are iterated). */
export interface BinanceWsImportStats {
  lines: number;
  bookTickers: number;
  trades: number;
  skipped: number;
  /** Messages that arrived later than the reorder window allows; applied at the time already reached. */
  lateBeyondWindow: number;
  snapshots: number;
  firstEventTime?: number;
  lastEventTime?: number;
}

type BookEvent = {
  readonly kind: 'book';
  readonly E: number;
  readonly seq: number;
  readonly bid: string;
  readonly ask: string;
};
type TradeEvent = {
  readonly kind: 'trade';
  readonly E: number;
  readonly seq: number;
  readonly price: string;
  readonly qty: string;
};
type MarketEvent = BookEvent | TradeEvent;

const PRICE_CHANGE_DP = 6;

/** Per-symbol state and session statistics, in exact decimals. */
class SessionState {
  bid: string | undefined;
  ask: string | undefined;
  last: string | undefined;
  lastDec: Dec | undefined;
  firstPrice: Dec | undefined;
  high: Dec | undefined;
  low: Dec | undefined;
  baseVolume: Dec = dec(0);
  quoteVolume: Dec = dec(0);
  /** `E` of the latest event applied. */
  time = -1;

  apply(ev: MarketEvent): void {
    if (ev.E > this.time) this.time = ev.E;
    if (ev.kind === 'book') {
      this.bid = ev.bid;
      this.ask = ev.ask;
      return;
    }
    const p = dec(ev.price);
    const q = dec(ev.qty);
    this.last = decToString(p);
    this.lastDec = p;
    this.firstPrice ??= p;
    if (this.high === undefined || p.gt(this.high)) this.high = p;
    if (this.low === undefined || p.lt(this.low)) this.low = p;
    this.baseVolume = this.baseVolume.plus(q);
    this.quoteVolume = this.quoteVolume.plus(p.times(q));
  }

  get ready(): boolean {
    return this.bid !== undefined && this.last !== undefined;
  }

  ticker(symbol: string): WireTicker {
    const first = this.firstPrice as Dec;
    const last = this.lastDec as Dec;
    return {
      symbol,
      last: this.last as string,
      best_ask: this.ask as string,
      best_bid: this.bid as string,
      high_24h: decToString(this.high as Dec),
      low_24h: decToString(this.low as Dec),
      volume_24h: decToString(this.quoteVolume),
      timestamp: String(this.time),
      priceChangePercent: decToString(last.div(first).minus(1).round(PRICE_CHANGE_DP)),
      base_volume: decToString(this.baseVolume),
    };
  }
}

/** Events sorted by (E, arrival); released once the newest `E` is `windowMs` past them. */
class ReorderBuffer {
  private readonly items: MarketEvent[] = [];
  private readonly windowMs: number;
  private maxE = Number.NEGATIVE_INFINITY;
  constructor(windowMs: number) {
    this.windowMs = windowMs;
  }
  push(ev: MarketEvent): void {
    if (ev.E > this.maxE) this.maxE = ev.E;
    // Nearly sorted input: search from the end.
    let i = this.items.length;
    while (i > 0 && (this.items[i - 1] as MarketEvent).E > ev.E) i--;
    this.items.splice(i, 0, ev);
  }
  /** True when the oldest event is old enough to be final. */
  get due(): boolean {
    const first = this.items[0];
    return first !== undefined && first.E <= this.maxE - this.windowMs;
  }
  /** Events old enough to be final (all of them with `all`). */
  release(all = false): MarketEvent[] {
    const limit = all ? Number.POSITIVE_INFINITY : this.maxE - this.windowMs;
    let n = 0;
    while (n < this.items.length && (this.items[n] as MarketEvent).E <= limit) n++;
    return n === 0 ? [] : this.items.splice(0, n);
  }
}

function bad(path: string, no: number, why: string): BadInputError {
  return new BadInputError(why, `${path}:${no}`);
}

function decimalField(data: Record<string, unknown>, key: string, path: string, no: number): string {
  const v = data[key];
  if (typeof v !== 'string' || !isDecimalText(v)) throw bad(path, no, `field ${key} is not a decimal string`);
  return v;
}

/** A price field: a decimal above 0 (an empty book side sends "0.00", which is no price). */
function priceField(data: Record<string, unknown>, key: string, path: string, no: number): string {
  const v = decimalField(data, key, path, no);
  if (!isPositiveText(v)) throw bad(path, no, `field ${key} is ${v}: a price must be above 0`);
  return v;
}

/** Parses one line; undefined for messages that are skipped (depth diffs, replies, other events). */
function parseLine(
  text: string,
  no: number,
  path: string,
  seq: number,
): { ev: MarketEvent | undefined; symbol: string | undefined } {
  const sp = text.indexOf(' ');
  if (sp <= 0 || !/^\d+$/.test(text.slice(0, sp))) throw bad(path, no, 'expected `<recv_ts_ns> <json>`');
  let msg: unknown;
  try {
    msg = JSON.parse(text.slice(sp + 1));
  } catch (e) {
    throw bad(path, no, `bad JSON (${(e as Error).message})`);
  }
  const data = typeof msg === 'object' && msg !== null ? (msg as Record<string, unknown>)['data'] : undefined;
  if (typeof data !== 'object' || data === null) return { ev: undefined, symbol: undefined };
  const d = data as Record<string, unknown>;
  const kind = d['e'];
  if (kind !== 'bookTicker' && kind !== 'trade') return { ev: undefined, symbol: undefined };
  const E = d['E'];
  if (typeof E !== 'number' || !Number.isSafeInteger(E) || E < 0)
    throw bad(path, no, 'no exchange event time E');
  const symbol = typeof d['s'] === 'string' ? d['s'] : undefined;
  if (kind === 'bookTicker') {
    return {
      ev: {
        kind: 'book',
        E,
        seq,
        bid: normalise(priceField(d, 'b', path, no)),
        ask: normalise(priceField(d, 'a', path, no)),
      },
      symbol,
    };
  }
  return {
    ev: { kind: 'trade', E, seq, price: priceField(d, 'p', path, no), qty: decimalField(d, 'q', path, no) },
    symbol,
  };
}

/** Plain decimal text without trailing zeros: "63959.90" → "63959.9". */
function normalise(s: string): string {
  return decToString(dec(s));
}

/**
 * Streams the snapshots of a Binance websocket dump as polls of one ticker. `stats` (when given) is
 * filled in while iterating.
 */
export async function* importBinanceWs(
  path: string,
  opts: BinanceWsImportOptions,
  stats: BinanceWsImportStats = newBinanceWsStats(),
): AsyncGenerator<RecordedPoll, void, undefined> {
  const grid = opts.gridMs;
  if (grid !== undefined && (!Number.isSafeInteger(grid) || grid <= 0))
    throw new BadInputError(`grid must be a positive integer of ms, got ${grid}`);
  const buffer = new ReorderBuffer(opts.reorderWindowMs ?? 1000);
  const state = new SessionState();
  let sourceSymbol = opts.sourceSymbol;
  let applied = Number.NEGATIVE_INFINITY; // E up to which events were applied
  let nextBoundary: number | undefined; // grid mode
  let pendingTime: number | undefined; // every-event mode: E whose snapshot is not out yet
  let seq = 0;

  const snapshot = (t: number): RecordedPoll => {
    stats.snapshots++;
    return { t, tickers: [state.ticker(opts.symbol)] };
  };

  /** Snapshots due before an event at `E` is applied (or at the end, with E = +∞ and `endTime`). */
  function* due(E: number, endTime: number): Generator<RecordedPoll> {
    if (grid !== undefined) {
      if (nextBoundary === undefined) return;
      const until = Math.min(E - 1, endTime);
      while (nextBoundary <= until) {
        yield snapshot(nextBoundary);
        nextBoundary += grid;
      }
    } else if (pendingTime !== undefined && pendingTime < E) {
      yield snapshot(pendingTime);
      pendingTime = undefined;
    }
  }

  function* applyAll(events: readonly MarketEvent[]): Generator<RecordedPoll> {
    for (const raw of events) {
      let ev = raw;
      if (ev.E < applied) {
        // Later than the reorder window: applied at the time already reached.
        stats.lateBeyondWindow++;
        ev = { ...ev, E: applied };
      }
      yield* due(ev.E, Number.POSITIVE_INFINITY);
      state.apply(ev);
      applied = ev.E;
      if (!state.ready) continue;
      if (grid !== undefined) nextBoundary ??= Math.ceil(ev.E / grid) * grid;
      else pendingTime = ev.E;
    }
  }

  for await (const batch of inputLineBatches(path)) {
    for (const line of batch) {
      stats.lines++;
      if (line.text.length === 0) continue;
      const { ev, symbol } = parseLine(line.text, line.no, path, seq++);
      if (ev === undefined) {
        stats.skipped++;
        continue;
      }
      if (symbol !== undefined) {
        sourceSymbol ??= symbol;
        if (symbol !== sourceSymbol) {
          if (opts.sourceSymbol !== undefined) {
            stats.skipped++;
            continue;
          }
          throw bad(
            path,
            line.no,
            `a second symbol ${symbol} after ${sourceSymbol}: choose one with the source-symbol option`,
          );
        }
      }
      if (ev.kind === 'book') stats.bookTickers++;
      else stats.trades++;
      if (stats.firstEventTime === undefined || ev.E < stats.firstEventTime) stats.firstEventTime = ev.E;
      if (stats.lastEventTime === undefined || ev.E > stats.lastEventTime) stats.lastEventTime = ev.E;
      buffer.push(ev);
      if (buffer.due) yield* applyAll(buffer.release());
    }
  }
  yield* applyAll(buffer.release(true));
  yield* due(Number.POSITIVE_INFINITY, applied);
}

export function newBinanceWsStats(): BinanceWsImportStats {
  return { lines: 0, bookTickers: 0, trades: 0, skipped: 0, lateBeyondWindow: 0, snapshots: 0 };
}

/** The meta line of a recording imported from a Binance websocket dump. */
export async function binanceWsMeta(path: string, opts: BinanceWsImportOptions): Promise<RecordingMeta> {
  return {
    format: RECORDING_FORMAT,
    source: {
      kind: 'binance-usdm-ws',
      file: basename(path),
      sha256: await fileSha256(path),
      ...(opts.sourceSymbol !== undefined ? { sourceSymbol: opts.sourceSymbol } : {}),
    },
    symbols: [opts.symbol],
    sampling:
      opts.gridMs !== undefined
        ? {
            kind: 'grid',
            gridMs: opts.gridMs,
            rule: 'last state at or before each grid boundary of exchange time E; t = the boundary; carried forward over gaps',
          }
        : { kind: 'events', rule: 'one snapshot per exchange millisecond with an update; t = E' },
    time: 'exchange event time E (epoch ms, UTC); the collector receive time is not used (its clock was about 1.5 s slow)',
    fields24h: 'session-relative',
    fields: binanceWsFieldNotes(),
    synthetic: [],
    absent: ['markPrice', 'indexPrice'],
  };
}

/** How each wire field of a Binance import is derived (also used by make-samples). */
export function binanceWsFieldNotes(): Record<string, string> {
  return {
    last: 'price p of the latest trade',
    best_bid: 'bookTicker b (best bid)',
    best_ask: 'bookTicker a (best ask)',
    timestamp: 'E of the latest event applied (ms)',
    high_24h: 'SESSION-RELATIVE, not 24 h: highest trade price since the first trade of the input',
    low_24h: 'SESSION-RELATIVE, not 24 h: lowest trade price since the first trade of the input',
    volume_24h: 'SESSION-RELATIVE, not 24 h: quote volume Σ p·q (USDT) since the first trade of the input',
    base_volume: 'SESSION-RELATIVE, not 24 h: base volume Σ q since the first trade of the input',
    priceChangePercent:
      'SESSION-RELATIVE, not 24 h: a fraction as WEEX sends it (0.01 = 1 %): last / first trade price of the input − 1, 6 decimals',
  };
}
