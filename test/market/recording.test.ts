import { appendFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants as zc, createGzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BadInputError, InvariantViolation } from '../../src/core/errors.ts';
import type { RecordedPoll } from '../../src/core/market.ts';
import { tickerRows } from '../../src/core/ticker-rows.ts';
import { NATIVE_PARSE_MAX_CHARS } from '../../src/market/recording/poll-line.ts';
import {
  openRecording,
  readRecording,
  readRecordingBatches,
  readRecordingMeta,
} from '../../src/market/recording/reader.ts';
import { openRecordingWriter } from '../../src/market/recording/writer.ts';
import { collect, samplePolls, tempDir, wire } from './helpers.ts';

async function writeAll(
  path: string,
  polls: readonly RecordedPoll[],
  meta?: Record<string, unknown>,
): Promise<void> {
  const w = await openRecordingWriter(path, { ...(meta ? { meta } : {}) });
  for (const p of polls) w.write(p);
  await w.close();
}

async function readError(path: string): Promise<BadInputError> {
  try {
    await collect(path);
  } catch (e) {
    expect(e).toBeInstanceOf(BadInputError);
    return e as BadInputError;
  }
  throw new Error('expected the read to fail');
}

const lines = (...xs: string[]): string => xs.map((x) => `${x}\n`).join('');
const poll = (t: number, last = '1.5'): string =>
  JSON.stringify({ t, tickers: [wire('cmt_btcusdt', t, last)] });

describe('recording round trip', () => {
  for (const name of ['rec.ndjson', 'rec.ndjson.gz']) {
    it(`writes and reads back polls and meta exactly (${name})`, async () => {
      const path = join(tempDir(), name);
      const polls = samplePolls(50);
      await writeAll(path, polls, { format: 'capibot-recording/1', source: 'test' });
      const gz = readFileSync(path)
        .subarray(0, 2)
        .equals(Buffer.from([0x1f, 0x8b]));
      expect(gz).toBe(name.endsWith('.gz'));
      const rec = await openRecording(path);
      expect(rec.meta).toEqual({ format: 'capibot-recording/1', source: 'test' });
      const back: RecordedPoll[] = [];
      for await (const p of rec.polls) back.push(p);
      expect(back).toEqual(polls);
      // Key order and every string kept as written (markPrice present on one symbol only).
      expect(JSON.stringify(back[3]!.tickers)).toBe(JSON.stringify(polls[3]!.tickers));
    });
  }

  it('reads short lines with JSON.parse and long ones lazily, the same polls either way', async () => {
    const symbols = Array.from({ length: 8 }, (_, i) => `cmt_s${i}usdt`);
    const short = { t: 1, tickers: [wire('cmt_btcusdt', 1, '1.5')] };
    const long = { t: 2, tickers: symbols.map((s, i) => wire(s, 2, `${i + 1}.25`)) };
    expect(JSON.stringify(short).length).toBeLessThanOrEqual(NATIVE_PARSE_MAX_CHARS);
    expect(JSON.stringify(long).length).toBeGreaterThan(NATIVE_PARSE_MAX_CHARS);
    const path = join(tempDir(), 'r.ndjson');
    writeFileSync(
      path,
      lines(JSON.stringify(short), JSON.stringify(long), JSON.stringify(short).replace('"t":1', '"t":3')),
    );
    const got = await collect(path);
    // The long line's tickers are made when read (none yet), the short line's are plain objects.
    expect(tickerRows(got[1] as RecordedPoll).made(0)).toBe(false);
    expect(got[0]).toEqual(short);
    expect(JSON.stringify(got)).toBe(JSON.stringify([short, long, { ...short, t: 3 }]));
  });

  it('keeps extra fields of recorded ticker objects untouched', async () => {
    const path = join(tempDir(), 'extra.ndjson');
    writeFileSync(
      path,
      lines(
        JSON.stringify({
          t: 5,
          tickers: [{ ...wire('x', 5, '1'), fundingRate: '0.0001', nested: { a: 1 } }],
        }),
      ),
    );
    const [p] = await collect(path);
    expect(p!.tickers[0]).toEqual({ ...wire('x', 5, '1'), fundingRate: '0.0001', nested: { a: 1 } });
  });

  it('reads a recording without meta, without a final newline, and with CRLF line ends', async () => {
    const path = join(tempDir(), 'bare.ndjson');
    writeFileSync(path, `${poll(1)}\r\n${poll(2)}\r\n${poll(2)}`);
    expect((await collect(path)).map((p) => p.t)).toEqual([1, 2, 2]);
    expect(await readRecordingMeta(path)).toBeUndefined();
  });

  it('offers the same polls in batches, and closes the file when the loop breaks early', async () => {
    const path = join(tempDir(), 'b.ndjson.gz');
    const polls = samplePolls(20);
    await writeAll(path, polls);
    const batches: (readonly RecordedPoll[])[] = [];
    for await (const b of readRecordingBatches(path)) batches.push(b);
    expect(batches.flat()).toEqual(polls);
    let seen = 0;
    for await (const _ of readRecording(path)) if (++seen === 3) break;
    expect(seen).toBe(3);
  });

  it('an opened recording can be iterated once', async () => {
    const path = join(tempDir(), 'once.ndjson');
    await writeAll(path, samplePolls(2));
    const rec = await openRecording(path);
    for await (const _ of rec.polls) void _;
    expect(() => rec.batches[Symbol.asyncIterator]()).toThrow(BadInputError);
  });
});

