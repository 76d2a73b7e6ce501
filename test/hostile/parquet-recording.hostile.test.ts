// The Parquet recording reader and `convert` on hostile input: a truncated file, bytes that are not
// Parquet, another schema, missing columns, time going backwards, NaN and negative prices, a flipped
// byte. Each is one BadInputError naming the file (and the row and column for a bad value), and
// a convert that fails leaves no output behind.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ByteWriter, ParquetWriter, parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { BadInputError } from '../../src/core/errors.ts';
import { convertRecording } from '../../src/market/recording/convert.ts';
import { PARQUET_FORMAT, PARQUET_KEYS, recordingSchema } from '../../src/market/recording/parquet-schema.ts';
import { openParquetRecordingWriter } from '../../src/market/recording/parquet-writer.ts';
import { openRecording } from '../../src/market/recording/reader.ts';
import { samplePolls } from '../market/helpers.ts';

const DIR = mkdtempSync(join(tmpdir(), 'capibot-hostile-parquet-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));
let n = 0;
const path = (ext: string): string => join(DIR, `f${++n}${ext}`);

async function readAll(p: string): Promise<number> {
  const rec = await openRecording(p);
  let polls = 0;
  for await (const b of rec.batches) for (const poll of b) polls += poll.tickers.length >= 0 ? 1 : 0;
  return polls;
}

async function refusal(p: Promise<unknown>): Promise<BadInputError> {
  const e: unknown = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(BadInputError);
  return e as BadInputError;
}

/** A good recording written by capibot. */
async function good(): Promise<string> {
  const p = path('.parquet');
  const w = openParquetRecordingWriter(p, { meta: { symbols: ['cmt_btcusdt'] } });
  for (const poll of samplePolls(20)) w.write(poll);
  await w.close();
  return p;
}

type Rows = Record<string, unknown[]>;

/** Rows of two polls of one ticker each, as the writer lays them out; `change` edits them. */
function rows(change: (r: Rows) => void = () => undefined): Rows {
  const layout =
    'symbol,last,best_ask,best_bid,high_24h,low_24h,volume_24h,timestamp,priceChangePercent,base_volume';
  const r: Rows = {
    poll: [0, 1],
    t: [1000n, 2000n],
    symbol: ['cmt_btcusdt', 'cmt_btcusdt'],
    last: ['100', '101'],
    best_ask: ['100.5', '101.5'],
    best_bid: ['99.5', '100.5'],
    high_24h: ['102', '102'],
    low_24h: ['98', '98'],
    volume_24h: ['10', '11'],
    timestamp: [999n, 1999n],
    priceChangePercent: ['0.01', '0.02'],
    base_volume: ['1', '2'],
    markPrice: [null, null],
    indexPrice: [null, null],
    layout: [layout, layout],
    line: [null, null],
  };
  change(r);
  return r;
}

/** A file in the recording schema, written around the writer's checks (no row-group hashes). */
function crafted(r: Rows): string {
  const p = path('.parquet');
  const bytes = new ByteWriter();
  const w = new ParquetWriter({
    writer: bytes,
    schema: recordingSchema(),
    kvMetadata: [{ key: PARQUET_KEYS.format, value: PARQUET_FORMAT }],
  });
  void w.write({
    columnData: Object.entries(r).map(([name, data]) => ({
      name,
      data: name === 't' ? BigInt64Array.from(data as bigint[]) : data,
    })),
  });
  void w.finish();
  writeFileSync(p, new Uint8Array(bytes.getBuffer()));
  return p;
}

describe('Parquet recording reader on hostile input', () => {
  it('reads a crafted file that is valid (the helper writes what the reader reads)', async () => {
    expect(await readAll(crafted(rows()))).toBe(2);
  });

  it('a truncated file', async () => {
    const src = readFileSync(await good());
    for (const cut of [0, 3, 11, Math.floor(src.length / 2), src.length - 9, src.length - 1]) {
      const p = path('.parquet');
      writeFileSync(p, src.subarray(0, cut));
      const e = await refusal(readAll(p));
      expect(e.message).toContain(p);
    }
  });

  it('bytes that are not Parquet, and an NDJSON recording named .parquet', async () => {
    const junk = path('.parquet');
    writeFileSync(junk, 'PAR1 this is not parquet at all PAR1');
    expect((await refusal(readAll(junk))).message).toMatch(/not a readable Parquet file/);
    const ndjson = path('.parquet');
    writeFileSync(ndjson, '{"t":1,"tickers":[]}\n');
    expect((await refusal(readAll(ndjson))).message).toMatch(/not a Parquet file/);
  });

  it('another schema: Parquet that is not a capibot recording', async () => {
    const p = path('.parquet');
    writeFileSync(
      p,
      new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'x', data: [1, 2], type: 'INT32' }] })),
    );
    expect((await refusal(readAll(p))).message).toMatch(/not a capibot Parquet recording/);
  });

  it('a missing column, and a column of the wrong type', async () => {
    const p = path('.parquet');
    const columns = Object.entries(rows()).filter(([k]) => k !== 'last');
    writeFileSync(
      p,
      new Uint8Array(
        parquetWriteBuffer({
          columnData: columns.map(([name, data]) => ({ name, data })),
          kvMetadata: [{ key: PARQUET_KEYS.format, value: PARQUET_FORMAT }],
        }),
      ),
    );
    expect((await refusal(readAll(p))).message).toMatch(/missing column last/);
  });

  it('time going backwards, names the row and the column', async () => {
    const e = await refusal(readAll(crafted(rows((r) => (r['t'] = [2000n, 1000n])))));
    expect(e.message).toMatch(/row 2, column t: t goes backwards/);
  });

  it.each([
    ['last', 'NaN', /row 1, column last: not a decimal/],
    ['last', '-5', /row 1, column last: a price must be above 0/],
    ['best_bid', '0', /row 1, column best_bid: a price must be above 0/],
    ['volume_24h', 'Infinity', /row 1, column volume_24h: not a decimal/],
  ])('a bad %s (%s)', async (column, value, why) => {
    const e = await refusal(readAll(crafted(rows((r) => ((r[column] as unknown[])[0] = value)))));
    expect(e.message).toMatch(why);
  });

  it('a poll number out of sequence, and a ticker field the layout lacks', async () => {
    expect((await refusal(readAll(crafted(rows((r) => (r['poll'] = [0, 2])))))).message).toMatch(
      /row 2, column poll/,
    );
    expect((await refusal(readAll(crafted(rows((r) => (r['markPrice'] = ['5', null])))))).message).toMatch(
      /row 1, column markPrice: a value where the layout has none/,
    );
  });

  it('a flipped byte anywhere is refused, or changes no value read (content hash)', async () => {
    const file = await good();
    const reference = path('.ndjson');
    await convertRecording(file, reference);
    const original = readFileSync(reference, 'utf8');
    const src = readFileSync(file);
    // Some bytes change nothing a reader uses (a page's statistics, padding): those files read back
    // the same recording. Every other flip must be refused, by the read or the content hash.
    let refused = 0;
    let unchanged = 0;
    for (let at = 0; at < src.length; at += 7) {
      const bad = Buffer.from(src);
      bad[at] = (bad[at] as number) ^ 0x5a;
      const p = path('.parquet');
      writeFileSync(p, bad);
      const out = path('.ndjson');
      const e: unknown = await convertRecording(p, out).then(
        () => undefined,
        (x: unknown) => x,
      );
      if (e === undefined) {
        expect(readFileSync(out, 'utf8'), `byte ${at} flipped`).toBe(original);
        expect(await readAll(p)).toBe(20);
        unchanged++;
      } else {
        expect(e, `byte ${at} flipped`).toBeInstanceOf(BadInputError);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(unchanged);
  });
});

