import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BadInputError } from '../../src/core/errors.ts';
import type { RecordedPoll, WireTicker } from '../../src/core/market.ts';
import {
  barsCsvMeta,
  importBarsCsv,
  parseBarTime,
  type BarsCsvImportOptions,
} from '../../src/market/importers/bars-csv.ts';
import {
  binanceWsMeta,
  importBinanceWs,
  newBinanceWsStats,
  type BinanceWsImportOptions,
} from '../../src/market/importers/binance-ws.ts';
import { mergePolls } from '../../src/market/importers/merge.ts';
import { isWireTickerShape } from '../../src/market/recording/format.ts';
import { tempDir } from './helpers.ts';

const fixtures = fileURLToPath(new URL('../fixtures/market/', import.meta.url));
const BINANCE_SLICE = join(fixtures, 'binance-usdm-btcusdt-20240719-slice.txt');
const FTX_SLICE = join(fixtures, 'ftx-btc-perp-1m-head300.csv');

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function only(p: RecordedPoll): WireTicker {
  expect(p.tickers).toHaveLength(1);
  return p.tickers[0]!;
}

function expectError(p: Promise<unknown>, re: RegExp): Promise<void> {
  return p.then(
    () => {
      throw new Error('expected a BadInputError');
    },
    (e: unknown) => {
      expect(e).toBeInstanceOf(BadInputError);
      expect((e as Error).message).toMatch(re);
    },
  );
}

/** A Binance dump line: `<recv_ns> <json>`. */
let recv = 1_000_000_000;
const book = (E: number, b: string, a: string): string =>
  `${recv++} ${JSON.stringify({ stream: 'btcusdt@bookTicker', data: { e: 'bookTicker', u: recv, s: 'BTCUSDT', b, B: '1', a, A: '1', T: E, E } })}`;
const trade = (E: number, p: string, q: string, s = 'BTCUSDT'): string =>
  `${recv++} ${JSON.stringify({ stream: 'btcusdt@trade', data: { e: 'trade', E, T: E, s, t: recv, p, q, X: 'MARKET', m: false } })}`;
const depth = (E: number): string =>
  `${recv++} ${JSON.stringify({ stream: 'btcusdt@depth@0ms', data: { e: 'depthUpdate', E, s: 'BTCUSDT', b: [], a: [] } })}`;

function dump(lines: readonly string[]): string {
  const path = join(tempDir(), 'dump.txt');
  writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
  return path;
}

async function binance(path: string, opts: Partial<BinanceWsImportOptions> = {}): Promise<RecordedPoll[]> {
  return all(importBinanceWs(path, { symbol: 'cmt_btcusdt', ...opts }));
}

