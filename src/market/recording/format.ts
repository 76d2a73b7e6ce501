// The recording line format of ARCHITECTURE.md: an optional first line `{"meta":{...}}`, then one
// `{"t":<ms>,"tickers":[<wire ticker>...]}` per poll, in non-decreasing `t`.
//
// Validation is split in two: a hand-written structural check that runs on every line (the hot path
// of every backtest: a zod parse per ticker costs several times a JSON.parse), and the zod schema,
// which runs only when the fast check refused a line, to name the offending field. Both accept
// exactly the same lines (test/market/recording-format.test.ts checks that they agree).
import { z } from 'zod';
import { isDecimalString } from '../../core/decimal.ts';
import { BadInputError } from '../../core/errors.ts';
import type { RecordedPoll, RecordingMeta, WireTicker } from '../../core/market.ts';
import { tickerSchema } from '../../exchange/weex/schemas.ts';

/** The `format` value written into the meta line of every recording capibot produces. */
export const RECORDING_FORMAT = 'capibot-recording/1';

const CODE_0 = 48;
const CODE_9 = 57;
const CODE_DOT = 46;
const CODE_MINUS = 45;
const CODE_PLUS = 43;
const CODE_E = 101;
const CODE_E_UPPER = 69;

/**
 * The decimal syntax of recordings: that of core/decimal.ts (`isDecimalString`), with the exponent
 * limited to 3 digits — `1e99999999` is a valid literal, but expanding it (toFixed) would take
 * 100 MB, and no exchange sends one.
 */
export const RECORDING_DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?$/;

/**
 * True when `s` matches RECORDING_DECIMAL, without a regular expression: this runs ~10 times per ticker.
 * The loop covers the common form (digits with at most one dot); exponents take the slow path.
 */
export function isDecimalText(s: string): boolean {
  const n = s.length;
  let i = n > 0 && s.charCodeAt(0) === CODE_MINUS ? 1 : 0;
  const first = i;
  let dot = false;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= CODE_0 && c <= CODE_9) continue;
    if (c === CODE_DOT && !dot) {
      dot = true;
      continue;
    }
    return isExponentDecimal(s);
  }
  // At least one digit: the mantissa is not empty and not a lone dot.
  return n - first > (dot ? 1 : 0);
}

/** The full syntax, exponent included; only reached for text the fast loop does not settle. */
function isExponentDecimal(s: string): boolean {
  const n = s.length;
  let i = 0;
  if (i < n && s.charCodeAt(i) === CODE_MINUS) i++;
  let intDigits = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c < CODE_0 || c > CODE_9) break;
    intDigits++;
    i++;
  }
  let fracDigits = 0;
  if (i < n && s.charCodeAt(i) === CODE_DOT) {
    i++;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c < CODE_0 || c > CODE_9) break;
      fracDigits++;
      i++;
    }
  }
  if (intDigits === 0 && fracDigits === 0) return false;
  if (i === n) return true;
  const e = s.charCodeAt(i);
  if (e !== CODE_E && e !== CODE_E_UPPER) return false;
  i++;
  if (i < n) {
    const sign = s.charCodeAt(i);
    if (sign === CODE_PLUS || sign === CODE_MINUS) i++;
  }
  let expDigits = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c < CODE_0 || c > CODE_9) return false;
    expDigits++;
    i++;
  }
  return expDigits > 0 && expDigits <= 3;
}

/** True when `s` is 1..16 ASCII digits (an epoch-ms timestamp as the wire sends it). */
function isEpochMsText(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 16) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < CODE_0 || c > CODE_9) return false;
  }
  return true;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isDecimalValue(x: unknown): boolean {
  return typeof x === 'string' && isDecimalText(x);
}

/**
 * True when decimal text (isDecimalText) is above 0: no minus sign, and a non-zero digit before any
 * exponent. A price of 0 or below is no price (a book side that is empty, a broken feed): a
 * recording holding one is refused rather than replayed into orders at absurd prices.
 */
export function isPositiveText(s: string): boolean {
  if (s.charCodeAt(0) === 45) return false; // '-'
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 101 || c === 69) return false; // 'e' | 'E': the mantissa was all zeros
    if (c > 48 && c <= 57) return true; // '1'..'9'
  }
  return false;
}

function isPriceValue(x: unknown): boolean {
  return typeof x === 'string' && isDecimalText(x) && isPositiveText(x);
}

function isOptionalPriceValue(x: unknown): boolean {
  return x === undefined || isPriceValue(x);
}

/**
 * The fast structural check of one wire ticker (see the file comment). Written out field by field:
 * named property loads on objects of one shape stay monomorphic, a loop over key names does not.
 * Must accept exactly what `recordedTickerSchema` accepts.
 */
