// Importer of OHLCV bars (CSV `timestamp,open,high,low,close,volume`, header optional) into one
// ticker snapshot per bar, with rolling 24 h statistics (../shared/data/market/SOURCES.md, file 3):
//
//   window(i)          = the bars whose label lies in (label[i] − 24 h, label[i]]  (1440 one-minute bars)
//   last               = close[i]
//   high_24h / low_24h = max high / min low over the window
//   volume_24h         = Σ volume over the window (the file's volume unit; quote notional for FTX)
//   base_volume        ≈ Σ volume/close over the window (an approximation, flagged in the meta line)
//   priceChangePercent = close[i] / open[first bar of the window] − 1, as a fraction like WEEX sends it
//   best_bid / best_ask = close ∓ tick/2: SYNTHETIC (no quotes exist in bars), flagged in the meta line
//
// Snapshots start once a full window exists. Bar labels are parsed as UTC. A bar's close is only known
// when the bar ends, so with labels at bar open (the default assumption) the snapshot time is
// label + bar length: a replay never shows a price before its bar is over.
import { basename } from 'node:path';
import { dec, decToString, isDecimalString, type Dec } from '../../core/decimal.ts';
import { BadInputError } from '../../core/errors.ts';
import type { RecordedPoll, RecordingMeta, WireTicker } from '../../core/market.ts';
import { RECORDING_FORMAT } from '../recording/format.ts';
import { fileSha256, inputLineBatches } from './input-lines.ts';

export const DAY_MS = 86_400_000;

export interface BarsCsvImportOptions {
  /** Symbol written into the recording, e.g. `cmt_btcusdt`. */
  readonly symbol: string;
  /** Price tick used for the synthetic bid/ask (close ∓ tick/2); default "1" (FTX BTC-PERP). */
  readonly tick?: string;
  /** Rolling statistics window; default 24 h. */
  readonly windowMs?: number;
  /** What a bar's label marks; default `open` (snapshot at label + bar length). */
  readonly barLabel?: 'open' | 'close';
  /** Bar length; default: the step between the first two bars. */
  readonly barMs?: number;
}

export interface BarsCsvImportStats {
  bars: number;
  snapshots: number;
  barMs?: number;
  firstBarLabel?: number;
  lastBarLabel?: number;
}

interface Bar {
  readonly label: number;
  readonly open: Dec;
  readonly high: Dec;
  readonly low: Dec;
  readonly close: Dec;
  readonly volume: Dec;
  /** volume / close, rounded to BASE_TERM_DP: one term of the base-volume approximation. */
  readonly baseTerm: Dec;
}

const CHANGE_DP = 6;
const BASE_TERM_DP = 8;
const BASE_OUT_DP = 4;
const COLUMNS = ['timestamp', 'open', 'high', 'low', 'close', 'volume'] as const;
type Column = (typeof COLUMNS)[number];

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]00:?00)?$/;

/** Parses a bar label as UTC: `YYYY-MM-DD HH:MM[:SS[.ffffff]]` (optionally `T`, `Z`), or epoch s/ms/µs/ns. */
export function parseBarTime(s: string): number | undefined {
  // Epoch numbers by their digits: seconds (9–11), milliseconds (12–14), microseconds (15–17: Binance's
  // kline files since 2025) and nanoseconds (18–19), all to whole milliseconds.
  if (/^\d{9,19}$/.test(s)) {
    const n = BigInt(s);
    if (s.length <= 11) return Number(n * 1000n);
    if (s.length <= 14) return Number(n);
    if (s.length <= 17) return Number(n / 1000n);
    return Number(n / 1_000_000n);
  }
  const m = DATE_TIME.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, frac] = m;
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  const t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec ?? 0), ms);
  // Reject dates that Date.UTC silently rolls over (2022-02-30).
  const check = new Date(t);
  if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1) return undefined;
  return t;
}

/** Sliding max/min over the window (monotonic deque of bars). */
class Extremum {
  private readonly items: Bar[] = [];
  private head = 0;
  private readonly better: (a: Dec, b: Dec) => boolean;
  private readonly pick: (b: Bar) => Dec;
  constructor(pick: (b: Bar) => Dec, better: (a: Dec, b: Dec) => boolean) {
    this.pick = pick;
    this.better = better;
  }
  push(bar: Bar): void {
    const v = this.pick(bar);
    while (
      this.items.length > this.head &&
      !this.better(this.pick(this.items[this.items.length - 1] as Bar), v)
    )
      this.items.pop();
    this.items.push(bar);
  }
  evictBefore(label: number): void {
    while (this.head < this.items.length && (this.items[this.head] as Bar).label < label) this.head++;
    if (this.head > 4096) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
  }
  get value(): Dec {
    return this.pick(this.items[this.head] as Bar);
  }
}

