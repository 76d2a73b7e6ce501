// A recording for end-to-end runs: one `cmt_btcusdt` ticker per poll, its price a seeded random walk
// (deterministic: the tests must not depend on Math.random).
import { writeFileSync } from 'node:fs';

/** Deterministic uniform [0, 1). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

export interface WalkRecording {
  readonly seed: number;
  /** Time of the first poll (epoch ms). */
  readonly t0: number;
  readonly polls: number;
  readonly stepMs: number;
  /** Widest move per poll (the price moves by up to half of it either way). */
  readonly stride: number;
  /** The meta line's `source`. */
  readonly source: string;
}

/** Writes the recording to `path`: a meta line, then `polls` polls from 90 000. */
export function writeWalkRecording(path: string, w: WalkRecording): void {
  const rnd = lcg(w.seed);
  const lines = [JSON.stringify({ meta: { format: 'capibot-recording/1', source: w.source } })];
  let price = 90_000;
  for (let i = 0; i < w.polls; i++) {
    price = Math.round((price + (rnd() - 0.5) * w.stride) * 10) / 10;
    const t = w.t0 + i * w.stepMs;
    const last = price.toFixed(1);
    lines.push(
      JSON.stringify({
        t,
        tickers: [
          {
            symbol: 'cmt_btcusdt',
            last,
            best_bid: last,
            best_ask: (price + 0.1).toFixed(1),
            high_24h: last,
            low_24h: last,
            volume_24h: '1000',
            timestamp: String(t - 2),
            priceChangePercent: '0',
            base_volume: '10',
          },
        ],
      }),
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}
