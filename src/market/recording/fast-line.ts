// A specialised parser and validator for the common form of a long poll line (many tickers):
//
//   {"t":<digits>,"tickers":[{"<ticker key>":"<text>",...},...]}
//
// with no whitespace, no escapes and only the known ticker keys. For such a line, when it is also a
// valid poll, it returns exactly what JSON.parse returns (same keys in the same order, same strings)
// without making the ticker objects nobody reads. (A short line, whose few tickers the engine reads
// anyway, is quicker through JSON.parse and the general check: reader.ts picks by length.) For anything
// else (other layouts, extra keys, invalid values) it returns undefined and the caller falls back to
// JSON.parse and the general checks of format.ts, which also produce the error messages. So this is
// an optimisation, never a second grammar; test/market/recording-format.test.ts checks the equivalence.
//
// A ticker in one of the two usual forms is checked by one sticky regular expression (USUAL_TICKER),
// which V8 runs as native code: about 0.2 µs a ticker against 1.7 µs for the key-by-key loop, which
// still checks every other ticker. The two forms: the venue's keys in the venue's order
// (RECORDED_TICKER_KEYS, the bundled recordings), and the same keys as `capibot record` writes them,
// in the wire schema's order (best_bid before best_ask), each with markPrice and indexPrice after
// them or not. The expression accepts a subset of what the loop accepts (a price with an exponent,
// say, goes to the loop).
//
// The line is checked whole, every value of every ticker, but its ticker objects are made only when
// read: a poll may carry hundreds of symbols of which a backtest trades a few. The poll's `tickers`
// (an own, enumerable property: it reads, spreads and serialises as a plain poll does) makes them all
// on first read; the backtest reads the rows instead (TickerRows: each row's symbol and `last` text,
// one ticker object when asked), so the tickers nobody trades never become objects.
import type { RecordedPoll, WireTicker } from '../../core/market.ts';
import { copyAscii, type TickerRows } from '../../core/ticker-rows.ts';
import { isDecimalText, RECORDING_DECIMAL } from './format.ts';

const SYMBOL = 0;
const DECIMAL = 1;
const TIMESTAMP = 2;
/** A price: a decimal above 0 (format.ts, recordingPrice). */
const PRICE = 4;
const OPTIONAL_PRICE = 5;

/** The keys every recorded ticker has, in the order the venue (and the bundled recordings) write them. */
export const RECORDED_TICKER_KEYS = [
  'symbol',
  'last',
  'best_ask',
  'best_bid',
  'high_24h',
  'low_24h',
  'volume_24h',
  'timestamp',
  'priceChangePercent',
  'base_volume',
] as const satisfies readonly (keyof WireTicker)[];

/** Ticker keys taken on the fast path, with how their value is checked (KINDS). */
export const TICKER_KEYS: readonly (keyof WireTicker)[] = [
  ...RECORDED_TICKER_KEYS,
  'markPrice',
  'indexPrice',
];
const KEYS: readonly string[] = TICKER_KEYS;
const KINDS: readonly number[] = [
  SYMBOL,
  PRICE,
  PRICE,
  PRICE,
  DECIMAL,
  DECIMAL,
  DECIMAL,
  TIMESTAMP,
  DECIMAL,
  DECIMAL,
  OPTIONAL_PRICE,
  OPTIONAL_PRICE,
];
/** Index of `symbol` and of `last` in KEYS. */
const SYMBOL_KEY = 0;
const LAST_KEY = 1;
/** Bits of the keys every ticker must have (all but markPrice and indexPrice). */
const REQUIRED = (1 << 10) - 1;

/**
 * The value patterns of USUAL_TICKER, by kind: each accepts a subset of what isValueAt accepts
 * (the line holds no backslash, checked first). A price: digits with at most one dot, a non-zero
 * digit among them, no sign and no exponent (those take the loop). A decimal: RECORDING_DECIMAL.
 * A symbol: any text up to its quote, which symbolValue then checks as the loop does.
 */