function bad(path: string, no: number, why: string): BadInputError {
  return new BadInputError(why, `${path}:${no}`);
}

/** Column positions from a header line, or undefined when the line is data (no header). */
function headerColumns(fields: readonly string[], path: string): Record<Column, number> | undefined {
  const lower = fields.map((f) => f.trim().toLowerCase());
  const first = fields[0]?.trim() ?? '';
  if (parseBarTime(first) !== undefined) return undefined;
  const pos = {} as Record<Column, number>;
  for (const c of COLUMNS) {
    const i = lower.indexOf(c);
    if (i === -1) {
      // A first line whose first field looks numeric or date-like is a bar with an unreadable time,
      // not a header.
      const dataLike = /^[\d./: tz+-]+$/i.test(first);
      throw bad(
        path,
        1,
        dataLike
          ? `timestamp is not a date-time or epoch: ${JSON.stringify(first)} (expected YYYY-MM-DD HH:MM[:SS] in UTC, or epoch s/ms/µs/ns)`
          : `header has no ${c} column (expected ${COLUMNS.join(',')})`,
      );
    }
    pos[c] = i;
  }
  return pos;
}

/**
 * Streams one snapshot per bar (once a full window exists). `stats` (when given) is filled in while
 * iterating.
 */
export async function* importBarsCsv(
  path: string,
  opts: BarsCsvImportOptions,
  stats: BarsCsvImportStats = { bars: 0, snapshots: 0 },
): AsyncGenerator<RecordedPoll, void, undefined> {
  const tickText = opts.tick ?? '1';
  if (!isDecimalString(tickText) || dec(tickText).lte(0))
    throw new BadInputError(`tick must be a positive decimal, got ${tickText}`);
  const halfTick = dec(tickText).div(2);
  const windowMs = opts.windowMs ?? DAY_MS;
  const labelIsOpen = (opts.barLabel ?? 'open') === 'open';
  let barMs = opts.barMs;

  let cols: Record<Column, number> | undefined;
  let sawFirstLine = false;
  const window: Bar[] = [];
  let windowHead = 0;
  let volume = dec(0);
  let base = dec(0);
  const highs = new Extremum(
    (b) => b.high,
    (a, b) => a.gt(b),
  );
  const lows = new Extremum(
    (b) => b.low,
    (a, b) => a.lt(b),
  );
  let firstLabel: number | undefined;
  let prevLabel: number | undefined;
  const held: Bar[] = []; // bars read before the bar length is known (the first one)

  const num = (fields: readonly string[], c: Column, no: number): Dec => {
    const v = fields[cols ? cols[c] : COLUMNS.indexOf(c)]?.trim();
    if (v === undefined || !isDecimalString(v))
      throw bad(path, no, `${c} is not a decimal: ${JSON.stringify(v ?? '')}`);
    return dec(v);
  };

  const readBar = (text: string, no: number): Bar => {
    const fields = text.split(',');
    const ts = fields[cols ? cols.timestamp : 0]?.trim() ?? '';
    const label = parseBarTime(ts);
    if (label === undefined)
      throw bad(path, no, `timestamp is not a date-time or epoch: ${JSON.stringify(ts)}`);
    const open = num(fields, 'open', no);
    const high = num(fields, 'high', no);
    const low = num(fields, 'low', no);
    const close = num(fields, 'close', no);
    const vol = num(fields, 'volume', no);
    if (low.gt(open) || low.gt(close) || high.lt(open) || high.lt(close) || low.gt(high)) {
      throw bad(path, no, 'inconsistent bar: need low ≤ open, close ≤ high');
    }
    if (vol.lt(0)) throw bad(path, no, 'volume must be ≥ 0');
    if (open.lte(0) || high.lte(0) || low.lte(0) || close.lte(0))
      throw bad(path, no, 'open, high, low and close must be above 0');
    // The synthetic bid (close − tick/2) must stay a price: a recording refuses prices ≤ 0.
    if (close.lte(halfTick))
      throw bad(
        path,
        no,
        `close ${close.toFixed()} is not above half the tick (${halfTick.toFixed()}): the synthetic bid would not be a price; pass --tick with this market's tick`,
      );
    if (prevLabel !== undefined && label <= prevLabel)
      throw bad(path, no, `bars must be in increasing time (${ts} is not after the previous bar)`);
    prevLabel = label;
    return { label, open, high, low, close, volume: vol, baseTerm: vol.div(close).round(BASE_TERM_DP) };
  };

  const onBar = (bar: Bar): RecordedPoll | undefined => {
    stats.bars++;
    firstLabel ??= bar.label;
    stats.firstBarLabel ??= bar.label;
    stats.lastBarLabel = bar.label;
    window.push(bar);
    volume = volume.plus(bar.volume);
    base = base.plus(bar.baseTerm);
    highs.push(bar);
    lows.push(bar);
    const from = bar.label - windowMs + 1; // window is (label − windowMs, label]
    while (windowHead < window.length && (window[windowHead] as Bar).label < from) {
      const old = window[windowHead++] as Bar;
      volume = volume.minus(old.volume);
      base = base.minus(old.baseTerm);
    }
    if (windowHead > 4096) {
      window.splice(0, windowHead);
      windowHead = 0;
    }
    highs.evictBefore(from);
    lows.evictBefore(from);
    const step = barMs as number;
    if (bar.label - firstLabel < windowMs - step) return undefined; // no full window yet
    const oldest = window[windowHead] as Bar;
    const t = labelIsOpen ? bar.label + step : bar.label;
    const ticker: WireTicker = {
      symbol: opts.symbol,
      last: decToString(bar.close),
      best_ask: decToString(bar.close.plus(halfTick)),
      best_bid: decToString(bar.close.minus(halfTick)),
      high_24h: decToString(highs.value),
      low_24h: decToString(lows.value),
      volume_24h: decToString(volume),
      timestamp: String(t),
      priceChangePercent: decToString(bar.close.div(oldest.open).minus(1).round(CHANGE_DP)),
      base_volume: decToString(base.round(BASE_OUT_DP)),
    };
    stats.snapshots++;
    return { t, tickers: [ticker] };
  };

  for await (const batch of inputLineBatches(path)) {
    const out: RecordedPoll[] = [];
    for (const line of batch) {
      const text = line.text.trim();
      if (text.length === 0) continue;
      if (!sawFirstLine) {
        sawFirstLine = true;
        cols = headerColumns(text.split(','), path);
        if (cols !== undefined) continue;
      }
      const bar = readBar(text, line.no);
      if (barMs === undefined) {
        held.push(bar);
        if (held.length < 2) continue;
        barMs = (held[1] as Bar).label - (held[0] as Bar).label;
        stats.barMs = barMs;
        for (const h of held.splice(0)) {
          const p = onBar(h);
          if (p) out.push(p);
        }
        continue;
      }
      stats.barMs = barMs;
      const p = onBar(bar);
      if (p) out.push(p);
    }
    yield* out;
  }
  if (held.length > 0) {
    // A single bar: its length cannot be inferred; assume one minute.
    barMs = 60_000;
    for (const h of held.splice(0)) {
      const p = onBar(h);
      if (p) yield p;
    }
  }
}

