// `capibot import --from quotes|bars|freqtrade` on good and hostile tables: NautilusTrader-style quote
// ticks (raw integer prices ×10^9, ns times, price_precision in the metadata), Freqtrade candles
// (Parquet with timestamps and doubles; JSON), CSV with --map. Hostile: a truncated file, another
// schema, a missing column, time going backwards, NaN and negative prices. Each refusal is one
// line naming the file, the row and the column, exit code 2, and no file left behind.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { collect } from '../market/helpers.ts';

const DIR = mkdtempSync(join(tmpdir(), 'capibot-hostile-tables-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());
let n = 0;
const file = (name: string, content: string | Uint8Array): string => {
  const p = join(DIR, `${++n}-${name}`);
  writeFileSync(p, content);
  return p;
};

async function capibot(...args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  // The CLI writes its lines with console (src/cli/output.ts).
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => {
    err += `${a.map(String).join(' ')}\n`;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  const code = await main(['node', 'capibot', ...args]);
  vi.restoreAllMocks();
  return { code, err };
}

const T0 = 1_700_000_000_000n;

interface QuoteCols {
  bid?: (bigint | number | string)[];
  ask?: (bigint | number | string)[];
  ts?: bigint[];
}

/** NautilusTrader-style quote ticks. */
function quotes(rows = 5, change: (c: Required<QuoteCols>) => QuoteCols = (c) => c): Uint8Array {
  const base: Required<QuoteCols> = {
    bid: Array.from({ length: rows }, (_, i) => BigInt(100_000 + i) * 10_000_000n),
    ask: Array.from({ length: rows }, (_, i) => BigInt(100_010 + i) * 10_000_000n),
    ts: Array.from({ length: rows }, (_, i) => (T0 + BigInt(i) * 1000n) * 1_000_000n),
  };
  const c = change(base);
  const col = (name: string, data: unknown[] | undefined): { name: string; data: unknown[] }[] =>
    data === undefined ? [] : [{ name, data }];
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [...col('bid_price', c.bid), ...col('ask_price', c.ask), ...col('ts_event', c.ts)],
      kvMetadata: [
        { key: 'instrument_id', value: 'BTCUSDT-PERP.BINANCE' },
        { key: 'price_precision', value: '2' },
      ],
    }),
  );
}

/** Freqtrade-style candles, two days and a bit of minutes. */
function candles(change: (close: number[]) => void = () => undefined): Uint8Array {
  const m = 2 * 1440 + 5;
  const close = Array.from({ length: m }, (_, i) => 30_000 + (i % 100));
  change(close);
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'date', data: close.map((_, i) => new Date(Number(T0) + i * 60_000)), type: 'TIMESTAMP' },
        { name: 'open', data: close.map((c) => c), type: 'DOUBLE' },
        { name: 'high', data: close.map((c) => c + 5), type: 'DOUBLE' },
        { name: 'low', data: close.map((c) => c - 5), type: 'DOUBLE' },
        { name: 'close', data: close, type: 'DOUBLE' },
        { name: 'volume', data: close.map(() => 1.5), type: 'DOUBLE' },
      ],
    }),
  );
}

function leftovers(out: string): string[] {
  const name = out.split('/').pop() as string;
  return readdirSync(DIR).filter((f) => f.startsWith(name));
}

