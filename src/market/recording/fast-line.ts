// A specialised parser and validator for the common form of a poll line, the hot path of replays:
//
//   {"t":<digits>,"tickers":[{"<ticker key>":"<text>",...},...]}
//
// with no whitespace, no escapes and only the known ticker keys. For such a line, when it is also a
// valid poll, it returns exactly what JSON.parse returns (same keys in the same order, same strings)
// — about as fast as JSON.parse alone, validation included, because it knows the shape. For anything
// else (other layouts, extra keys, invalid values) it returns undefined and the caller falls back to
// JSON.parse and the general checks of format.ts, which also produce the error messages. So this is
// an optimisation, never a second grammar; test/market/recording-format.test.ts checks the equivalence.
import type { RecordedPoll } from '../../core/market.ts';
import { isDecimalText, isPositiveText } from './format.ts';

const SYMBOL = 0;
const DECIMAL = 1;
const TIMESTAMP = 2;
/** A price: a decimal above 0 (format.ts, recordingPrice). */
const PRICE = 4;
const OPTIONAL_PRICE = 5;

/** Ticker keys taken on the fast path, with how their value is checked. */
const KEYS: readonly string[] = [
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
  'markPrice',
  'indexPrice',
];
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
/** Bits of the keys every ticker must have (all but markPrice and indexPrice). */
const REQUIRED = (1 << 10) - 1;

const QUOTE = 34;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const ZERO = 48;
const NINE = 57;
const SPACE = 32;

const HEAD = '{"t":';
const TICKERS = ',"tickers":[';

/**
 * Key order of the last ticker parsed: recordings repeat one order, so the key at each position is
 * predicted and confirmed with one comparison.
 */
const predicted: number[] = [];

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

function isValue(kind: number, s: string): boolean {
  if (kind === SYMBOL) {
    if (s.length === 0) return false;
    for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < SPACE) return false;
    return true;
  }
  if (kind === TIMESTAMP) {
    const n = s.length;
    if (n === 0 || n > 16) return false;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < ZERO || c > NINE) return false;
    }
    return true;
  }
  if (kind === PRICE || kind === OPTIONAL_PRICE) return isDecimalText(s) && isPositiveText(s);
  return isDecimalText(s);
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
  const tickers: Record<string, string>[] = [];
  if (line.charCodeAt(i) === CLOSE_BRACKET) {
    i++;
  } else {
    for (;;) {
      if (line.charCodeAt(i) !== OPEN_BRACE) return undefined;
      i++;
      const ticker: Record<string, string> = {};
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
        const value = line.slice(valueStart, valueEnd);
        if (!isValue(KINDS[k] as number, value)) return undefined;
        ticker[key] = value;
        seen |= 1 << k;
        i = valueEnd + 1;
        const c = line.charCodeAt(i);
        i++;
        if (c === COMMA) continue;
        if (c === CLOSE_BRACE) break;
        return undefined;
      }
      if ((seen & REQUIRED) !== REQUIRED) return undefined;
      tickers.push(ticker);
      const c = line.charCodeAt(i);
      i++;
      if (c === COMMA) continue;
      if (c === CLOSE_BRACKET) break;
      return undefined;
    }
  }
  if (i !== n - 1 || line.charCodeAt(i) !== CLOSE_BRACE) return undefined;
  return { t, tickers } as unknown as RecordedPoll;
}