describe('appending', () => {
  for (const name of ['app.ndjson', 'app.ndjson.gz']) {
    it(`continues an existing recording (${name}); gzip gets a second member`, async () => {
      const path = join(tempDir(), name);
      const polls = samplePolls(30);
      await writeAll(path, polls.slice(0, 10), { run: 1 });
      const size1 = statSync(path).size;
      const w = await openRecordingWriter(path, { meta: { run: 2 } });
      expect(w.appended).toBe(true);
      expect(w.lastT).toBe(polls[9]!.t);
      expect(w.meta).toEqual({ run: 1 });
      for (const p of polls.slice(10)) w.write(p);
      await w.close();
      expect(statSync(path).size).toBeGreaterThan(size1);
      const rec = await openRecording(path, { truncatedGzip: 'error' });
      expect(rec.meta).toEqual({ run: 1 });
      await rec.close();
      expect(await collect(path)).toEqual(polls);
    });
  }

  it('refuses to write a poll before the last one of the file', async () => {
    const path = join(tempDir(), 'back.ndjson');
    await writeAll(path, samplePolls(3));
    const w = await openRecordingWriter(path);
    expect(() => w.write({ t: 5, tickers: [] })).toThrow(InvariantViolation);
    await w.close();
  });

  it('refuses to continue a file that is not a valid recording', async () => {
    const path = join(tempDir(), 'bad.ndjson');
    writeFileSync(path, lines(poll(1), 'garbage', poll(3)));
    await expect(openRecordingWriter(path)).rejects.toThrow(/cannot continue this recording.*bad\.ndjson:2/);
  });

  it('create mode refuses an existing file; overwrite replaces it', async () => {
    const path = join(tempDir(), 'c.ndjson');
    await writeAll(path, samplePolls(2));
    await expect(openRecordingWriter(path, { mode: 'create' })).rejects.toThrow(BadInputError);
    const w = await openRecordingWriter(path, { mode: 'overwrite', meta: { fresh: true } });
    await w.close();
    expect(await readRecordingMeta(path)).toEqual({ fresh: true });
    expect(await collect(path)).toEqual([]);
  });

  it('drops a torn plain last line (a killed writer) before appending, and keeps a complete one', async () => {
    const dir = tempDir();
    const torn = join(dir, 'torn.ndjson');
    writeFileSync(torn, lines(poll(1), poll(2)) + poll(3).slice(0, 25));
    const w = await openRecordingWriter(torn);
    expect(w.lastT).toBe(2);
    w.write(JSON.parse(poll(4)) as RecordedPoll);
    await w.close();
    expect((await collect(torn)).map((p) => p.t)).toEqual([1, 2, 4]);

    const whole = join(dir, 'whole.ndjson');
    writeFileSync(whole, lines(poll(1)) + poll(2));
    const w2 = await openRecordingWriter(whole);
    w2.write(JSON.parse(poll(3)) as RecordedPoll);
    await w2.close();
    expect((await collect(whole)).map((p) => p.t)).toEqual([1, 2, 3]);
  });

  it('refuses to continue a plain file as gzip and the other way round', async () => {
    const dir = tempDir();
    const plain = join(dir, 'plain.ndjson.gz');
    writeFileSync(plain, lines(poll(1)));
    await expect(openRecordingWriter(plain)).rejects.toThrow(
      /it is plain text but would be continued as gzip/,
    );
    const gz = join(dir, 'gz.ndjson');
    writeFileSync(gz, gzipSync(lines(poll(1))));
    await expect(openRecordingWriter(gz)).rejects.toThrow(/it is gzip but would be continued as plain text/);
  });

  it('leaves a file that is not a valid recording untouched when refusing to continue it', async () => {
    const path = join(tempDir(), 'notes.ndjson');
    const text = lines(poll(1), 'my notes') + 'no newline at the end';
    writeFileSync(path, text);
    await expect(openRecordingWriter(path)).rejects.toThrow(/notes\.ndjson:2/);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('drops a torn line at the end of a gzip tail without trailer before appending', async () => {
    const path = join(tempDir(), 'torn.ndjson.gz');
    const gz = createGzip();
    const parts: Buffer[] = [];
    gz.on('data', (b: Buffer) => parts.push(b));
    gz.write(lines(poll(1), poll(2)) + poll(3).slice(0, 30));
    await new Promise<void>((resolve) => gz.flush(zc.Z_SYNC_FLUSH, () => resolve()));
    writeFileSync(path, Buffer.concat(parts));
    gz.destroy();
    await expect(collect(path)).rejects.toThrow(
      /torn\.ndjson\.gz:3: gzip data ends early, in the middle of this line/,
    );
    const w = await openRecordingWriter(path);
    expect(w.lastT).toBe(2);
    w.write(JSON.parse(poll(4)) as RecordedPoll);
    await w.close();
    expect((await collect(path)).map((p) => p.t)).toEqual([1, 2, 4]);
  });

  it('re-encodes a gzip tail without trailer (a killed writer) before appending a member', async () => {
    const path = join(tempDir(), 'killed.ndjson.gz');
    const polls = samplePolls(12);
    // What a killed writer leaves: sync-flushed gzip data without the trailer.
    const w = await openRecordingWriter(path, { meta: { m: 1 } });
    for (const p of polls.slice(0, 6)) w.write(p);
    await w.flush();
    const flushedSize = statSync(path).size;
    await w.close();
    truncateSync(path, flushedSize);
    expect(await collect(path)).toEqual(polls.slice(0, 6));
    const w2 = await openRecordingWriter(path);
    for (const p of polls.slice(6)) w2.write(p);
    await w2.close();
    const rec = await openRecording(path, { truncatedGzip: 'error' });
    expect(rec.meta).toEqual({ m: 1 });
    await rec.close();
    expect(await collect(path)).toEqual(polls);
  });
});

describe('reader validation', () => {
  async function errorFor(content: string, name = 'r.ndjson'): Promise<string> {
    const path = join(tempDir(), name);
    writeFileSync(path, content);
    return (await readError(path)).message;
  }

  it('names the file and line of bad JSON', async () => {
    expect(await errorFor(lines(poll(1), poll(2), '{"t": 3, "tickers": ['))).toMatch(/r\.ndjson:3: bad JSON/);
  });

  it('names the field of a wrong shape', async () => {
    expect(await errorFor(lines(poll(1), JSON.stringify({ t: 2, tickers: [wire('a', 2, 'abc')] })))).toMatch(
      /r\.ndjson:2: not a recording line \(tickers\[0\]\.last: not a decimal string\)/,
    );
    expect(
      await errorFor(lines(JSON.stringify({ t: 2, tickers: [{ ...wire('a', 2, '1'), best_bid: 5 }] }))),
    ).toMatch(/:1: .*tickers\[0\]\.best_bid/);
    expect(await errorFor(lines(JSON.stringify({ t: '2', tickers: [] })))).toMatch(/:1: .*\bt\b/);
    expect(await errorFor(lines(JSON.stringify({ t: 2.5, tickers: [] })))).toMatch(
      /:1: .*t must be an integer/,
    );
    expect(await errorFor(lines(poll(1), JSON.stringify({ t: 2 }))).then((m) => m)).toMatch(/:2: .*tickers/);
    expect(await errorFor(lines(poll(1), '[1,2]'))).toMatch(/:2: not a recording line/);
    const { markPrice: _m, ...noMark } = wire('a', 2, '1');
    expect(
      await errorFor(lines(JSON.stringify({ t: 2, tickers: [{ ...noMark, markPrice: '1e' }] }))),
    ).toMatch(/markPrice/);
    expect(
      await errorFor(lines(JSON.stringify({ t: 2, tickers: [{ ...wire('a', 2, '1'), timestamp: '12a' }] }))),
    ).toMatch(/timestamp/);
  });

  it('refuses t going backwards, naming the line', async () => {
    expect(await errorFor(lines(JSON.stringify({ meta: {} }), poll(10), poll(10), poll(9)))).toMatch(
      /r\.ndjson:4: t goes backwards \(9 after 10\)/,
    );
  });

  it('refuses a meta line anywhere but first, blank lines and a torn last line', async () => {
    expect(await errorFor(lines(poll(1), JSON.stringify({ meta: {} })))).toMatch(
      /:2: a meta line is allowed only as the first line/,
    );
    expect(await errorFor(lines(poll(1), '', poll(2)))).toMatch(/:2: empty line/);
    expect(await errorFor(lines(poll(1)) + poll(2).slice(0, 30))).toMatch(/:2: bad JSON/);
  });

  it('reports errors in gzip files with line numbers too', async () => {
    const path = join(tempDir(), 'g.ndjson.gz');
    writeFileSync(path, gzipSync(lines(poll(1), poll(0))));
    expect((await readError(path)).message).toMatch(/g\.ndjson\.gz:2: t goes backwards/);
  });

  it('reports a missing file and corrupt gzip as BadInputError', async () => {
    const dir = tempDir();
    expect((await readError(join(dir, 'nope.ndjson'))).message).toMatch(
      /nope\.ndjson: cannot read \(ENOENT\)/,
    );
    const corrupt = join(dir, 'c.gz');
    const good = gzipSync(lines(poll(1), poll(2)));
    good[20] = good[20]! ^ 0xff;
    good[21] = good[21]! ^ 0xff;
    writeFileSync(corrupt, good);
    expect((await readError(corrupt)).message).toMatch(/c\.gz/);
  });
});

describe('truncated gzip', () => {
  it('accepts data cut exactly at a flush (whole lines) and refuses a cut in the middle of a line', async () => {
    const dir = tempDir();
    const polls = samplePolls(40);
    const full = join(dir, 'full.ndjson.gz');
    await writeAll(full, polls);
    const bytes = readFileSync(full);

    // No trailer (the last 8 bytes) but every line complete: accepted, told through onTruncated.
    const noTrailer = join(dir, 'no-trailer.ndjson.gz');
    writeFileSync(noTrailer, bytes.subarray(0, bytes.length - 8));
    let told = 0;
    const back: RecordedPoll[] = [];
    for await (const p of readRecording(noTrailer, { onTruncated: () => told++ })) back.push(p);
    expect(back).toEqual(polls);
    expect(told).toBe(1);
    await expect(collect(noTrailer).then(() => 'ok')).resolves.toBe('ok');
    const strict = await (async () => {
      try {
        for await (const _ of readRecording(noTrailer, { truncatedGzip: 'error' })) void _;
        return 'read';
      } catch (e) {
        return e;
      }
    })();
    expect(strict).toBeInstanceOf(BadInputError);

    // One gzip member without intermediate flushes, cut in the middle: the decoded text ends mid-line.
    const oneBlock = gzipSync(polls.map((p) => `${JSON.stringify(p)}\n`).join(''));
    const cut = join(dir, 'cut.ndjson.gz');
    writeFileSync(cut, oneBlock.subarray(0, Math.floor(oneBlock.length * 0.6)));
    expect((await readError(cut)).message).toMatch(
      /cut\.ndjson\.gz:\d+: gzip data ends early, in the middle of this line/,
    );
  });

  it('never crashes and never invents data, wherever the file is cut', async () => {
    const dir = tempDir();
    const polls = samplePolls(25);
    const path = join(dir, 'p.ndjson.gz');
    // Flushed every 5 polls, like a recorder.
    const w = await openRecordingWriter(path);
    for (const [i, p] of polls.entries()) {
      w.write(p);
      if (i % 5 === 4) await w.flush();
    }
    await w.close();
    const bytes = readFileSync(path);
    const cutPath = join(dir, 'cut.ndjson.gz');
    for (let n = 0; n <= bytes.length; n += 37) {
      writeFileSync(cutPath, bytes.subarray(0, n));
      try {
        const got = await collect(cutPath);
        // Whatever is accepted is a prefix of what was written.
        expect(got).toEqual(polls.slice(0, got.length));
      } catch (e) {
        expect(e).toBeInstanceOf(BadInputError);
      }
    }
  });

  it('reads multi-member gzip written by other tools', async () => {
    const path = join(tempDir(), 'mm.ndjson.gz');
    writeFileSync(
      path,
      Buffer.concat([gzipSync(lines(JSON.stringify({ meta: { a: 1 } }), poll(1))), gzipSync(lines(poll(2)))]),
    );
    appendFileSync(path, gzipSync(lines(poll(3))));
    expect((await collect(path)).map((p) => p.t)).toEqual([1, 2, 3]);
  });
});

describe('recording writer: the net under every producer', () => {
  it('refuses to write a poll the reader would refuse, naming the field, and keeps what came before', async () => {
    const path = join(tempDir(), 'net.ndjson');
    const w = await openRecordingWriter(path, {});
    w.write({ t: 1, tickers: [wire('cmt_btcusdt', 1, '100')] });
    expect(() => w.write({ t: 2, tickers: [wire('cmt_btcusdt', 2, '100', { best_bid: '0' })] })).toThrow(
      InvariantViolation,
    );
    expect(() => w.write({ t: 2, tickers: [wire('cmt_btcusdt', 2, '100', { best_bid: '0' })] })).toThrow(
      /t 2: tickers\[0\]\.best_bid: a price must be above 0/,
    );
    await w.close();
    expect((await collect(path)).map((p) => p.t)).toEqual([1]);
  });
});
