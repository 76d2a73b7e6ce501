// The money type's cost (issue #17, item 1): the operations that count an order's money, done with
// the fixed-point `Dec` and with big.js (the decimal library it replaced, DP 18), on the same values.
// Reports ns per "order's worth" of operations for each and the ratio; both give identical text.
import Big from 'big.js';
import { performance } from 'node:perf_hooks';
import { dec, roundToStep, type Dec } from '../src/core/decimal.ts';

export interface MoneyBench {
  /** Operations in one round: parse a price and a size, notional, fee, PnL, compare, snap to tick. */
  readonly opsPerRound: number;
  readonly rounds: number;
  readonly fixedNanosPerRound: number;
  readonly bigNanosPerRound: number;
  /** big.js time ÷ fixed-point time (how many times faster the fixed-point type is). */
  readonly speedup: number;
}

const B = Big();
B.DP = 18;
B.RM = 1;

// Prices and sizes as a venue sends them (BTC around 40 000 with a 0.1 tick, sizes of 0.001 steps).
function inputs(n: number): { prices: string[]; sizes: string[] } {
  const prices: string[] = [];
  const sizes: string[] = [];
  for (let i = 0; i < n; i++) {
    prices.push((40_000 + ((i * 7919) % 20_000) / 10).toFixed(1));
    sizes.push((((i * 104_729) % 5_000) / 1_000 + 0.001).toFixed(3));
  }
  return { prices, sizes };
}

function fixedRounds(prices: readonly string[], sizes: readonly string[]): string {
  const fee = dec('0.0006');
  const tick = dec('0.1');
  let pnl: Dec = dec(0);
  let last = dec('40000');
  for (let i = 0; i < prices.length; i++) {
    const price = dec(prices[i] as string);
    const size = dec(sizes[i] as string);
    const notional = price.times(size);
    pnl = pnl.plus(price.minus(last).times(size)).minus(notional.times(fee));
    if (price.gt(last)) last = roundToStep(price.times('1.0001'), tick, 'down');
    else last = price;
  }
  return pnl.toFixed();
}

function bigRounds(prices: readonly string[], sizes: readonly string[]): string {
  const fee = new B('0.0006');
  const tick = new B('0.1');
  let pnl = new B(0);
  let last = new B('40000');
  for (let i = 0; i < prices.length; i++) {
    const price = new B(prices[i] as string);
    const size = new B(sizes[i] as string);
    const notional = price.times(size);
    pnl = pnl.plus(price.minus(last).times(size)).minus(notional.times(fee));
    if (price.gt(last)) last = price.times('1.0001').div(tick).round(0, 0).times(tick);
    else last = price;
  }
  return pnl.toFixed();
}

function timeIt(f: () => string, repeats: number): { ms: number; text: string } {
  let best = Number.POSITIVE_INFINITY;
  let text = '';
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    text = f();
    best = Math.min(best, performance.now() - t0);
  }
  return { ms: best, text };
}

export function benchMoney(rounds = 200_000): MoneyBench {
  const { prices, sizes } = inputs(rounds);
  // Warm both up so that both are measured optimised.
  fixedRounds(prices.slice(0, 20_000), sizes.slice(0, 20_000));
  bigRounds(prices.slice(0, 20_000), sizes.slice(0, 20_000));
  const fixed = timeIt(() => fixedRounds(prices, sizes), 5);
  const big = timeIt(() => bigRounds(prices, sizes), 5);
  if (fixed.text !== big.text) throw new Error(`money bench: results differ (${fixed.text} vs ${big.text})`);
  return {
    opsPerRound: 12,
    rounds,
    fixedNanosPerRound: Math.round((fixed.ms * 1e6) / rounds),
    bigNanosPerRound: Math.round((big.ms * 1e6) / rounds),
    speedup: Math.round((big.ms / fixed.ms) * 10) / 10,
  };
}
