import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDecimalString } from '../../src/core/decimal.ts';
import { BadInputError } from '../../src/core/errors.ts';
import type { RecordedPoll } from '../../src/core/market.ts';
import { tickerRows } from '../../src/core/ticker-rows.ts';
import {
  parseCommonPollLine,
  RECORDED_TICKER_KEYS,
  TICKER_KEYS,
} from '../../src/market/recording/fast-line.ts';
import {
  isDecimalText,
  RECORDING_DECIMAL,
  isRecordedPollShape,
  parseRecordingLine,
  recordedPollSchema,
} from '../../src/market/recording/format.ts';
import { samplePolls, wire } from './helpers.ts';

const decimalAlphabet = fc.constantFrom('0', '1', '9', '.', '-', '+', 'e', 'E', 'x', ' ', '', 'a');

describe('recording line checks', () => {
  it('isDecimalText accepts the decimals of core/decimal.ts with at most 3 exponent digits', () => {
    fc.assert(
      fc.property(
        fc.array(decimalAlphabet, { maxLength: 10 }).map((cs) => cs.join('')),
        (s) => {
          expect(isDecimalText(s)).toBe(RECORDING_DECIMAL.test(s));
          const longExponent = /[eE][+-]?\d{4}/.test(s);
          expect(isDecimalText(s)).toBe(isDecimalString(s) && !longExponent);
        },
      ),
      { numRuns: 5000 },
    );
    expect(isDecimalText('1e999')).toBe(true);
    expect(isDecimalText('1e99999999')).toBe(false);
    for (const s of ['0', '-0', '1.', '.5', '-.5', '1e5', '1E-5', '00012.3400', '90755.3'])
      expect(isDecimalText(s)).toBe(true);
    for (const s of ['', '.', '-', '+1', '1e', '1.2.3', ' 1', '1 ', '0x10', 'NaN', 'Infinity', '1_0'])
      expect(isDecimalText(s)).toBe(false);
  });

  // Values that break one field at a time, to compare the fast check with the zod schema.
  const fieldValue = fc.oneof(
    fc.constantFrom<unknown>(
      '1',
      '1.5',
      '-2',
      '0',
      '0.000',
      '-0',
      '0e5',
      '1e3',
      '',
      'abc',
      '1.2.3',
      5,
      null,
      true,
      [],
      {},
      undefined,
      '123456789012345',
      '12345678901234567',
    ),
    fc.string({ maxLength: 6 }),
  );
  const fields = [
    'symbol',
    'last',
    'best_bid',
    'best_ask',
    'high_24h',
    'low_24h',
    'volume_24h',
    'timestamp',
    'priceChangePercent',
    'base_volume',
    'markPrice',
    'indexPrice',
    'extra',
  ];

  it('the fast structural check agrees with the zod schema on every line', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...fields), fieldValue), { maxLength: 3 }),
        fc.oneof(
          fc.constant<unknown>(1_700_000_000_000),
          fc.constantFrom<unknown>(-1, 1.5, '5', null, 2 ** 53),
        ),
        fc.boolean(),
        (edits, t, asArray) => {
          const ticker: Record<string, unknown> = { ...wire('cmt_btcusdt', 1, '90000.1') };
          for (const [k, v] of edits) {
            if (v === undefined) delete ticker[k];
            else ticker[k] = v;
          }
          const line = JSON.parse(JSON.stringify({ t, tickers: asArray ? [ticker] : ticker })) as unknown;
          expect(isRecordedPollShape(line)).toBe(recordedPollSchema.safeParse(line).success);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('parseRecordingLine tells meta from polls and names the line', () => {
    expect(parseRecordingLine('{"meta":{"a":1}}', 'f', 1)).toEqual({ kind: 'meta', meta: { a: 1 } });
    const p = parseRecordingLine('{"t":1,"tickers":[]}', 'f', 7);
    expect(p).toEqual({ kind: 'poll', poll: { t: 1, tickers: [] } });
    expect(() => parseRecordingLine('{"meta":5}', 'f', 1)).toThrow(/f:1: bad meta line/);
    expect(() => parseRecordingLine('nope', 'file.ndjson', 12)).toThrow(BadInputError);
    expect(() => parseRecordingLine('nope', 'file.ndjson', 12)).toThrow(/file\.ndjson:12: bad JSON/);
  });

  it('refuses a price at or below 0, naming the line and the field', () => {
    const line = (last: string, bid = '99'): string =>
      JSON.stringify({
        t: 1,
        tickers: [
          {
            symbol: 'cmt_btcusdt',
            last,
            best_ask: '101',
            best_bid: bid,
            high_24h: '110',
            low_24h: '90',
            volume_24h: '5',
            timestamp: '1',
            priceChangePercent: '-0.01',
            base_volume: '0',
          },
        ],
      });
    expect(parseRecordingLine(line('100'), 'r', 3)).toMatchObject({ kind: 'poll' });
    for (const bad of ['-5', '0', '0.000', '-0', '0e5', '.0'])
      expect(() => parseRecordingLine(line(bad), 'r.ndjson', 100), bad).toThrow(
        /r\.ndjson:100: .*tickers\[0\]\.last: a price must be above 0/,
      );
    expect(() => parseRecordingLine(line('100', '0'), 'r', 4)).toThrow(
      /tickers\[0\]\.best_bid: a price must be above 0/,
    );
    // Changes and volumes may be 0 or negative: only prices are checked.
    expect(parseRecordingLine(line('0.5'), 'r', 5)).toMatchObject({ kind: 'poll' });
  });

  // The fast path of the reader must be JSON.parse + the structural check, only faster.
  const tickerKeys = [...TICKER_KEYS];
  /** Values put in place of one field's: valid and invalid decimals, prices, timestamps, symbols. */
  const oddValue = fc.constantFrom(
    '90000.1',
    '0',
    '-0.0005',
    '1e5',
    '12',
    'x',
    '',
    '1.2.3',
    'cmt_btcusdt',
    '1700000000000',
    '.5',
    '5.',
    '007',
    '0.000',
    '-3',
    '1E-2',
    '2e1234',
    '12345678901234567',
    'a\u0001b',
  );
  const base = wire('cmt_btcusdt', 1_700_000_000_000, '90000.1', {
    markPrice: '90000.2',
    indexPrice: '90000.3',
  }) as unknown as Record<string, string>;
  /** A JSON object text with these keys in this order, one value possibly odd, maybe one extra key. */
  const objectText = (
    keys: readonly string[],
    odd: string,
    oddAt: number,
    extra?: readonly string[],
  ): string => {
    const pairs = keys.map((k, i) => [k, i === oddAt ? odd : (base[k] as string)] as const);
    const text = pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
    if (extra) text.push(`${JSON.stringify(extra[0])}:"${extra[1]}"`);
    return `{${text.join(',')}}`;
  };
  /** The keys as `capibot record` writes them: the wire schema's order (src/exchange/weex/schemas.ts). */
  const SCHEMA_ORDER = ['symbol', 'last', 'best_bid', 'best_ask', ...RECORDED_TICKER_KEYS.slice(4)];
  const tickerObject = fc.oneof(
    // Any order and subset of the keys.
    fc
      .tuple(
        fc.shuffledSubarray(tickerKeys, { minLength: 8 }),
        oddValue,
        fc.nat(11),
        fc.option(
          fc.tuple(
            fc.constantFrom('extra', '__proto__', 'symbol', 'last'),
            fc.constantFrom('v', '1', '\u0001'),
          ),
          { nil: undefined },
        ),
      )
      .map(([keys, odd, oddAt, extra]) => objectText(keys, odd, oddAt, extra)),
    // The usual forms, which one regular expression checks (fast-line.ts): the venue's order or the
    // wire schema's (best_bid first), markPrice and indexPrice after them or not; a value odd or none.
    fc
      .tuple(
        fc.constantFrom(RECORDED_TICKER_KEYS, SCHEMA_ORDER),
        fc.constantFrom(
          [],
          ['markPrice'],
          ['indexPrice'],
          ['markPrice', 'indexPrice'],
          ['indexPrice', 'markPrice'],
        ),
        oddValue,
        fc.nat(RECORDED_TICKER_KEYS.length + 3),
      )
      .map(([keys, tail, odd, oddAt]) => objectText([...keys, ...tail], odd, oddAt)),
  );
  const pollLine = fc
    .tuple(
      fc.constantFrom('0', '7', '1700000000000', '01', '1.5', '-1', '123456789012345678'),
      fc.array(tickerObject, { maxLength: 3 }),
    )
    .map(([t, tickers]) => `{"t":${t},"tickers":[${tickers.join(',')}]}`);
  const edit = fc.tuple(
    fc.nat(),
    fc.constantFrom('', ' ', '\\', '"', '0', ',', '}', ']', '{', ':', '\t', '\u0001', 'é'),
    fc.boolean(),
  );
  const mutated = fc.tuple(pollLine, fc.array(edit, { maxLength: 2 })).map(([line, edits]) => {
    let s = line;
    for (const [at, text, replace] of edits) {
      const i = at % (s.length + 1);
      s = s.slice(0, i) + text + s.slice(replace ? i + 1 : i);
    }
    return s;
  });

  it('the specialised line parser returns exactly what JSON.parse returns, for valid polls only', () => {
    let fastHits = 0;
    fc.assert(
      fc.property(fc.oneof(pollLine, mutated), (line) => {
        const fast = parseCommonPollLine(line);
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          parsed = undefined;
        }
        if (fast !== undefined) {
          fastHits++;
          expect(parsed).toBeDefined();
          // Same values, same key order.
          expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed));
          expect(fast).toEqual(parsed);
          expect(isRecordedPollShape(parsed)).toBe(true);
        }
      }),
      { numRuns: 4000 },
    );
    expect(fastHits).toBeGreaterThan(100);
  });

  it("reads a line's rows without making its tickers, each as JSON.parse makes it when asked", () => {
    fc.assert(
      fc.property(fc.oneof(pollLine, mutated), (line) => {
        const fast = parseCommonPollLine(line);
        if (fast === undefined) return;
        const parsed = JSON.parse(line) as RecordedPoll;
        const rows = tickerRows(fast);
        expect(rows.size).toBe(parsed.tickers.length);
        const into = new Uint8Array(line.length);
        parsed.tickers.forEach((t, i) => {
          expect(rows.symbolAt(i)).toBe(t.symbol);
          expect(rows.lastAt(i)).toBe(t.last);
          const end = rows.copyLast(i, into, 0);
          expect(Buffer.from(into.subarray(0, end)).toString('latin1')).toBe(t.last);
          expect(rows.copyLast(i, new Uint8Array(t.last.length - 1), 0)).toBe(-1);
          expect(rows.made(i)).toBe(false);
        });
        // One ticker made on its own, then all: the same objects, in JSON.parse's shape.
        const last = parsed.tickers.length - 1;
        if (last >= 0) {
          const one = rows.tickerAt(last);
          expect(JSON.stringify(one)).toBe(JSON.stringify(parsed.tickers[last]));
          expect(rows.made(last)).toBe(true);
          expect(last === 0 || !rows.made(0)).toBe(true);
          expect(fast.tickers[last]).toBe(one);
        }
        expect(fast.tickers).toBe(rows.all());
        expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed));
        expect(rows.layout).toEqual(parsed.tickers.map((t) => t.symbol));
        expect(Object.isFrozen(rows.layout)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives lines listing the same symbols in the same order one layout, and any other line its own', () => {
    const line = (t: number, symbols: readonly string[]): string =>
      JSON.stringify({ t, tickers: symbols.map((s, i) => wire(s, t, `${t + i}`)) });
    const layout = (text: string): readonly string[] | undefined => {
      const poll = parseCommonPollLine(text);
      if (poll === undefined) throw new Error('the fast path refused a canonical line');
      return tickerRows(poll).layout;
    };
    const first = layout(line(1, ['a', 'b', 'c']));
    expect(layout(line(2, ['a', 'b', 'c']))).toBe(first);
    // Another order, one symbol fewer or more, another symbol: a new layout each.
    for (const other of [
      ['b', 'a', 'c'],
      ['a', 'b'],
      ['a', 'b', 'c', 'd'],
      ['a', 'x', 'c'],
    ]) {
      const l = layout(line(3, other));
      expect(l).not.toBe(first);
      expect(l).toEqual(other);
    }
    // A layout is the last line's only: the first list again gets a new array, then shares it.
    const again = layout(line(4, ['a', 'b', 'c']));
    expect(again).toEqual(['a', 'b', 'c']);
    expect(layout(line(5, ['a', 'b', 'c']))).toBe(again);
  });

  it('takes the fast path for canonical poll lines, whatever the key order', () => {
    for (const p of samplePolls(5)) expect(parseCommonPollLine(JSON.stringify(p))).toEqual(p);
    const reordered = {
      t: 1,
      tickers: [{ ...Object.fromEntries(Object.entries(wire('a', 1, '2')).reverse()), markPrice: '1' }],
    };
    expect(parseCommonPollLine(JSON.stringify(reordered))).toEqual(reordered);
    expect(JSON.stringify(parseCommonPollLine(JSON.stringify(reordered)))).toBe(JSON.stringify(reordered));
    // Declined: whitespace, an extra key, a missing key, an invalid value (JSON.parse and format.ts take over).
    const line = JSON.stringify(samplePolls(1)[0]);
    expect(parseCommonPollLine(line.replace(':', ': '))).toBeUndefined();
    expect(parseCommonPollLine(line.replace('"symbol"', '"fundingRate":"1","symbol"'))).toBeUndefined();
    expect(parseCommonPollLine(line.replace('"last":"90000.5",', ''))).toBeUndefined();
    expect(parseCommonPollLine(line.replace('"last":"90000.5"', '"last":"9x"'))).toBeUndefined();
  });

  // The patterns must match a number in one way only: with `\d+\.?\d*` an integer of n digits split n
  // ways, and a ticker that failed late (a markPrice after the recorded keys) was retried in every
  // combination of its values' splits: this test did not end in two minutes with those patterns.
  it('checks long integer values in linear time, in the recorded form and beyond it', () => {
    const digits = '123456789012345';
    const ticker = {
      symbol: 'cmt_btcusdt',
      last: digits,
      best_ask: digits,
      best_bid: digits,
      high_24h: digits,
      low_24h: digits,
      volume_24h: digits,
      timestamp: '1700000000000',
      priceChangePercent: digits,
      base_volume: digits,
      markPrice: '1',
    };
    const line = JSON.stringify({ t: 1, tickers: [ticker, ticker] });
    expect(JSON.stringify(parseCommonPollLine(line))).toBe(line);
    const long = '1'.repeat(200_000);
    expect(parseCommonPollLine(line.replace(`"last":"${digits}"`, `"last":"${long}x"`))).toBeUndefined();
    expect(isDecimalText(`${long}x`)).toBe(false);
    expect(() => parseRecordingLine(line.replace(`"last":"${digits}"`, `"last":"${long}x"`), 'r', 2)).toThrow(
      /r:2: .*tickers\[0\]\.last/,
    );
  });
});