describe('binance-ws importer: golden values on a slice of the real BTCUSDT dump', () => {
  it('every exchange millisecond with an update (events applied in E order)', async () => {
    const stats = newBinanceWsStats();
    const polls = await all(importBinanceWs(BINANCE_SLICE, { symbol: 'cmt_btcusdt' }, stats));
    expect(stats).toMatchObject({
      lines: 375,
      bookTickers: 282,
      trades: 90,
      skipped: 3,
      lateBeyondWindow: 0,
      snapshots: 157,
    });
    expect(polls).toHaveLength(157);
    // Lines 4-6 of the slice: book b 63959.90 / a 63960.00 at E 1721347202813 and the first trade,
    // p 63960.00 q 0.310 at the same E. Session volume = 63960 × 0.310 = 19827.6.
    expect(polls[0]).toEqual({
      t: 1721347202813,
      tickers: [
        {
          symbol: 'cmt_btcusdt',
          last: '63960',
          best_ask: '63960',
          best_bid: '63959.9',
          high_24h: '63960',
          low_24h: '63960',
          volume_24h: '19827.6',
          timestamp: '1721347202813',
          priceChangePercent: '0',
          base_volume: '0.31',
        },
      ],
    });
    // Line 10: the second trade, p 63959.90 q 0.003 at E 1721347202824:
    // base 0.31 + 0.003 = 0.313; quote 19827.6 + 191.8797 = 20019.4797; change 63959.9/63960 − 1 ≈ −0.0000016.
    const at2824 = polls.find((p) => p.t === 1721347202824)!;
    expect(only(at2824)).toMatchObject({
      last: '63959.9',
      high_24h: '63960',
      low_24h: '63959.9',
      volume_24h: '20019.4797',
      base_volume: '0.313',
      priceChangePercent: '-0.000002',
    });
    // t strictly increasing, each ticker's timestamp = t, every ticker a valid wire ticker.
    for (let i = 1; i < polls.length; i++) expect(polls[i]!.t).toBeGreaterThan(polls[i - 1]!.t);
    for (const p of polls) {
      expect(only(p).timestamp).toBe(String(p.t));
      expect(isWireTickerShape(only(p))).toBe(true);
    }
    expect(polls.at(-1)!.t).toBe(1721347204062);
  });

  it('on a 1-second grid: the last state at or before each boundary', async () => {
    const polls = await binance(BINANCE_SLICE, { gridMs: 1000 });
    // The slice covers E 1721347202813 … 1721347204062: boundaries …03000 and …04000.
    expect(polls.map((p) => p.t)).toEqual([1721347203000, 1721347204000]);
    expect(only(polls[0]!)).toEqual({
      symbol: 'cmt_btcusdt',
      last: '63959.9',
      best_ask: '63960',
      best_bid: '63959.9',
      high_24h: '63960',
      low_24h: '63959.9',
      volume_24h: '45347.6325',
      timestamp: '1721347202994',
      priceChangePercent: '-0.000002',
      base_volume: '0.709',
    });
    expect(only(polls[1]!)).toMatchObject({
      volume_24h: '616637.4598',
      base_volume: '9.641',
      timestamp: '1721347203957',
    });
  });

  it('labels the 24 h fields session-relative in the meta line, with the input fingerprint', async () => {
    const meta = await binanceWsMeta(BINANCE_SLICE, { symbol: 'cmt_btcusdt', gridMs: 1000 });
    const sha = createHash('sha256').update(readFileSync(BINANCE_SLICE)).digest('hex');
    expect(meta).toMatchObject({
      fields24h: 'session-relative',
      source: { kind: 'binance-usdm-ws', file: 'binance-usdm-btcusdt-20240719-slice.txt', sha256: sha },
      sampling: { kind: 'grid', gridMs: 1000 },
      absent: ['markPrice', 'indexPrice'],
    });
    expect(String((meta['fields'] as Record<string, string>)['high_24h'])).toMatch(/SESSION-RELATIVE/);
  });
});

describe('binance-ws importer: rules', () => {
  it('emits nothing before both a book ticker and a trade; orders by E; carries state over gaps', async () => {
    const path = dump([
      book(1000, '10.00', '10.20'),
      depth(1100),
      book(1500, '10.10', '10.30'),
      trade(2600, '10.20', '1.000'),
      book(2500, '9.90', '10.00'), // arrives after the trade but happened before it
      `${recv++} {"result":null,"id":1}`,
      trade(6200, '10.40', '2'),
    ]);
    const grid = await binance(path, { gridMs: 1000 });
    // Ready at E 2600 → first boundary 3000; the state of 2600 carried over 4000, 5000, 6000;
    // the trade at 6200 falls after the last boundary ≤ the last E.
    expect(grid.map((p) => p.t)).toEqual([3000, 4000, 5000, 6000]);
    for (const p of grid) {
      expect(only(p)).toMatchObject({
        best_bid: '9.9',
        best_ask: '10',
        last: '10.2',
        timestamp: '2600',
        volume_24h: '10.2',
        base_volume: '1',
      });
    }
    const events = await binance(path);
    expect(events.map((p) => p.t)).toEqual([2600, 6200]);
    // 10.2 + 10.4 × 2 = 31; 10.4 / 10.2 − 1 = 0.0196078… → 0.019608.
    expect(only(events[1]!)).toMatchObject({
      last: '10.4',
      high_24h: '10.4',
      low_24h: '10.2',
      volume_24h: '31',
      base_volume: '3',
      priceChangePercent: '0.019608',
    });
  });

  it('applies a message later than the reorder window at the time already reached, and counts it', async () => {
    const path = dump([
      book(1000, '1', '2'),
      trade(1000, '1.5', '1'),
      book(5000, '1.1', '2.1'),
      trade(6000, '1.7', '1'),
      trade(1200, '1.6', '1'),
    ]);
    const stats = newBinanceWsStats();
    const polls = await all(importBinanceWs(path, { symbol: 's', reorderWindowMs: 100 }, stats));
    // The trade of E 1200 arrives when E 5000 is already applied: it joins the 5000 snapshot.
    expect(stats.lateBeyondWindow).toBe(1);
    expect(polls.map((p) => p.t)).toEqual([1000, 5000, 6000]);
    expect(only(polls[1]!)).toMatchObject({ last: '1.6', best_bid: '1.1', timestamp: '5000' });
  });

  it('refuses a second symbol unless one is chosen', async () => {
    const path = dump([book(1000, '1', '2'), trade(1000, '1.5', '1'), trade(1001, '7', '1', 'ETHUSDT')]);
    await expectError(binance(path), /dump\.txt:3: a second symbol ETHUSDT after BTCUSDT/);
    expect((await binance(path, { sourceSymbol: 'BTCUSDT' })).map((p) => only(p).last)).toEqual(['1.5']);
  });

  it('names the line of bad input', async () => {
    await expectError(
      binance(dump([book(1000, '1', '2'), 'no-timestamp'])),
      /dump\.txt:2: expected `<recv_ts_ns> <json>`/,
    );
    await expectError(binance(dump([book(1000, '1', '2'), '123 {nope'])), /dump\.txt:2: bad JSON/);
    await expectError(binance(dump([book(1000, '1', 'x')])), /dump\.txt:1: field a is not a decimal string/);
    // An empty book side ("0.00") and a zero trade price are no prices.
    await expectError(
      binance(dump([book(1000, '0.00', '2')])),
      /dump\.txt:1: field b is 0\.00: a price must be above 0/,
    );
    await expectError(
      binance(dump([`5 ${JSON.stringify({ data: { e: 'trade', p: '1', q: '1' } })}`])),
      /dump\.txt:1: no exchange event time E/,
    );
  });
});