export function isWireTickerShape(v: unknown): boolean {
  // An array fails the symbol check below (JSON arrays have no named properties).
  if (typeof v !== 'object' || v === null) return false;
  const w = v as Partial<Record<keyof WireTicker, unknown>>;
  const symbol = w.symbol;
  if (typeof symbol !== 'string' || symbol.length === 0) return false;
  const ts = w.timestamp;
  return (
    typeof ts === 'string' &&
    isEpochMsText(ts) &&
    isPriceValue(w.last) &&
    isPriceValue(w.best_bid) &&
    isPriceValue(w.best_ask) &&
    isDecimalValue(w.high_24h) &&
    isDecimalValue(w.low_24h) &&
    isDecimalValue(w.volume_24h) &&
    isDecimalValue(w.priceChangePercent) &&
    isDecimalValue(w.base_volume) &&
    isOptionalPriceValue(w.markPrice) &&
    isOptionalPriceValue(w.indexPrice)
  );
}

/** The fast structural check of one poll line's parsed value. */
export function isRecordedPollShape(v: unknown): v is RecordedPoll {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as { readonly t?: unknown; readonly tickers?: unknown };
  const t = p.t;
  if (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0) return false;
  const tickers = p.tickers;
  if (!Array.isArray(tickers)) return false;
  for (let i = 0; i < tickers.length; i++) {
    if (!isWireTickerShape(tickers[i])) return false;
  }
  return true;
}

/** zod schemas of the two line kinds; used for error messages (and by tests as the reference). */
const recordingDecimal = z
  .string()
  .refine(isDecimalString, { message: 'not a decimal string' })
  .refine((s) => RECORDING_DECIMAL.test(s), { message: 'exponent longer than 3 digits' });

/** A price: a recording decimal above 0. */
const recordingPrice = recordingDecimal.refine(isPositiveText, { message: 'a price must be above 0' });

/** A recorded ticker: the wire ticker schema, decimals in the recording syntax. */
export const recordedTickerSchema = tickerSchema.extend({
  last: recordingPrice,
  best_bid: recordingPrice,
  best_ask: recordingPrice,
  high_24h: recordingDecimal,
  low_24h: recordingDecimal,
  volume_24h: recordingDecimal,
  priceChangePercent: recordingDecimal,
  base_volume: recordingDecimal,
  markPrice: recordingPrice.optional(),
  indexPrice: recordingPrice.optional(),
});

export const recordedPollSchema = z.object({
  t: z.number().int('t must be an integer (epoch ms)').nonnegative().max(Number.MAX_SAFE_INTEGER),
  tickers: z.array(recordedTickerSchema),
});
export const metaLineSchema = z.object({ meta: z.record(z.string(), z.unknown()) });

/** Why `value` is not a poll line the reader accepts (`tickers[0].last: a price must be above 0`). */
export function pollProblem(value: unknown): string | undefined {
  if (isRecordedPollShape(value)) return undefined;
  const r = recordedPollSchema.safeParse(value);
  return r.success ? 'not a recording poll' : describeIssue(r.error);
}

/** Human text for the first zod issue: `tickers[0].best_bid: not a decimal string`. */
function describeIssue(err: z.ZodError): string {
  const issue = err.issues[0];
  if (!issue) return 'does not match the recording format';
  const path = issue.path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Where a line sits, for error messages: `data/rec.ndjson.gz:17`. */
export function lineWhere(file: string, line: number): string {
  return `${file}:${line}`;
}

/** The error for a line the fast check refused: zod names the field. */
export function badPollLine(value: unknown, file: string, line: number): BadInputError {
  const r = recordedPollSchema.safeParse(value);
  const why = r.success ? 'does not match the recording format' : describeIssue(r.error);
  return new BadInputError(`not a recording line (${why})`, lineWhere(file, line));
}

export type ParsedLine =
  | { readonly kind: 'poll'; readonly poll: RecordedPoll }
  | { readonly kind: 'meta'; readonly meta: RecordingMeta };

/**
 * Parses and validates one line. `line` is 1-based; a meta line is accepted on line 1 only.
 * Throws BadInputError naming `file:line`.
 */
export function parseRecordingLine(text: string, file: string, line: number): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const why = text.trim() === '' ? 'empty line' : `bad JSON (${(e as Error).message})`;
    throw new BadInputError(why, lineWhere(file, line));
  }
  if (isRecordedPollShape(value)) return { kind: 'poll', poll: value };
  if (isRecord(value) && 'meta' in value && !('t' in value)) {
    if (line !== 1)
      throw new BadInputError('a meta line is allowed only as the first line', lineWhere(file, line));
    const r = metaLineSchema.safeParse(value);
    if (!r.success)
      throw new BadInputError(`bad meta line (${describeIssue(r.error)})`, lineWhere(file, line));
    return { kind: 'meta', meta: r.data.meta };
  }
  throw badPollLine(value, file, line);
}

/** The one-line JSON text of a poll, as the writer puts it in a file (without the newline). */
export function pollLineText(poll: RecordedPoll): string {
  return JSON.stringify({ t: poll.t, tickers: poll.tickers });
}

/** The one-line JSON text of a meta line (without the newline). */
export function metaLineText(meta: RecordingMeta): string {
  return JSON.stringify({ meta });
}
