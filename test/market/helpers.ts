// Shared helpers of the market-data tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { RecordedPoll, WireTicker } from '../../src/core/market.ts';
import { readRecording } from '../../src/market/recording/reader.ts';

export function wire(symbol: string, ts: number, last: string, extra: Partial<WireTicker> = {}): WireTicker {
  return {
    symbol,
    last,
    best_ask: last,
    best_bid: last,
    high_24h: last,
    low_24h: last,
    volume_24h: '123.45',
    timestamp: String(ts),
    priceChangePercent: '0.000474',
    base_volume: '1.5',
    ...extra,
  };
}

/** `n` polls one second apart, two symbols each. */
export function samplePolls(n: number, t0 = 1_700_000_000_000): RecordedPoll[] {
  return Array.from({ length: n }, (_, i) => ({
    t: t0 + i * 1000,
    tickers: [
      wire('cmt_btcusdt', t0 + i * 1000 - 3, `${90000 + i}.5`, { markPrice: '90000.1' }),
      wire('cmt_ethusdt', t0 + i * 1000 - 7, `${3000 + i}.25`),
    ],
  }));
}

export async function collect(path: string): Promise<RecordedPoll[]> {
  const out: RecordedPoll[] = [];
  for await (const p of readRecording(path)) out.push(p);
  return out;
}

/** A fresh temporary directory, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'capibot-market-'));
  dirs.push(dir);
  return dir;
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