describe('bars-csv importer: golden values on a slice of the real FTX BTC-PERP file', () => {
  // A 1-hour window on 300 bars (a 24 h window needs 1440 bars; see the synthetic test below).
  const opts: BarsCsvImportOptions = { symbol: 'cmt_btcusdt', windowMs: 3_600_000 };

  it('one snapshot per bar once the window is full, rolling statistics checked by hand', async () => {
    const polls = await all(importBarsCsv(FTX_SLICE, opts));
    // Bars 0..299 labelled 2021-12-31 23:01 … 2022-01-01 04:00; the first full hour ends at bar 59.
    expect(polls).toHaveLength(300 - 59);
    // Bar 59 (2022-01-01 00:00, close 46224.0); window = bars 0..59; open of bar 0 = 46319.0.
    // high = max high = 46514, low = min low = 46150, volume Σ = 73621940.1609,
    // base ≈ Σ volume/close = 1587.6853, change = 46224/46319 − 1 = −0.002051.
    expect(polls[0]).toEqual({
      t: Date.UTC(2022, 0, 1, 0, 1), // label + 1 minute: the bar's close
      tickers: [
        {
          symbol: 'cmt_btcusdt',
          last: '46224',
          best_ask: '46224.5',
          best_bid: '46223.5',
          high_24h: '46514',
          low_24h: '46150',
          volume_24h: '73621940.1609',
          timestamp: String(Date.UTC(2022, 0, 1, 0, 1)),
          priceChangePercent: '-0.002051',
          base_volume: '1587.6853',
        },
      ],
    });
    // Bar 60: bar 0 left the window; the oldest open is now bar 1's (46377.0).
    expect(only(polls[1]!)).toMatchObject({
      last: '46247',
      volume_24h: '83759318.9962',
      base_volume: '1807.0255',
      priceChangePercent: '-0.002803',
    });
    // Bar 299 (04:00): the source volume 0.37725000005-style digits are kept exactly.
    expect(polls.at(-1)!.t).toBe(Date.UTC(2022, 0, 1, 4, 1));
    expect(only(polls.at(-1)!)).toMatchObject({
      last: '46809',
      high_24h: '46900',
      low_24h: '46778',
      volume_24h: '25200443.37725000005',
      base_volume: '537.9988',
      priceChangePercent: '-0.000192',
    });
  });

  it('flags the synthetic bid/ask and the approximated base volume in the meta line', async () => {
    const meta = await barsCsvMeta(FTX_SLICE, { symbol: 'cmt_btcusdt' });
    expect(meta).toMatchObject({
      fields24h: 'rolling-24h-of-bars',
      synthetic: ['best_bid', 'best_ask'],
      approximated: ['base_volume'],
      tick: '1',
      source: { kind: 'ohlcv-csv', file: 'ftx-btc-perp-1m-head300.csv' },
    });
  });
});