const PRICE_PATTERN = String.raw`(?=[^"]*[1-9])(?:\d+(?:\.\d*)?|\.\d+)`;
const VALUE_PATTERN: Readonly<Record<number, string>> = {
  [SYMBOL]: String.raw`[^"]+`,
  [PRICE]: PRICE_PATTERN,
  [OPTIONAL_PRICE]: PRICE_PATTERN,
  // RECORDING_DECIMAL without its anchors.
  [DECIMAL]: RECORDING_DECIMAL.source.slice(1, -1),
  [TIMESTAMP]: String.raw`\d{1,16}`,
};

function patternOf(kind: number | undefined): string {
  const p = kind === undefined ? undefined : VALUE_PATTERN[kind];
  if (p === undefined) throw new Error(`fast-line: no value pattern for the kind ${String(kind)}`);
  return p;
}

/** `"key":"<value>"`, the value checked as the key's kind. */
function field(key: keyof WireTicker): string {
  return `"${key}":"${patternOf(KINDS[KEYS.indexOf(key)])}"`;
}

/**
 * One ticker object in a usual form (see the top of this file), from its `{` to its `}`, every value
 * checked (sticky: it matches at `lastIndex` or not at all). Built from the keys and their kinds, so
 * it cannot drift from them. Every number pattern matches a number one way only: an ambiguous one
 * (`\d+\.?\d*`) made a ticker that failed late retry every split of its values.
 */
const USUAL_TICKER = new RegExp(
  `\\{${field('symbol')},${field('last')},` +
    `(?:${field('best_ask')},${field('best_bid')}|${field('best_bid')},${field('best_ask')}),` +
    (['high_24h', 'low_24h', 'volume_24h', 'timestamp', 'priceChangePercent', 'base_volume'] as const)
      .map(field)
      .join(',') +
    `(?:,${field('markPrice')})?(?:,${field('indexPrice')})?\\}`,
  'y',
);
/** `{"symbol":"` and `","last":"`: where a usual form's symbol and `last` values start. */
const SYMBOL_OFFSET = '{"symbol":"'.length;
const LAST_OFFSET = '","last":"'.length;

const QUOTE = 34;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const ZERO = 48;
const NINE = 57;
const SPACE = 32;
const MINUS = 45;
const DOT = 46;
const LOWER_E = 101;
const UPPER_E = 69;

const HEAD = '{"t":';
const TICKERS = ',"tickers":[';

/**
 * Key order of the last ticker parsed: recordings repeat one order, so the key at each position is
 * predicted and confirmed with one comparison.
 */
const predicted: number[] = [];

/**
 * Symbol of the ticker at each position of the last line parsed: recordings list the same symbols in
 * the same order, so a symbol is confirmed with one comparison and handed out as the same string
 * every line (an own, flat copy: no new slice per ticker, and comparing or hashing it downstream is
 * cheap — the simulator finds each symbol's state by it, poll after poll).
 */
const symbolAt: string[] = [];

/** A symbol value (`start`..`end` of the line) of the ticker at `position`; undefined when invalid. */
function symbolValue(line: string, start: number, end: number, position: number): string | undefined {
  const known = symbolAt[position];
  if (known !== undefined && known.length === end - start && line.startsWith(known, start)) return known;
  const s = line.slice(start, end);
  if (!isSymbolText(s)) return undefined;
  // JSON.parse makes a string of its own (a slice of 13 characters or more would be a view of the line).
  const own = JSON.parse(JSON.stringify(s)) as string;
  symbolAt[position] = own;
  return own;
}

/**
 * The symbols and offsets of the line being parsed, collected here and copied out at its end in
 * arrays of the exact size: growing arrays per line would allocate several times what they keep.
 */
const lineSymbols: string[] = [];
const lineAt: number[] = [];

/**
 * The symbols of the last line parsed, frozen (TickerRows.layout): a line listing the same symbols
 * in the same order shares the array instead of copying its own, and the simulator then installs
 * its snapshot without reading a row (MarketState.install). Symbols are compared by identity: the
 * same symbol at the same position is the same string (symbolValue).
 */
