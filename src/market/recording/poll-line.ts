// A recording line's poll, checked: the one hot path of every reader of NDJSON recordings (the
// recording reader, `capibot convert`). A short line (a few tickers) goes through JSON.parse and the
// general check; a long one in the common form through the lazy scanner (fast-line.ts), else the
// same general check. The scanner accepts a subset of what the general check accepts
// (test/market/recording-format.test.ts), so the choice changes the speed, never which lines are
// polls nor what they hold.
import type { RecordedPoll } from '../../core/market.ts';
import { parseCommonPollLine } from './fast-line.ts';
import { isRecordedPollShape } from './format.ts';

/**
 * Poll lines up to this long (three tickers of the recorded form, about 300 characters each) are
 * parsed with JSON.parse: the engine reads most of their tickers, and V8's parser with the general
 * check is quicker than the scanner followed by making those tickers (BENCHMARKS.md, "Which parser").
 * Longer lines (a venue's whole tickers list: hundreds of contracts, a few of them traded) go through
 * the scanner, which makes no ticker object nobody reads.
 */
export const NATIVE_PARSE_MAX_CHARS = 1024;

/** The poll of `text` by JSON.parse and the general check, or undefined. */
function nativePoll(text: string): RecordedPoll | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isRecordedPollShape(value) ? value : undefined;
}

/** The poll of a recording line, or undefined when it is not a valid poll line. */
export function pollOfLine(text: string): RecordedPoll | undefined {
  const scanned = text.length > NATIVE_PARSE_MAX_CHARS ? parseCommonPollLine(text) : undefined;
  return scanned ?? nativePoll(text);
}