/** The meta line of a recording imported from OHLCV bars. */
export async function barsCsvMeta(path: string, opts: BarsCsvImportOptions): Promise<RecordingMeta> {
  const windowMs = opts.windowMs ?? DAY_MS;
  const labelIsOpen = (opts.barLabel ?? 'open') === 'open';
  return {
    format: RECORDING_FORMAT,
    source: { kind: 'ohlcv-csv', file: basename(path), sha256: await fileSha256(path) },
    symbols: [opts.symbol],
    sampling: { kind: 'bars', rule: 'one snapshot per bar, starting once a full statistics window exists' },
    time: labelIsOpen
      ? 'bar labels parsed as UTC and taken as the bar open; each snapshot is at label + bar length (the bar close), so no price is shown before its bar ended'
      : 'bar labels parsed as UTC and taken as the bar close; each snapshot is at the label',
    fields24h: windowMs === DAY_MS ? 'rolling-24h-of-bars' : `rolling-${windowMs}ms-of-bars`,
    window: { ms: windowMs, rule: 'bars with label in (label − window, label]' },
    tick: opts.tick ?? '1',
    fields: barsCsvFieldNotes(opts.tick ?? '1'),
    synthetic: ['best_bid', 'best_ask'],
    approximated: ['base_volume'],
    absent: ['markPrice', 'indexPrice'],
  };
}

/** How each wire field of a bars import is derived (also used by make-samples). */
export function barsCsvFieldNotes(tick: string): Record<string, string> {
  return {
    last: 'close of the bar',
    best_bid: `SYNTHETIC: close − tick/2 (tick ${tick}); no quotes exist in bars`,
    best_ask: `SYNTHETIC: close + tick/2 (tick ${tick}); no quotes exist in bars`,
    timestamp: 'the snapshot time t (ms)',
    high_24h: 'max high over the window',
    low_24h: 'min low over the window',
    volume_24h: 'Σ volume over the window, in the unit of the file (quote notional for FTX)',
    base_volume: `APPROXIMATED: Σ volume/close over the window (each term rounded to ${BASE_TERM_DP} decimals, the sum to ${BASE_OUT_DP})`,
    priceChangePercent:
      'a fraction as WEEX sends it (0.01 = 1 %): close / open of the first bar of the window − 1, 6 decimals',
  };
}