let lastLayout: readonly string[] = Object.freeze([]);

/** The layout of the `count` symbols collected: the last line's when they are the same, else a new one. */
function layoutOf(symbols: readonly string[], count: number): readonly string[] {
  const last = lastLayout;
  if (last.length === count) {
    let i = 0;
    while (i < count && symbols[i] === last[i]) i++;
    if (i === count) return last;
  }
  return (lastLayout = Object.freeze(symbols.slice(0, count)));
}

/** The index in KEYS of the key whose text starts at `at` and is followed by a quote, or -1. */
function keyAt(line: string, at: number, position: number): number {
  const guess = predicted[position];
  if (guess !== undefined) {
    const key = KEYS[guess] as string;
    if (line.startsWith(key, at) && line.charCodeAt(at + key.length) === QUOTE) return guess;
  }
  for (let k = 0; k < KEYS.length; k++) {
    const key = KEYS[k] as string;
    if (line.startsWith(key, at) && line.charCodeAt(at + key.length) === QUOTE) {
      predicted[position] = k;
      return k;
    }
  }
  return -1;
}

function isSymbolText(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < SPACE) return false;
  return true;
}

/**
 * isDecimalText of `line` from `start` to `end`, without cutting it out: the loop of the common form
 * (digits with at most one dot); anything else (an exponent, an invalid character) is settled by
 * isDecimalText on the text itself.
 */
function isDecimalAt(line: string, start: number, end: number): boolean {
  let i = start < end && line.charCodeAt(start) === MINUS ? start + 1 : start;
  const first = i;
  let dot = false;
  for (; i < end; i++) {
    const c = line.charCodeAt(i);
    if (c >= ZERO && c <= NINE) continue;
    if (c === DOT && !dot) {
      dot = true;
      continue;
    }
    return isDecimalText(line.slice(start, end));
  }
  return end - first > (dot ? 1 : 0);
}

/** isPositiveText of `line` from `start` to `end` (decimal text), without cutting it out. */
function isPositiveAt(line: string, start: number, end: number): boolean {
  if (start < end && line.charCodeAt(start) === MINUS) return false;
  for (let i = start; i < end; i++) {
    const c = line.charCodeAt(i);
    if (c === LOWER_E || c === UPPER_E) return false; // the mantissa was all zeros
    if (c > ZERO && c <= NINE) return true;
  }
  return false;
}

/** The check of a value that is not a symbol (those go through symbolValue). */
function isValueAt(kind: number, line: string, start: number, end: number): boolean {
  if (kind === TIMESTAMP) {
    const n = end - start;
    if (n === 0 || n > 16) return false;
    for (let i = start; i < end; i++) {
      const c = line.charCodeAt(i);
      if (c < ZERO || c > NINE) return false;
    }
    return true;
  }
  if (kind === PRICE || kind === OPTIONAL_PRICE)
    return isDecimalAt(line, start, end) && isPositiveAt(line, start, end);
  return isDecimalAt(line, start, end);
}

