// The spill file gives back every line it was given, in order, across block and chunk boundaries and
// multi-byte characters, and leaves nothing behind once closed.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SpillFile } from '../../src/store/spill-file.ts';

function readAll(f: SpillFile): string[] {
  const out: string[] = [];
  f.forEach((line, i) => {
    expect(i).toBe(out.length);
    out.push(line);
  });
  return out;
}

const spillDirs = (): string[] => readdirSync(tmpdir()).filter((d) => d.startsWith('capibot-spill-'));

describe('SpillFile', () => {
  it('creates nothing until the first line', () => {
    const before = spillDirs().length;
    const f = new SpillFile('x.ndjson');
    expect(readAll(f)).toEqual([]);
    expect(spillDirs().length).toBe(before);
    f.close();
  });

  it('gives back lines across the 1 MiB blocks, with multi-byte characters split anywhere', () => {
    const f = new SpillFile('x.ndjson');
    const lines: string[] = [];
    for (let i = 0; i < 40_000; i++) lines.push(`${i}:${'é€𝄞'.repeat(i % 13)}${'x'.repeat(i % 101)}`);
    lines.forEach((l, i) => expect(f.append(l)).toBe(i));
    expect(readAll(f)).toEqual(lines);
    // Appends after a read, and a second read.
    f.append('last');
    expect(readAll(f)).toEqual([...lines, 'last']);
    f.clear();
    f.append('again');
    expect(readAll(f)).toEqual(['again']);
    f.close();
  });

  it('keeps lines longer than a block whole and in order, with the short lines around them', () => {
    const f = new SpillFile('x.ndjson');
    const huge = '€'.repeat(400_000); // 1.2 MB of UTF-8: more than a block
    const near = 'a'.repeat(349_000); // fits a block only when the block is nearly empty
    const lines = ['first', huge, 'between', near, near, 'é', huge, 'last'];
    for (const l of lines) f.append(l);
    expect(f.bytes).toBe(lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0));
    expect(readAll(f)).toEqual(lines);
    f.close();
  });

  it('leaves nothing in TMPDIR from its first line on: the open file alone holds the data', () => {
    const before = new Set(spillDirs());
    const f = new SpillFile('x.ndjson');
    for (let i = 0; i < 3_000; i++) f.append(`line ${i} ${'y'.repeat(500)}`);
    expect(readAll(f)).toHaveLength(3_000);
    expect(spillDirs().filter((d) => !before.has(d))).toEqual([]);
    f.close();
    expect(spillDirs().filter((d) => !before.has(d))).toEqual([]);
  });
});
