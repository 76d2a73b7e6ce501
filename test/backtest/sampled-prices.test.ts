// The report's price series kept as one line of text per sample (src/backtest/sampled-prices.ts):
// the same decimals as decoding each price at once, built only when read.
import { describe, expect, it } from 'vitest';
import { PriceLines, sampledPrices, type LatestPrice } from '../../src/backtest/sampled-prices.ts';
import { copyAscii } from '../../src/core/ticker-rows.ts';

const price = (text: string): LatestPrice => ({
  copyLast: (into, at) => copyAscii(text, 0, text.length, into, at),
});

describe('sampled prices', () => {
  it('joins the latest prices in order, growing its buffer for long lines', () => {
    const lines = new PriceLines();
    expect(lines.line([])).toBe('');
    expect(lines.line([price('1.5')])).toBe('1.5');
    expect(lines.line([price('1.5'), price('20'), price('0.000000012345678')])).toBe(
      '1.5,20,0.000000012345678',
    );
    const many = Array.from({ length: 2_000 }, (_, i) => `${i}.${i % 7}`);
    expect(lines.line(many.map(price))).toBe(many.join(','));
    // The buffer is reused: an earlier line is not changed by a later one.
    const a = lines.line([price('7')]);
    lines.line([price('8')]);
    expect(a).toBe('7');
  });

  it('gives each symbol its price at every sample that knew it, decoded as the text decodes', () => {
    const prices = sampledPrices(
      ['cmt_btcusdt', 'cmt_ethusdt', 'cmt_solusdt', 'cmt_never'],
      [
        { t: 1, line: '100.50' },
        { t: 2, line: '101,3000.1' },
        { t: 3, line: '102,3001,1e-3' },
      ],
    );
    // Keys in the order first seen; a symbol no sample knew has none.
    expect(Object.keys(prices)).toEqual(['cmt_btcusdt', 'cmt_ethusdt', 'cmt_solusdt']);
    expect(Object.hasOwn(prices, 'cmt_never')).toBe(false);
    const text = (symbol: string): [number, string][] =>
      (prices[symbol] ?? []).map((p) => [p.t, p.last.toFixed()]);
    expect(text('cmt_btcusdt')).toEqual([
      [1, '100.5'],
      [2, '101'],
      [3, '102'],
    ]);
    expect(text('cmt_ethusdt')).toEqual([
      [2, '3000.1'],
      [3, '3001'],
    ]);
    expect(text('cmt_solusdt')).toEqual([[3, '0.001']]);
    // Built once: the same lists on every read, and plain data afterwards.
    expect(prices['cmt_btcusdt']).toBe(prices['cmt_btcusdt']);
    expect(Object.getOwnPropertyDescriptor(prices, 'cmt_ethusdt')?.value).toBe(prices['cmt_ethusdt']);
    expect(sampledPrices(['cmt_btcusdt'], [])).toEqual({});
  });
});
