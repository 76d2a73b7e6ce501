// A recording whose polls carry many symbols while the strategies trade a few (issue #24, item 5):
// the tickers nobody trades are never made into objects, let alone decoded into exact values, and the
// run is exactly the run over the same polls given as plain ticker objects.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareBacktest } from '../../src/backtest/prepare.ts';
import { buildReport } from '../../src/backtest/report/index.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { CHART_ALL_UP_TO } from '../../src/backtest/sampled-prices.ts';
import type { RecordedPoll, WireTicker } from '../../src/core/market.ts';
import { tickerRows } from '../../src/core/ticker-rows.ts';
import { openRecording, type OpenedRecording } from '../../src/market/recording/reader.ts';
import { Session } from '../../src/strategy/testing/session.ts';
import { defineStrategy, z } from '../../src/strategy/index.ts';
import { tempDir, wire } from '../market/helpers.ts';

const TRADED = 'cmt_btcusdt';
const SYMBOLS = [TRADED, ...Array.from({ length: 11 }, (_, k) => `cmt_s${String(k).padStart(2, '0')}usdt`)];
const T0 = 1_717_200_000_000;

/** 90 polls a second apart; the traded symbol moves in waves (so sma-cross trades), the others drift. */
function polls(): RecordedPoll[] {
  return Array.from({ length: 90 }, (_, i) => ({
    t: T0 + i * 1_000,
    tickers: SYMBOLS.map((symbol, k): WireTicker => {
      const price = k === 0 ? 60_000 + Math.round(400 * Math.sin(i / 6)) : 10 * (k + 1) + (i % 7) / 10;
      return wire(symbol, T0 + i * 1_000, String(price), {
        best_bid: String(price - (k === 0 ? 0.5 : 0.01)),
        best_ask: String(price + (k === 0 ? 0.5 : 0.01)),
      });
    }),
  }));
}

function files(): { config: string; data: string } {
  const dir = tempDir();
  const data = join(dir, 'many.ndjson');
  writeFileSync(
    data,
    [JSON.stringify({ meta: { symbols: SYMBOLS } }), ...polls().map((p) => JSON.stringify(p)), ''].join('\n'),
  );
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'mode: paper',
      'strategies:',
      '  - id: sma',
      `    file: ${JSON.stringify(resolve('test/fixtures/strategies/sma-cross.ts'))}`,
      `    params: { symbol: ${TRADED}, fast: 2, slow: 5, size: '0.01' }`,
      'backtest:',
      '  equitySampleMs: 1000',
      'log:',
      '  level: silent',
      '',
    ].join('\n'),
  );
  return { config, data };
}

/** `rec` with every poll it hands out kept in `seen`, or turned into a plain object first. */
function watched(rec: OpenedRecording, seen: RecordedPoll[], plain: boolean): OpenedRecording {
  const batches: AsyncIterable<readonly RecordedPoll[]> = {
    [Symbol.asyncIterator]: () => {
      const inner = rec.batches[Symbol.asyncIterator]();
      return {
        next: async () => {
          const r = await inner.next();
          if (r.done === true) return r;
          const out = plain
            ? r.value.map((p) => ({ t: p.t, tickers: JSON.parse(JSON.stringify(p.tickers)) as WireTicker[] }))
            : r.value;
          seen.push(...out);
          return { done: false, value: out };
        },
        return: async () => inner.return?.() ?? { done: true, value: undefined },
      };
    },
  };
  return { path: rec.path, meta: rec.meta, polls: rec.polls, batches, close: () => rec.close() };
}

async function backtest(plain: boolean, { config, data }: { config: string; data: string }) {
  const prepared = await prepareBacktest({ configPath: config, data, env: {} });
  const seen: RecordedPoll[] = [];
  const record = await runBacktest({
    ...prepared,
    recording: watched(await openRecording(data), seen, plain),
  });
  return { record, report: buildReport(record), seen };
}

describe('many symbols per poll, a few traded', () => {
  it('makes the ticker objects of the traded symbol only, and trades as over plain polls', async () => {
    const inputs = files();
    const lazy = await backtest(false, inputs);
    expect(lazy.seen).toHaveLength(90);
    expect(lazy.record.fills.length).toBeGreaterThan(4);
    for (const poll of lazy.seen) {
      const rows = tickerRows(poll);
      const made = SYMBOLS.map((_, i) => rows.made(i));
      // The traded symbol's ticker is made (the strategy and the simulator's book read it); no other.
      expect(made).toEqual(SYMBOLS.map((s) => s === TRADED));
    }
    // A wide recording (more than CHART_ALL_UP_TO symbols) charts the traded symbol only, sampled
    // from the recording's texts; every symbol keeps its first and last price.
    expect(SYMBOLS.length).toBeGreaterThan(CHART_ALL_UP_TO);
    expect(Object.keys(lazy.record.prices)).toEqual([TRADED]);
    const first = polls()[0] as RecordedPoll;
    for (const t of first.tickers) {
      if (t.symbol === TRADED) expect(lazy.record.prices[t.symbol]?.[0]?.last.toFixed()).toBe(t.last);
      expect(lazy.record.priceRanges?.[t.symbol]?.first.toFixed()).toBe(t.last);
    }

    // The same polls as plain objects (every ticker made): the same run, byte for byte.
    const plain = await backtest(true, inputs);
    expect(plain.seen.every((p) => tickerRows(p).made(0))).toBe(true);
    expect(lazy.report.json).toBe(plain.report.json);
    expect(lazy.report.csv).toBe(plain.report.csv);
    expect(lazy.report.html).toBe(plain.report.html);
  }, 60_000);

  it('charts every symbol of a narrow recording, traded or not', async () => {
    const dir = tempDir();
    const data = join(dir, 'narrow.ndjson');
    const narrow = SYMBOLS.slice(0, CHART_ALL_UP_TO);
    writeFileSync(
      data,
      [
        JSON.stringify({ meta: { symbols: narrow } }),
        ...polls().map((p) =>
          JSON.stringify({ ...p, tickers: p.tickers.filter((t) => narrow.includes(t.symbol)) }),
        ),
        '',
      ].join('\n'),
    );
    const { record } = await backtest(false, { config: files().config, data });
    expect(Object.keys(record.prices)).toEqual(narrow);
  }, 60_000);

  it("hands the engine the tickers of its strategies' symbols only, as a live run's feed does", async () => {
    const seen: string[] = [];
    const watcher = defineStrategy({
      name: 'watcher',
      version: '0',
      params: z.object({}),
      symbols: () => [TRADED, 'cmt_s03usdt'],
      create: () => ({
        onTicker: (t) => {
          seen.push(t.symbol);
          return undefined;
        },
      }),
    });
    const data = polls().slice(0, 5);
    const s = new Session({
      strategies: [{ id: 'w', definition: watcher }],
      startMs: T0,
      symbols: [TRADED, 'cmt_s03usdt'],
    });
    try {
      for (const p of data) await s.feed(p);
      expect(s.engine.metrics().tickers).toBe(10);
      expect(seen).toEqual(data.flatMap(() => [TRADED, 'cmt_s03usdt']));
    } finally {
      s.close();
    }
  });
});
