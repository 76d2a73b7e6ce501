// A wire ticker decoded once: numbers for signals, exact decimals on first read, equal to decoding
// the wire text directly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import type { WireTicker } from '../../src/core/market.ts';
import { TickerView } from '../../src/core/ticker-view.ts';

const wire = (over: Partial<WireTicker> = {}): WireTicker => ({
  symbol: 'cmt_btcusdt',
  last: '64000.5',
  best_bid: '64000.4',
  best_ask: '64000.6',
  high_24h: '65000',
  low_24h: '63000',
  volume_24h: '1',
  timestamp: '1721347202994',
  priceChangePercent: '0',
  base_volume: '1',
  ...over,
});

describe('TickerView', () => {
  it('gives numbers for signals and the exact decimals of the same fields', () => {
    const t = new TickerView(wire({ markPrice: '64001', indexPrice: '63999.9' }));
    expect([t.price, t.bid, t.ask, t.mark, t.index, t.timestamp]).toEqual([
      64000.5, 64000.4, 64000.6, 64001, 63999.9, 1721347202994,
    ]);
    expect([t.last, t.bestBid, t.bestAsk, t.markPrice, t.indexPrice].map((d) => d?.toFixed())).toEqual([
      '64000.5',
      '64000.4',
      '64000.6',
      '64001',
      '63999.9',
    ]);
    // Decoded once: the same object on every read.
    expect(t.last).toBe(t.last);
  });

  it('has no mark or index when the wire has none', () => {
    const t = new TickerView(wire());
    expect(t.mark).toBeUndefined();
    expect(t.markPrice).toBeUndefined();
    expect(t.indexPrice).toBeUndefined();
  });

  it('keeps exact decimals that no float can hold (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.integer({ min: 0, max: 20 }), (raw, scale) => {
        const text =
          scale === 0
            ? String(raw)
            : `${raw / 10n ** BigInt(scale)}.${String(raw % 10n ** BigInt(scale)).padStart(scale, '0')}`;
        const t = new TickerView(wire({ last: text }));
        expect(t.last.eq(dec(text))).toBe(true);
        expect(t.price).toBe(Number(text));
      }),
    );
  });
});
