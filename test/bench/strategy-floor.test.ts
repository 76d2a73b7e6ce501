// The replay benchmark's floor (bench/strategy-floor.ts): the strategy sees every ticker of its
// symbols, through a real context whose position follows its placements, and nothing else.
import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { strategyFloor } from '../../bench/strategy-floor.ts';
import { defineStrategy, z } from '../../src/strategy/index.ts';
import smaCross from '../fixtures/strategies/sma-cross.ts';

function line(t: number, tickers: readonly { symbol: string; last: string }[]): string {
  return JSON.stringify({
    t,
    tickers: tickers.map(({ symbol, last }) => ({
      symbol,
      last,
      best_bid: last,
      best_ask: last,
      timestamp: String(t),
    })),
  });
}

/** Prices up, up, down, down on the strategy's symbol, each beside a ticker of another symbol. */
const LINES = ['1', '2', '3', '2', '1'].map((last, i) =>
  line(1_000 * (i + 1), [
    { symbol: 'cmt_btcusdt', last },
    { symbol: 'cmt_ethusdt', last: '100' },
  ]),
);
const PARAMS = { symbol: 'cmt_btcusdt', fast: 1, slow: 2, size: '0.01' };

describe('strategy floor', () => {
  it("hands the strategy its own symbol's tickers, and its position follows its placements", () => {
    const run = strategyFloor(LINES, smaCross, PARAMS, 2);
    expect(run.tickers).toBe(5);
    // Up at the 2nd price: open long. Still up at the 3rd: holds. Down at the 4th: close long and open
    // short. Still down at the 5th: holds. A position that stayed flat would place again each tick.
    expect(run.placements).toBe(3);
    expect(Number.isFinite(run.cpuMs)).toBe(true);
    expect(run.cpuMs).toBeGreaterThanOrEqual(0);
  });

  it('without a strategy: parses and builds every ticker of every symbol', () => {
    const run = strategyFloor(LINES, undefined, undefined, 1);
    expect(run).toMatchObject({ tickers: 10, placements: 0 });
  });

  it('refuses a stream-style strategy, which it cannot call tick by tick', () => {
    const stream = defineStrategy({
      name: 'stream',
      version: '1',
      params: z.strictObject({}),
      symbols: () => ['cmt_btcusdt'],
      create: () => ({ run: () => of() }),
    });
    expect(() => strategyFloor(LINES, stream, {}, 1)).toThrow(/hook-style/);
  });
});
