// Text chunks of a recording file (src/market/recording/text-chunks.ts): the text comes out exactly,
// in chunks that end on a line end (a line is one slice of one chunk, not pieces joined), except a
// line longer than the carry limit, which comes in pieces without breaking a character.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { LineSplitter, TextChunkReader } from '../../src/market/recording/text-chunks.ts';
import { tempDir } from './helpers.ts';

async function chunks(path: string): Promise<string[]> {
  const r = await TextChunkReader.open(path);
  const out: string[] = [];
  for (let c = await r.next(); c !== undefined; c = await r.next()) out.push(c);
  return out;
}

/** Lines of varied lengths, some with characters of 2, 3 and 4 UTF-8 bytes. */
function text(lines: number, longEvery = 0): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const n = longEvery > 0 && i % longEvery === longEvery - 1 ? 1_300_000 : 10 + ((i * 7919) % 70_000);
    const unit = i % 3 === 0 ? 'é€𝄞a' : 'abcdefgh';
    // By code points: a lone surrogate is not text a file can hold.
    const points = Array.from(unit);
    out.push(`${i}:${Array.from({ length: n }, (_, k) => points[k % points.length]).join('')}`);
  }
  return `${out.join('\n')}\n`;
}

/** Lets the event loop run for `ms` (libuv's reads and inflates complete and are taken in). */
async function idleFor(ms: number): Promise<void> {
  for (let i = 0; i < ms / 5; i++) await new Promise<void>((resolve) => setTimeout(resolve, 5));
}

describe('TextChunkReader', () => {
  it.each([
    ['gzip', true],
    ['plain', false],
  ])(
    'reads ahead while the consumer holds a chunk, and only a few chunks ahead (%s)',
    async (_name, gzip) => {
      // 8 MiB of text that compresses about 2:1 (a write to zlib then inflates to a chunk or so).
      let seed = 1;
      const hex = (): string => {
        seed = (seed * 48271) % 2147483647;
        return seed.toString(16).padStart(8, '0');
      };
      const lines: string[] = [];
      for (let i = 0; i < 64 * 1024; i++) lines.push(Array.from({ length: 15 }, hex).join(''));
      const t = `${lines.join('\n')}\n`;
      const path = join(tempDir(), gzip ? 'ahead.ndjson.gz' : 'ahead.ndjson');
      writeFileSync(path, gzip ? gzipSync(t) : t);
      const r = await TextChunkReader.open(path);
      const first = await r.next();
      expect(first?.length).toBeGreaterThan(0);
      await idleFor(300);
      // Decoded meanwhile, without being asked for: more than one read gives (a gzip write of 16 KiB
      // inflates to about 32 KiB of this text)...
      expect(r.pendingChars).toBeGreaterThan(64 * 1024);
      // ...but only a few chunks of it, not the file.
      expect(r.pendingChars).toBeLessThan(2 * 1024 * 1024);
      let total = first?.length ?? 0;
      for (let c = await r.next(); c !== undefined; c = await r.next()) total += c.length;
      expect(total).toBe(t.length);
    },
  );

  it.each([
    ['gzip', true],
    ['plain', false],
  ])(
    'closes with a block still being read ahead, without a hang or a stray error (%s)',
    async (_name, gzip) => {
      const t = `${'{"t":1}\n'.repeat(200_000)}`;
      const path = join(tempDir(), gzip ? 'close.ndjson.gz' : 'close.ndjson');
      writeFileSync(path, gzip ? gzipSync(t) : t);
      const stray: unknown[] = [];
      const onStray = (e: unknown): void => void stray.push(e);
      process.on('unhandledRejection', onStray);
      try {
        for (let i = 0; i < 10; i++) {
          const r = await TextChunkReader.open(path);
          expect((await r.next())?.length).toBeGreaterThan(0);
          if (i % 2 === 1) await idleFor(5);
          await r.close();
          expect(await r.next()).toBeUndefined();
        }
        await idleFor(50);
      } finally {
        process.off('unhandledRejection', onStray);
      }
      expect(stray).toEqual([]);
    },
  );

  it.each([
    ['gzip', true],
    ['plain', false],
  ])('hands out the text exactly, each chunk ending on a line end (%s)', async (_name, gzip) => {
    const t = text(60);
    const path = join(tempDir(), gzip ? 'a.ndjson.gz' : 'a.ndjson');
    writeFileSync(path, gzip ? gzipSync(t) : t);
    const cs = await chunks(path);
    expect(cs.join('')).toBe(t);
    expect(cs.length).toBeGreaterThan(3);
    for (const c of cs) expect(c.endsWith('\n')).toBe(true);
    // The splitter then never joins pieces: every line is within one chunk.
    const splitter = new LineSplitter(path);
    const lines = cs.flatMap((c) => splitter.push(c));
    expect(lines).toEqual(t.split('\n').slice(0, -1));
  });

  it.each([
    ['gzip', true],
    ['plain', false],
  ])(
    'decodes at most 64 KiB into one string unless one line is longer: V8 keeps strings over 128 KiB in its large-object space (%s)',
    async (_name, gzip) => {
      // Lines of 100 to 50,000 bytes (a 200-symbol poll is about 49 kB), and a few of 150,000.
      const lines: string[] = [];
      for (let i = 0; i < 400; i++) {
        const n = i % 97 === 96 ? 150_000 : 100 + ((i * 7919) % 50_000);
        lines.push(`${i}:${'x'.repeat(n)}`);
      }
      const t = `${lines.join('\n')}\n`;
      const path = join(tempDir(), gzip ? 'pieces.ndjson.gz' : 'pieces.ndjson');
      writeFileSync(path, gzip ? gzipSync(t) : t);
      const cs = await chunks(path);
      expect(cs.join('')).toBe(t);
      const longest = Math.max(...lines.map((l) => l.length + 1));
      for (const c of cs) {
        expect(c.endsWith('\n')).toBe(true);
        // Over 64 KiB only as one whole line.
        if (c.length > 64 * 1024) expect(c.indexOf('\n')).toBe(c.length - 1);
        expect(c.length).toBeLessThanOrEqual(longest);
      }
      expect(cs.some((c) => c.length > 64 * 1024)).toBe(true);
      expect(cs.filter((c) => c.length <= 64 * 1024).length).toBeGreaterThan(cs.length / 2);
    },
  );

  it.each([
    ['gzip', true],
    ['plain', false],
  ])('hands out a line longer than the carry limit in pieces, characters whole (%s)', async (_name, gzip) => {
    const t = `${text(7, 3)}last line without its end é𝄞`;
    const path = join(tempDir(), gzip ? 'b.ndjson.gz' : 'b.ndjson');
    writeFileSync(path, gzip ? gzipSync(t) : t);
    const cs = await chunks(path);
    expect(cs.join('')).toBe(t);
    expect(cs.some((c) => !c.endsWith('\n'))).toBe(true);
    expect(cs.join('').includes('\uFFFD')).toBe(false);
  });
});
