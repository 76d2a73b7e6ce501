// The many-symbols benchmark's inputs (bench/synthetic-symbols.ts, bench/symbols.ts): synthetic
// recordings the reader accepts, whose traded rows are the same in the 5- and the 200-symbol file,
// and a config of five never-trading strategies. The benchmark itself (child processes, minutes)
// is `npm run bench`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { symbolsConfigText } from '../../bench/symbols.ts';
import { symbolsOf, TRADED, writeSyntheticRecording } from '../../bench/synthetic-symbols.ts';
import { parseConfigText } from '../../src/config/load.ts';
import type { RecordedPoll } from '../../src/core/market.ts';
import { openRecording, readRecording } from '../../src/market/recording/reader.ts';

const SOURCE = 'data/ftx-btc-perp-202201-1m.ndjson.gz';
const dir = mkdtempSync(join(tmpdir(), 'capibot-bench-symbols-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function polls(path: string): Promise<RecordedPoll[]> {
  const out: RecordedPoll[] = [];
  for await (const p of readRecording(path)) out.push({ t: p.t, tickers: [...p.tickers] });
  return out;
}

describe('synthetic many-symbol recordings', () => {
  it('widen each poll to N symbols, the traded rows the same whatever N', async () => {
    const few = await writeSyntheticRecording(SOURCE, join(dir, 'few.ndjson.gz'), { polls: 30, symbols: 5 });
    const many = await writeSyntheticRecording(SOURCE, join(dir, 'many.ndjson.gz'), {
      polls: 30,
      symbols: 200,
    });
    expect(few.pollChars).toBeLessThan(many.pollChars / 30);
    const a = await polls(few.path);
    const b = await polls(many.path);
    expect(a).toHaveLength(30);
    expect(b.map((p) => p.t)).toEqual(a.map((p) => p.t));
    expect(symbolsOf(5)).toEqual([...TRADED].sort());
    for (let i = 0; i < 30; i++) {
      const pa = a[i] as RecordedPoll;
      const pb = b[i] as RecordedPoll;
      expect(pa.tickers.map((t) => t.symbol)).toEqual(symbolsOf(5));
      expect(pb.tickers.map((t) => t.symbol)).toEqual(symbolsOf(200));
      expect(pb.tickers.filter((t) => TRADED.includes(t.symbol))).toEqual(pa.tickers);
      for (const t of pb.tickers) {
        expect(t.timestamp).toBe(String(pb.t));
        for (const p of [t.last, t.best_bid, t.best_ask]) expect(p).toMatch(/^\d+(\.\d{1,4})?$/);
      }
    }
    // The meta line lists the symbols (a backtest checks the traded ones against it).
    const rec = await openRecording(many.path);
    expect(rec.meta?.['symbols']).toEqual(symbolsOf(200));
    await rec.close();
    // Deterministic: the same arguments, the same file.
    const again = await writeSyntheticRecording(SOURCE, join(dir, 'again.ndjson.gz'), {
      polls: 30,
      symbols: 200,
    });
    expect(readFileSync(again.path).equals(readFileSync(many.path))).toBe(true);
  });

  it('the benchmark config is a valid config: five strategies, one per traded symbol', () => {
    const config = parseConfigText(symbolsConfigText(), 'symbols.yaml', {});
    expect(config.strategies.map((s) => s.params)).toEqual(TRADED.map((symbol) => ({ symbol })));
  });
});
