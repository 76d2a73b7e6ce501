// The runner's clocks of the venue's time (src/runner/venue-clock.ts).
import { describe, expect, it } from 'vitest';
import { OffsetClock, TickerTimeClock } from '../../src/runner/venue-clock.ts';
import { symbolId } from '../../src/core/ids.ts';
import type { Ticker } from '../../src/core/market.ts';

function wall(start: number) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe('OffsetClock (live: exchange time from the measured signature offset)', () => {
  it('adds the offset as measured at each reading', () => {
    const w = wall(1_000_000);
    let offset = 0;
    const c = new OffsetClock(w, () => offset);
    expect(c.now()).toBe(1_000_000);
    offset = -7_000; // the local clock runs 7 s ahead of the exchange
    w.t += 10_000;
    expect(c.now()).toBe(1_003_000);
  });

  it('never runs backwards when a re-measured offset is smaller', () => {
    const w = wall(1_000_000);
    let offset = 50;
    const c = new OffsetClock(w, () => offset);
    expect(c.now()).toBe(1_000_050);
    offset = 20;
    w.t += 10;
    expect(c.now()).toBe(1_000_050);
    w.t += 40;
    expect(c.now()).toBe(1_000_070);
  });
});

describe('TickerTimeClock (paper over HTTP: the exchange time of the tickers)', () => {
  it('follows the newest ticker timestamp plus the wall time since, and never runs backwards', () => {
    const w = wall(5_000);
    const c = new TickerTimeClock(w);
    expect(c.now()).toBe(5_000);
    const at = (timestamp: number) => [{ symbol: symbolId('cmt_btcusdt'), timestamp } as unknown as Ticker];
    c.observe(at(1_700_000_000_000));
    w.t += 300;
    expect(c.now()).toBe(1_700_000_000_300);
    c.observe(at(1_699_999_999_000)); // stale: ignored
    expect(c.now()).toBe(1_700_000_000_300);
  });
});