/** The valid poll of a line in the common form, or undefined (the caller then uses JSON.parse). */
export function parseCommonPollLine(line: string): RecordedPoll | undefined {
  if (!line.startsWith(HEAD) || line.indexOf('\\') !== -1) return undefined;
  const n = line.length;
  let i = HEAD.length;
  const tStart = i;
  while (i < n) {
    const c = line.charCodeAt(i);
    if (c < ZERO || c > NINE) break;
    i++;
  }
  const digits = i - tStart;
  // JSON numbers have no leading zeros; long ones are left to JSON.parse (and refused as unsafe).
  if (digits === 0 || digits > 15 || (digits > 1 && line.charCodeAt(tStart) === ZERO)) return undefined;
  const t = Number(line.slice(tStart, i));
  if (!line.startsWith(TICKERS, i)) return undefined;
  i += TICKERS.length;
  const symbols = lineSymbols;
  const at = lineAt;
  let count = 0;
  if (line.charCodeAt(i) === CLOSE_BRACKET) {
    i++;
  } else {
    for (;;) {
      if (line.charCodeAt(i) !== OPEN_BRACE) return undefined;
      const objectStart = i;
      let symbol: string | undefined;
      let lastStart = 0;
      let lastEnd = 0;
      USUAL_TICKER.lastIndex = i;
      if (USUAL_TICKER.test(line)) {
        const symbolStart = i + SYMBOL_OFFSET;
        const symbolEnd = line.indexOf('"', symbolStart);
        symbol = symbolValue(line, symbolStart, symbolEnd, count);
        if (symbol === undefined) return undefined;
        lastStart = symbolEnd + LAST_OFFSET;
        lastEnd = line.indexOf('"', lastStart);
        i = USUAL_TICKER.lastIndex;
      } else {
        // Any other form, key by key.
        i++;
        let seen = 0;
        for (let position = 0; ; position++) {
          if (line.charCodeAt(i) !== QUOTE) return undefined;
          const k = keyAt(line, i + 1, position);
          if (k === -1) return undefined;
          const key = KEYS[k] as string;
          const colon = i + 1 + key.length + 1;
          if (line.charCodeAt(colon) !== COLON || line.charCodeAt(colon + 1) !== QUOTE) return undefined;
          const valueStart = colon + 2;
          const valueEnd = line.indexOf('"', valueStart);
          if (valueEnd === -1) return undefined;
          if (k === SYMBOL_KEY) {
            // A key given twice counts as JSON.parse counts it: the last value.
            symbol = symbolValue(line, valueStart, valueEnd, count);
            if (symbol === undefined) return undefined;
          } else {
            if (!isValueAt(KINDS[k] as number, line, valueStart, valueEnd)) return undefined;
            if (k === LAST_KEY) {
              lastStart = valueStart;
              lastEnd = valueEnd;
            }
          }
          seen |= 1 << k;
          i = valueEnd + 1;
          const c = line.charCodeAt(i);
          i++;
          if (c === COMMA) continue;
          if (c === CLOSE_BRACE) break;
          return undefined;
        }
        if ((seen & REQUIRED) !== REQUIRED) return undefined;
      }
      symbols[count] = symbol as string;
      at[3 * count] = objectStart;
      at[3 * count + 1] = lastStart;
      at[3 * count + 2] = lastEnd;
      count++;
      const c = line.charCodeAt(i);
      i++;
      if (c === COMMA) continue;
      if (c === CLOSE_BRACKET) break;
      return undefined;
    }
  }
  if (i !== n - 1 || line.charCodeAt(i) !== CLOSE_BRACE) return undefined;
  return new LinePoll(t, line, layoutOf(symbols, count), at.slice(0, 3 * count));
}

/** `tickers` of a LinePoll: an own, enumerable accessor (one getter shared by every poll). */
const TICKERS_PROPERTY: PropertyDescriptor = {
  get(this: LinePoll): readonly WireTicker[] {
    return this.all();
  },
  enumerable: true,
  configurable: false,
};

/** A checked poll line: its ticker objects made on first read, each as JSON.parse would make it. */
class LinePoll implements RecordedPoll, TickerRows {
  readonly t: number;
  declare readonly tickers: readonly WireTicker[];
  readonly #line: string;
  /** Each ticker's symbol (see symbolValue): the line's layout, shared with lines listing the same. */
  readonly #symbols: readonly string[];
  /** Per ticker, three offsets in the line: its `{`, and the start and end of its `last` value. */
  readonly #at: readonly number[];
  /** The ticker objects made so far, by row. */
  #made: WireTicker[] | undefined;
  #complete = false;

  constructor(t: number, line: string, symbols: readonly string[], at: readonly number[]) {
    this.t = t;
    this.#line = line;
    this.#symbols = symbols;
    this.#at = at;
    Object.defineProperty(this, 'tickers', TICKERS_PROPERTY);
  }

  tickerRows(): TickerRows {
    return this;
  }

  get size(): number {
    return this.#symbols.length;
  }

