// A synthetic recording for long runs: one poll every `stepMs`, each symbol's last price a seeded
// random walk in whole price ticks, the best bid and ask one tick either side. Written as a recording
// file (ARCHITECTURE.md, "Recording"), so a backtest streams it as it would a real one.
import { writeFileSync } from 'node:fs';
import { dec, decToString } from '../../src/core/decimal.ts';
import type { WireTicker } from '../../src/core/market.ts';

export interface WalkSymbol {
  readonly symbol: string;
  /** Starting last price (decimal text) and price tick. */
  readonly start: string;
  readonly tick: string;
}

export const WALK_BTC: WalkSymbol = { symbol: 'cmt_btcusdt', start: '60000', tick: '0.1' };
export const WALK_ETH: WalkSymbol = { symbol: 'cmt_ethusdt', start: '3000', tick: '0.01' };

export interface WalkOptions {
  readonly symbols: readonly WalkSymbol[];
  readonly polls: number;
  readonly startMs: number;
  readonly stepMs: number;
  /** Largest move per poll, in ticks (each move is uniform in [−volTicks, volTicks]). */
  readonly volTicks: number;
  readonly seed: number;
}

/** mulberry32: a small seeded generator (tests only need it to be repeatable). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function wire(symbol: string, last: string, bid: string, ask: string, t: number): WireTicker {
  return {
    symbol,
    last,
    best_bid: bid,
    best_ask: ask,
    high_24h: last,
    low_24h: last,
    volume_24h: '0',
    timestamp: String(t),
    priceChangePercent: '0',
    base_volume: '0',
  };
}

/** `n` symbols no strategy trades (a recording usually holds many): `cmt_extra<k>usdt`. */
export function extraSymbols(n: number): WalkSymbol[] {
  return Array.from({ length: n }, (_, k) => ({ symbol: `cmt_extra${k}usdt`, start: '100', tick: '0.01' }));
}

/** Writes the recording to `path` (one line per poll, a meta line first). */
export function writeRandomWalk(path: string, o: WalkOptions): void {
  const next = rng(o.seed);
  // Prices in ticks (integers): exact, and printed through the tick as decimal text.
  const ticks = o.symbols.map((s) => Math.round(Number(s.start) / Number(s.tick)));
  const lines = [
    JSON.stringify({ meta: { source: 'random-walk', symbols: o.symbols.map((s) => s.symbol) } }),
  ];
  for (let i = 0; i < o.polls; i++) {
    const t = o.startMs + i * o.stepMs;
    const tickers = o.symbols.map((s, k) => {
      const move = Math.round((next() * 2 - 1) * o.volTicks);
      const at = Math.max(100, (ticks[k] ?? 0) + move);
      ticks[k] = at;
      const tick = dec(s.tick);
      const price = (n: number): string => decToString(tick.times(n));
      return wire(s.symbol, price(at), price(at - 1), price(at + 1), t);
    });
    lines.push(JSON.stringify({ t, tickers }));
  }
  writeFileSync(path, lines.join('\n') + '\n');
}