describe('convert on hostile input: one error, nothing written', () => {
  const lines = samplePolls(3).map((p) => JSON.stringify(p));
  const outputs = (): string[] => readdirSync(DIR).filter((f) => f.startsWith('out-'));

  it.each([
    [
      'a bad line',
      [lines[0], '{"t":5,"tickers":[{"symbol":"x"}]}', lines[1]].join('\n'),
      /:2: not a recording line/,
    ],
    ['time going backwards', [lines[1], lines[0]].join('\n'), /:2: t goes backwards/],
    [
      'a negative price',
      lines[0]!.replace('"last":"90000.5"', '"last":"-1"'),
      /:1: .*last: a price must be above 0/,
    ],
    ['a torn last line', `${lines[0]}\n${lines[1]!.slice(0, 30)}`, /:2: bad JSON/],
  ])('NDJSON → Parquet: %s', async (_, content, why) => {
    const input = path('.ndjson');
    writeFileSync(input, content);
    const out = join(DIR, `out-${n}.parquet`);
    expect((await refusal(convertRecording(input, out))).message).toMatch(why);
    expect(existsSync(out)).toBe(false);
    expect(outputs().filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('NDJSON → Parquet: a truncated gzip', async () => {
    const gz = gzipSync(`${lines.join('\n')}\n`);
    const input = path('.ndjson.gz');
    writeFileSync(input, gz.subarray(0, gz.length - 12));
    const out = join(DIR, `out-${n}.parquet`);
    expect((await refusal(convertRecording(input, out))).message).toMatch(/truncated/);
    expect(existsSync(out)).toBe(false);
  });

  it('Parquet → NDJSON: a truncated Parquet file', async () => {
    const src = readFileSync(await good());
    const input = path('.parquet');
    writeFileSync(input, src.subarray(0, src.length - 20));
    const out = join(DIR, `out-${n}.ndjson`);
    await refusal(convertRecording(input, out));
    expect(existsSync(out)).toBe(false);
    expect(outputs().filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('same format on both sides is refused', async () => {
    await refusal(convertRecording(path('.ndjson'), path('.ndjson.gz')));
  });
});