  get layout(): readonly string[] {
    return this.#symbols;
  }

  symbolAt(i: number): string {
    return this.#symbols[i] as string;
  }

  lastAt(i: number): string {
    const at = this.#at;
    return this.#line.slice(at[3 * i + 1], at[3 * i + 2]);
  }

  copyLast(i: number, into: Uint8Array, to: number): number {
    const at = this.#at;
    return copyAscii(this.#line, at[3 * i + 1] as number, at[3 * i + 2] as number, into, to);
  }

  tickerAt(i: number): WireTicker {
    const made = (this.#made ??= []);
    return (made[i] ??= this.#make(i));
  }

  made(i: number): boolean {
    return this.#made?.[i] !== undefined;
  }

  all(): readonly WireTicker[] {
    const made = (this.#made ??= []);
    if (!this.#complete) {
      for (let i = 0; i < this.#symbols.length; i++) made[i] ??= this.#make(i);
      this.#complete = true;
    }
    return made;
  }

  /** The object of ticker i, from the checked line: its keys in line order, a repeated key's last value. */
  #make(i: number): WireTicker {
    const start = (this.#at[3 * i] as number) + 1;
    return recordedTicker(this.#line, start, this.#symbols[i] as string) ?? this.#makeAnyOrder(i, start);
  }

  /** #make for a ticker whose keys are not exactly the recorded ones in the recorded order. */
  #makeAnyOrder(i: number, start: number): WireTicker {
    const line = this.#line;
    const symbol = this.#symbols[i] as string;
    const ticker: Record<string, string> = {};
    let p = start;
    for (let position = 0; ; position++) {
      const k = keyAt(line, p + 1, position);
      const key = KEYS[k] as string;
      const valueStart = p + key.length + 4;
      const valueEnd = line.indexOf('"', valueStart);
      ticker[key] = k === SYMBOL_KEY ? symbol : line.slice(valueStart, valueEnd);
      p = valueEnd + 1;
      if (line.charCodeAt(p) === CLOSE_BRACE) break;
      p++;
    }
    return ticker as unknown as WireTicker;
  }
}

/**
 * The ticker whose object starts at `p` (after its `{`) when its keys are exactly RECORDED_TICKER_KEYS
 * in that order (what the venue and the bundled recordings write), as one object literal: the same
 * keys in the same order as JSON.parse makes them, built at once instead of key by key. Undefined
 * for any other key order or set (#makeAnyOrder builds those). The line is checked already.
 */
function recordedTicker(line: string, p: number, symbol: string): WireTicker | undefined {
  const v = recordedValues;
  for (let k = 0; k < RECORDED_COUNT; k++) {
    const key = KEYS[k] as string;
    if (!line.startsWith(key, p + 1) || line.charCodeAt(p + 1 + key.length) !== QUOTE) return undefined;
    const valueStart = p + key.length + 4;
    const valueEnd = line.indexOf('"', valueStart);
    v[k] = valueEnd;
    v[k + RECORDED_COUNT] = valueStart;
    p = valueEnd + 1;
    if (line.charCodeAt(p) === CLOSE_BRACE) {
      if (k !== RECORDED_COUNT - 1) return undefined;
      break;
    }
    if (k === RECORDED_COUNT - 1) return undefined;
    p++;
  }
  const at = (k: number): string => valueText(line, k);
  return {
    symbol,
    last: at(1),
    best_ask: at(2),
    best_bid: at(3),
    high_24h: at(4),
    low_24h: at(5),
    volume_24h: at(6),
    timestamp: at(7),
    priceChangePercent: at(8),
    base_volume: at(9),
  };
}

/** The text of recorded key k's value, as recordedTicker found it. */
function valueText(line: string, k: number): string {
  return line.slice(recordedValues[k + RECORDED_COUNT], recordedValues[k]);
}

const RECORDED_COUNT = RECORDED_TICKER_KEYS.length;
/** recordedTicker's scratch: per key, the end (first half) and start (second half) of its value. */
const recordedValues = new Int32Array(2 * RECORDED_COUNT);