describe('bars-csv importer: rules', () => {
  /** 1445 synthetic minute bars: open 1000+i, close 1001+i, high close+2, low open−3, volume = close. */
  function syntheticCsv(n: number, header = true): string {
    const rows: string[] = header ? ['timestamp,open,high,low,close,volume'] : [];
    const t0 = Date.UTC(2024, 0, 1);
    for (let i = 0; i < n; i++) {
      const ts = new Date(t0 + i * 60_000).toISOString().replace('T', ' ').replace('Z', '');
      rows.push(`${ts},${1000 + i},${1003 + i},${997 + i},${1001 + i},${1001 + i}`);
    }
    return rows.join('\n') + '\n';
  }

  it('computes the rolling 24 h window over the preceding 1440 bars', async () => {
    const path = join(tempDir(), 'bars.csv');
    writeFileSync(path, syntheticCsv(1445));
    const polls = await all(importBarsCsv(path, { symbol: 's', tick: '0.1' }));
    expect(polls).toHaveLength(6); // bars 1439..1444
    const t0 = Date.UTC(2024, 0, 1);
    // Bar 1439: window 0..1439; high = 1003+1439, low = 997 (bar 0); volume = Σ(1001+j) = 1440·1001 + 1439·1440/2;
    // base = Σ volume/close = 1440 exactly; change = close 2440 / open of bar 0 (1000) − 1 = 1.44.
    expect(polls[0]!.t).toBe(t0 + 1440 * 60_000);
    expect(only(polls[0]!)).toMatchObject({
      last: '2440',
      best_bid: '2439.95',
      best_ask: '2440.05',
      high_24h: '2442',
      low_24h: '997',
      volume_24h: String(1440 * 1001 + (1439 * 1440) / 2),
      base_volume: '1440',
      priceChangePercent: '1.44',
    });
    // Bar 1444: window 5..1444; low = 997+5; change = 2445/1005 − 1 = 1.432835…
    expect(only(polls[5]!)).toMatchObject({
      low_24h: '1002',
      base_volume: '1440',
      priceChangePercent: '1.432836',
    });
  });

  it('refuses a close at or under half the tick (its synthetic bid would be no price), naming the line and --tick', async () => {
    const path = join(tempDir(), 'doge.csv');
    writeFileSync(
      path,
      ['1700000000000,0.1,0.2,0.05,0.1,10', '1700000060000,0.1,0.2,0.05,0.12,10'].join('\n'),
    );
    await expect(all(importBarsCsv(path, { symbol: 's', windowMs: 60_000 }))).rejects.toThrow(
      /doge\.csv:1: close 0\.1 is not above half the tick \(0\.5\).*--tick/,
    );
    // With the market's tick, the same file imports.
    const polls = await all(importBarsCsv(path, { symbol: 's', windowMs: 60_000, tick: '0.00001' }));
    expect(only(polls[0]!).best_bid).toBe('0.099995');
  });

  it('stamps snapshots at the label when labels mark the bar close; reads epoch labels without a header', async () => {
    const path = join(tempDir(), 'epoch.csv');
    writeFileSync(
      path,
      ['1700000000000,1,2,0.5,1.5,10', '1700000060000,1.5,2,1,2,10', '1700000120000,2,3,2,3,10'].join('\n'),
    );
    const polls = await all(importBarsCsv(path, { symbol: 's', windowMs: 120_000, barLabel: 'close' }));
    expect(polls.map((p) => p.t)).toEqual([1700000060000, 1700000120000]);
    expect(only(polls[1]!)).toMatchObject({
      high_24h: '3',
      low_24h: '1',
      volume_24h: '20',
      priceChangePercent: '1',
    });
  });

  it('names the line of bad input', async () => {
    const dir = tempDir();
    const bad = (name: string, text: string): string => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    };
    const head = 'timestamp,open,high,low,close,volume\n';
    await expectError(
      all(
        importBarsCsv(
          bad('a.csv', `${head}2024-01-01 00:00:00,1,2,0.5,1,5\n2024-01-01 00:01:00,1,2,0.5,x,5\n`),
          {
            symbol: 's',
          },
        ),
      ),
      /a\.csv:3: close is not a decimal/,
    );
    await expectError(
      all(
        importBarsCsv(
          bad('b.csv', `${head}2024-01-01 00:01:00,1,2,0.5,1,5\n2024-01-01 00:01:00,1,2,0.5,1,5\n`),
          {
            symbol: 's',
          },
        ),
      ),
      /b\.csv:3: bars must be in increasing time/,
    );
    await expectError(
      all(importBarsCsv(bad('c.csv', `${head}2024-01-01 00:00:00,1,2,1.5,1,5\n`), { symbol: 's' })),
      /c\.csv:2: inconsistent bar/,
    );
    await expectError(
      all(importBarsCsv(bad('d.csv', `${head}2024-02-30 00:00:00,1,2,0.5,1,5\n`), { symbol: 's' })),
      /d\.csv:2: timestamp/,
    );
    await expectError(
      all(importBarsCsv(bad('z.csv', `${head}2024-01-01 00:00:00,0,100,0,100,3\n`), { symbol: 's' })),
      /z\.csv:2: open, high, low and close must be above 0/,
    );
    await expectError(
      all(importBarsCsv(bad('e.csv', 'time,o,h,l,c,v\n'), { symbol: 's' })),
      /e\.csv:1: header has no timestamp column/,
    );
    // A headerless file with ISO times (T, Z) is data, not a header.
    const iso = await all(
      importBarsCsv(
        bad('iso.csv', '2024-01-01T00:00:00Z,1,2,0.5,1.5,10\n2024-01-01T00:01:00Z,1.5,2,1,2,10\n'),
        {
          symbol: 's',
          windowMs: 60_000,
        },
      ),
    );
    expect(iso.map((p) => p.t)).toEqual([Date.UTC(2024, 0, 1, 0, 1), Date.UTC(2024, 0, 1, 0, 2)]);
    // A headerless file whose first time is in an unknown format is a bad time, not a bad header.
    await expectError(
      all(importBarsCsv(bad('f.csv', '2024/01/01 00:00:00,1,2,0.5,1,5\n'), { symbol: 's' })),
      /f\.csv:1: timestamp is not a date-time or epoch: "2024\/01\/01 00:00:00"/,
    );
  });

  it('parses bar times as UTC', () => {
    expect(parseBarTime('2021-12-31 23:01:00.000000')).toBe(Date.UTC(2021, 11, 31, 23, 1));
    expect(parseBarTime('2021-12-31T23:01:05.250Z')).toBe(Date.UTC(2021, 11, 31, 23, 1, 5, 250));
    expect(parseBarTime('2021-12-31 23:01')).toBe(Date.UTC(2021, 11, 31, 23, 1));
    expect(parseBarTime('1700000000')).toBe(1_700_000_000_000);
    // Epoch milliseconds, microseconds (Binance kline files since 2025) and nanoseconds.
    expect(parseBarTime('1704067200000')).toBe(Date.UTC(2024, 0, 1));
    expect(parseBarTime('1704067200000000')).toBe(Date.UTC(2024, 0, 1));
    expect(parseBarTime('1704067260123456')).toBe(Date.UTC(2024, 0, 1, 0, 1, 0, 123));
    expect(parseBarTime('1704067200000000000')).toBe(Date.UTC(2024, 0, 1));
    expect(parseBarTime('17040672000000000000')).toBeUndefined();
    expect(parseBarTime('2021-13-01 00:00:00')).toBeUndefined();
    expect(parseBarTime('yesterday')).toBeUndefined();
  });
});

describe('merging per-symbol imports', () => {
  async function* polls(symbol: string, ts: readonly number[]): AsyncGenerator<RecordedPoll> {
    for (const t of ts)
      yield { t, tickers: [{ ...(await Promise.resolve({})), symbol } as unknown as WireTicker] };
  }
  const symbols = (p: RecordedPoll): string[] => p.tickers.map((t) => t.symbol);

  it('joins polls of equal t into one, in source order; a union by default, common times on request', async () => {
    const union = await all(mergePolls([polls('a', [1, 2, 3]), polls('b', [2, 3, 4])]));
    expect(union.map((p) => [p.t, symbols(p)])).toEqual([
      [1, ['a']],
      [2, ['a', 'b']],
      [3, ['a', 'b']],
      [4, ['b']],
    ]);
    const common = await all(
      mergePolls([polls('a', [1, 2, 3]), polls('b', [2, 3, 4])], { onlyCommonTimes: true }),
    );
    expect(common.map((p) => [p.t, symbols(p)])).toEqual([
      [2, ['a', 'b']],
      [3, ['a', 'b']],
    ]);
  });
});
