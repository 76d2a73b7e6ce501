// Parquet recordings: NDJSON → Parquet → NDJSON gives back the same text byte for byte (a property
// over generated recordings: key orders, optional fields, decimal spellings, escapes, empty polls,
// whitespace, CRLF, a missing final newline, the meta line), the bundled samples round-trip, the
// reader hands out what JSON.parse makes of the lines, and the quiet path makes no ticker objects.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { tickerRows } from '../../src/core/ticker-rows.ts';
import { convertRecording } from '../../src/market/recording/convert.ts';
import { pollLineText } from '../../src/market/recording/format.ts';
import { readParquetInfo } from '../../src/market/recording/parquet-reader.ts';
import { DECOMPRESSORS } from '../../src/market/recording/parquet-columns.ts';
import { ALL_COLUMNS, PARQUET_KEYS, recordingSchema } from '../../src/market/recording/parquet-schema.ts';
import { openParquetRecordingWriter } from '../../src/market/recording/parquet-writer.ts';
import { openRecording } from '../../src/market/recording/reader.ts';
import { samplePolls, tempDir } from './helpers.ts';

const REPO = join(import.meta.dirname, '../..');

function text(path: string): string {
  const raw = readFileSync(path);
  return (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8');
}

async function roundTrip(ndjson: string, gz = false): Promise<{ back: string; parquet: string }> {
  const dir = tempDir();
  const input = join(dir, gz ? 'in.ndjson.gz' : 'in.ndjson');
  writeFileSync(input, gz ? gzipSync(ndjson) : ndjson);
  const parquet = join(dir, 'rec.parquet');
  await convertRecording(input, parquet);
  const out = join(dir, gz ? 'out.ndjson.gz' : 'out.ndjson');
  await convertRecording(parquet, out);
  return { back: text(out), parquet };
}

/** Positive decimal text in the spellings recordings hold (trailing zeros, exponents, `5.`, `.5`). */
const price = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 99_999 }), fc.stringMatching(/^[0-9]{0,6}$/))
    .map(([i, f]) => (f === '' ? String(i) : `${i}.${f}`)),
  fc.constantFrom('1e5', '2.5E-3', '007', '5.', '.5', '0.10', '63960.0', '1955912503.72735000005'),
);
const decimal = fc.oneof(price, fc.constantFrom('0', '-0.000002', '-0', '0.000000', '-12.5'));
const symbol = fc.oneof(
  fc.constantFrom('cmt_btcusdt', 'cmt_ethusdt', 'cmt_solusdt'),
  fc.string({ minLength: 1, maxLength: 6 }).filter((s) => [...s].every((c) => c.charCodeAt(0) >= 32)),
);
const ticker = fc
  .record({
    symbol,
    last: price,
    best_ask: price,
    best_bid: price,
    high_24h: decimal,
    low_24h: decimal,
    volume_24h: decimal,
    timestamp: fc.oneof(fc.nat({ max: 2_000_000_000_000 }).map(String), fc.constantFrom('0017', '1')),
    priceChangePercent: decimal,
    base_volume: decimal,
    markPrice: fc.option(price, { nil: undefined }),
    indexPrice: fc.option(price, { nil: undefined }),
  })
  .chain((tk) =>
    fc.shuffledSubarray(Object.keys(tk), { minLength: Object.keys(tk).length }).map((order) => {
      const out: Record<string, string> = {};
      for (const k of order) {
        const v = tk[k as keyof typeof tk];
        if (v !== undefined) out[k] = v;
      }
      return out;
    }),
  );