describe('import from tables', () => {
  it('NautilusTrader-style quote ticks → a recording (raw integers ×10^-9, ns times)', async () => {
    const input = file('quotes.parquet', quotes());
    for (const out of [join(DIR, 'q.ndjson'), join(DIR, 'q.parquet')]) {
      const r = await capibot('import', '--from', 'quotes', '--symbol', 'cmt_btcusdt', input, out);
      expect(r.code).toBe(0);
      expect(r.err).toMatch(/^imported 5 snapshots/);
      const polls = await collect(out);
      expect(polls).toHaveLength(5);
      expect(polls[1]?.t).toBe(Number(T0) + 1000);
      expect(polls[1]?.tickers[0]).toMatchObject({
        best_bid: '1000.01',
        best_ask: '1000.11',
        last: '1000.06',
      });
    }
  });

  it('files written by pandas/pyarrow: a Freqtrade candle file and a NautilusTrader quote tick file', async () => {
    const fixtures = join(import.meta.dirname, '../fixtures/tables');
    const ft = join(DIR, 'ft.parquet');
    expect(
      (
        await capibot(
          'import',
          '--from',
          'freqtrade',
          '--symbol',
          'cmt_btcusdt',
          join(fixtures, 'freqtrade-BTC_USDT_USDT-1m-futures.parquet'),
          ft,
        )
      ).code,
    ).toBe(0);
    const bars = await collect(ft);
    // 2 days and 30 minutes of minute bars: a snapshot per bar once a full day exists.
    expect(bars).toHaveLength(1471);
    expect(bars[0]?.t).toBe(Date.UTC(2024, 0, 2));
    const nq = join(DIR, 'nq.parquet');
    expect(
      (
        await capibot(
          'import',
          '--from',
          'quotes',
          '--symbol',
          'cmt_btcusdt',
          join(fixtures, 'nautilus-quote_tick-BTCUSDT-PERP.BINANCE.parquet'),
          nq,
        )
      ).code,
    ).toBe(0);
    const quotes = await collect(nq);
    expect(quotes).toHaveLength(600);
    expect(quotes[1]?.tickers[0]).toMatchObject({
      best_bid: '42000.01',
      best_ask: '42000.11',
      timestamp: '1704067200500',
    });
  });

  it('Freqtrade candles, Parquet and JSON, give the same recording; CSV with --map too', async () => {
    const pq = file('candles.parquet', candles());
    const closes = Array.from({ length: 2 * 1440 + 5 }, (_, i) => 30_000 + (i % 100));
    const json = file(
      'candles.json',
      JSON.stringify(closes.map((c, i) => [Number(T0) + i * 60_000, c, c + 5, c - 5, c, 1.5])),
    );
    const csv = file(
      'bars.csv',
      `when,o,h,l,c,v\n${closes.map((c, i) => `${Number(T0) + i * 60_000},${c},${c + 5},${c - 5},${c},1.5`).join('\n')}\n`,
    );
    const outs = [join(DIR, 'fa.ndjson'), join(DIR, 'fb.ndjson'), join(DIR, 'fc.ndjson')];
    expect(
      (await capibot('import', '--from', 'freqtrade', '--symbol', 'cmt_btcusdt', pq, outs[0]!)).code,
    ).toBe(0);
    expect(
      (await capibot('import', '--from', 'freqtrade', '--symbol', 'cmt_btcusdt', json, outs[1]!)).code,
    ).toBe(0);
    const map = 'time=when,open=o,high=h,low=l,close=c,volume=v';
    expect(
      (await capibot('import', '--from', 'bars', '--symbol', 'cmt_btcusdt', '--map', map, csv, outs[2]!))
        .code,
    ).toBe(0);
    const body = (p: string): string => readFileSync(p, 'utf8').split('\n').slice(1).join('\n');
    expect(body(outs[0]!)).toBe(body(outs[1]!));
    expect(body(outs[0]!)).toBe(body(outs[2]!));
    expect(body(outs[0]!).split('\n').length).toBeGreaterThan(5);
  });

  it.each([
    [
      'a truncated Parquet file',
      () => file('t.parquet', quotes().subarray(0, 60)),
      'quotes',
      /not a readable Parquet file/,
    ],
    [
      'another schema (no time column)',
      () =>
        file(
          's.parquet',
          new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'x', data: [1, 2], type: 'INT32' }] })),
        ),
      'quotes',
      /missing column for time/,
    ],
    [
      'a missing ask column',
      () =>
        file(
          'm.parquet',
          quotes(5, (c) => ({ bid: c.bid, ts: c.ts })),
        ),
      'quotes',
      /missing column for ask/,
    ],
    [
      'time going backwards',
      () =>
        file(
          'b.parquet',
          quotes(5, (c) => ({ ...c, ts: [c.ts[0]!, c.ts[2]!, c.ts[1]!, c.ts[3]!, c.ts[4]!] })),
        ),
      'quotes',
      /row 3, column ts_event: time goes backwards/,
    ],
    [
      'a NaN price',
      () =>
        file(
          'nan.parquet',
          quotes(5, (c) => ({ ...c, bid: [1, 2, Number.NaN, 4, 5] })),
        ),
      'quotes',
      /row 3, column bid_price: not a decimal: NaN/,
    ],
    [
      'a negative price',
      () =>
        file(
          'neg.parquet',
          quotes(5, (c) => ({ ...c, ask: c.ask.map((v, i) => (i === 1 ? -(v as bigint) : v)) })),
        ),
      'quotes',
      /row 2, column ask_price: a price must be above 0/,
    ],
    [
      'a negative price in candles',
      () =>
        file(
          'negc.parquet',
          candles((c) => (c[1500] = -3)),
        ),
      'freqtrade',
      /row 1501, column open: a price must be above 0/,
    ],
    [
      'candles going backwards',
      () =>
        file(
          'back.json',
          JSON.stringify([
            [Number(T0) + 60_000, 1, 2, 0.5, 1, 1],
            [Number(T0), 1, 2, 0.5, 1, 1],
          ]),
        ),
      'freqtrade',
      /row 2, column date: bars must be in increasing time/,
    ],
    [
      'a truncated CSV line',
      () => file('torn.csv', 'ts_event,bid,ask\n1700000000000,1,2\n1700000001000,1'),
      'quotes',
      /row 2: 2 fields/,
    ],
    ['a Feather file', () => file('c.feather', 'ARROW1'), 'freqtrade', /Feather is not read/],
  ])('refuses %s: one error, nothing written', async (_, make, from, why) => {
    const input = make();
    const out = join(DIR, `out-${n}.parquet`);
    const r = await capibot('import', '--from', from, '--symbol', 'cmt_btcusdt', input, out);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(why);
    expect(r.err).toContain(input);
    expect(existsSync(out)).toBe(false);
    expect(leftovers(out)).toEqual([]);
  });
});