/** A poll line, mostly as the writer writes it, sometimes spelt otherwise (same JSON value). */
const pollLine = (t: number) =>
  fc
    .tuple(
      fc.array(ticker, { maxLength: 3 }),
      fc.constantFrom('plain', 'plain', 'plain', 'spaced', 'escaped', 'crlf', 't-spelt'),
    )
    .map(([tickers, style]) => {
      const line = JSON.stringify({ t, tickers });
      if (style === 'spaced')
        return JSON.stringify({ t, tickers }, null, 0).replace('"tickers":', '"tickers": ');
      if (style === 'escaped') return line.replace(/"symbol":"c/g, '"symbol":"\\u0063');
      if (style === 'crlf') return `${line}\r`;
      // The same number spelt otherwise: JSON.parse reads 1700000000000.0 as 1700000000000.
      if (style === 't-spelt') return line.replace(/^\{"t":(\d+)/, '{"t":$1.0');
      return line;
    });

const recording = fc
  .tuple(
    fc.option(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
    fc.array(fc.nat({ max: 5000 }), { maxLength: 12 }),
    fc.boolean(),
  )
  .chain(([meta, steps, finalNewline]) => {
    let t = 1_700_000_000_000;
    const ts = steps.map((s) => (t += s));
    return fc.tuple(...ts.map(pollLine)).map((lines) => {
      const all = [...(meta !== undefined ? [JSON.stringify({ meta })] : []), ...lines];
      return all.join('\n') + (finalNewline && all.length > 0 ? '\n' : '');
    });
  });

describe('Parquet recordings', () => {
  it('NDJSON → Parquet → NDJSON is byte-identical (property)', async () => {
    await fc.assert(
      fc.asyncProperty(recording, fc.boolean(), async (ndjson, gz) => {
        const { back, parquet } = await roundTrip(ndjson, gz);
        expect(back).toBe(ndjson);
        // What the reader hands out is what JSON.parse makes of the poll lines.
        const lines = ndjson.split('\n').filter((l) => l.startsWith('{"t"'));
        const rec = await openRecording(parquet);
        const polls: string[] = [];
        for await (const p of rec.polls) polls.push(JSON.stringify(p));
        expect(polls).toEqual(lines.map((l) => JSON.stringify(JSON.parse(l))));
      }),
      { numRuns: 60 },
    );
  });

  it.each(['binance-btc-eth-20240719-1s.ndjson.gz', 'ftx-btc-perp-202201-1m.ndjson.gz'])(
    'the bundled %s round-trips byte for byte',
    async (name) => {
      const original = text(join(REPO, 'data', name));
      const { back, parquet } = await roundTrip(original, true);
      expect(back === original).toBe(true);
      const info = await readParquetInfo(parquet);
      expect(info.polls).toBe(original.split('\n').filter((l) => l.startsWith('{"t"')).length);
      expect(info.meta?.['format']).toBe('capibot-recording/1');
    },
  );

  it('reads many row groups, polls whole, and the quiet path makes no ticker object', async () => {
    const dir = tempDir();
    const path = join(dir, 'small-groups.parquet');
    const polls = samplePolls(50);
    const w = openParquetRecordingWriter(path, {
      meta: { symbols: ['cmt_btcusdt', 'cmt_ethusdt'] },
      rowGroupRows: 7,
    });
    for (const p of polls) w.write(p);
    await w.close();
    const rec = await openRecording(path);
    expect(rec.meta).toEqual({ symbols: ['cmt_btcusdt', 'cmt_ethusdt'] });
    let batches = 0;
    const seen: string[] = [];
    for await (const b of rec.batches) {
      batches++;
      for (const p of b) {
        const rows = tickerRows(p);
        expect(rows.size).toBe(2);
        expect(rows.symbolAt(1)).toBe('cmt_ethusdt');
        const buf = new Uint8Array(32);
        const end = rows.copyLast(0, buf, 0);
        expect(Buffer.from(buf.subarray(0, end)).toString()).toBe(rows.lastAt(0));
        // Too little room: nothing written.
        const small = new Uint8Array(end - 1);
        expect(rows.copyLast(0, small, 0)).toBe(-1);
        expect(small.every((b) => b === 0)).toBe(true);
        expect(rows.made(0) || rows.made(1)).toBe(false);
        expect(rows.tickerAt(0)).toBe(rows.tickerAt(0));
        expect(rows.made(0)).toBe(true);
        expect(rows.made(1)).toBe(false);
        seen.push(pollLineText(p));
      }
    }
    expect(batches).toBeGreaterThan(5);
    expect(seen).toEqual(polls.map(pollLineText));
  });

  it('writes column chunks in schema order (DuckDB and pyarrow match them by position)', async () => {
    const { parquet } = await roundTrip(text(join(REPO, 'data/binance-btc-eth-20240719-1s.ndjson.gz')));
    const md = await parquetMetadataAsync(await asyncBufferFromFile(parquet));
    const names = md.schema.slice(1).map((s) => s.name);
    expect(names).toEqual([...ALL_COLUMNS]);
    for (const rg of md.row_groups)
      expect(rg.columns.map((c) => c.meta_data?.path_in_schema.join('.'))).toEqual(names);
  });

  it('writes the small columns the replay reads uncompressed, `line` only where a group has none', async () => {
    const dir = tempDir();
    const path = join(dir, 'codecs.parquet');
    const polls = samplePolls(12);
    const w = openParquetRecordingWriter(path, { rowGroupRows: 8 });
    // The ninth poll's line is spaced out: the columns cannot rebuild it, so its group keeps it.
    polls.forEach((p, i) => w.write(p, i === 8 ? JSON.stringify(p, null, 1).replace(/\n/g, '') : undefined));
    await w.close();
    const md = await parquetMetadataAsync(await asyncBufferFromFile(path));
    const codecs = md.row_groups.map((rg) =>
      Object.fromEntries(rg.columns.map((c) => [c.meta_data?.path_in_schema.join('.'), c.meta_data?.codec])),
    );
    // Two tickers a poll, eight rows a group: polls 0–3, 4–7 and 8–11.
    expect(codecs.length).toBe(3);
    for (const c of codecs) {
      for (const k of ['poll', 't', 'symbol', 'layout']) expect(c[k]).toBe('UNCOMPRESSED');
      for (const k of ['last', 'best_bid', 'volume_24h']) expect(c[k]).toBe('GZIP');
    }
    expect(codecs.map((c) => c['line'])).toEqual(['UNCOMPRESSED', 'UNCOMPRESSED', 'GZIP']);
    const back = join(dir, 'back.ndjson');
    await convertRecording(path, back);
    expect(readFileSync(back, 'utf8').split('\n')[8]).toMatch(/^\{ "t": /);
  });

  it('reads a file another tool rewrote: row groups that split polls, no row-group hashes', async () => {
    const original = text(join(REPO, 'data/binance-btc-eth-20240719-1s.ndjson.gz'));
    const { parquet } = await roundTrip(original);
    const file = await asyncBufferFromFile(parquet);
    const md = await parquetMetadataAsync(file);
    const rows = await parquetReadObjects({ file, compressors: DECOMPRESSORS });
    const rewritten = join(tempDir(), 'rewritten.parquet');
    writeFileSync(
      rewritten,
      new Uint8Array(
        parquetWriteBuffer({
          columnData: ALL_COLUMNS.map((name) => ({
            name,
            data:
              name === 't'
                ? BigInt64Array.from(rows.map((r) => r[name] as bigint))
                : rows.map((r) => r[name] as unknown),
          })),
          schema: recordingSchema(),
          // Odd-sized row groups: polls of two tickers are split between groups.
          rowGroupSize: 101,
          kvMetadata: (md.key_value_metadata ?? []).filter((kv) => kv.key !== PARQUET_KEYS.rowGroupSha256),
        }),
      ),
    );
    const back = join(tempDir(), 'back.ndjson');
    await convertRecording(rewritten, back);
    expect(readFileSync(back, 'utf8') === original).toBe(true);
    // Its `last` values are read as text (checked), ours as bytes: the rows read the same.
    const lastsOf = async (path: string): Promise<string[]> => {
      const out: string[] = [];
      const buf = new Uint8Array(64);
      for await (const b of (await openRecording(path)).batches)
        for (const p of b) {
          const r = tickerRows(p);
          for (let i = 0; i < r.size; i++)
            out.push(`${r.lastAt(i)} ${Buffer.from(buf.subarray(0, r.copyLast(i, buf, 0))).toString()}`);
        }
      return out;
    };
    const lasts = await lastsOf(parquet);
    expect(lasts.length).toBe(rows.length);
    expect(lasts.every((l) => l.split(' ')[0] === l.split(' ')[1])).toBe(true);
    expect(await lastsOf(rewritten)).toEqual(lasts);
  });

  it('an empty recording and one of a meta line only convert and come back', async () => {
    expect((await roundTrip('')).back).toBe('');
    const metaOnly = '{"meta":{"a":1}}\n';
    expect((await roundTrip(metaOnly)).back).toBe(metaOnly);
    const emptyPoll = '{"t":5,"tickers":[]}\n{"t":6,"tickers":[]}';
    expect((await roundTrip(emptyPoll)).back).toBe(emptyPoll);
  });
});
