import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createRunFolder,
  pointLatest,
  prepareOutputFolder,
  runFolderName,
} from '../../src/backtest/output-dir.ts';
import { BadInputError } from '../../src/core/errors.ts';

describe('report folders', () => {
  it('names a run folder by its UTC time, valid as a file name everywhere', () => {
    expect(runFolderName(new Date(Date.UTC(2024, 6, 19, 0, 5, 2, 345)))).toBe('2024-07-19T00-05-02Z');
  });

  it('never reuses a folder, and points latest at the newest run', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'capibot-out-')), 'reports');
    const at = new Date(Date.UTC(2024, 0, 1));
    const a = await createRunFolder(root, at);
    const b = await createRunFolder(root, at);
    expect(a).toBe(join(root, '2024-01-01T00-00-00Z'));
    expect(b).toBe(join(root, '2024-01-01T00-00-00Z-2'));
    writeFileSync(join(a, 'report.json'), 'A');
    writeFileSync(join(b, 'report.json'), 'B');
    expect(await pointLatest(a)).toBe('symlink');
    expect(readFileSync(join(root, 'latest', 'report.json'), 'utf8')).toBe('A');
    expect(await pointLatest(b)).toBe('symlink');
    expect(readlinkSync(join(root, 'latest'))).toBe('2024-01-01T00-00-00Z-2');
    expect(readFileSync(join(root, 'latest', 'report.json'), 'utf8')).toBe('B');
  });

  it('replaces a latest folder left by an earlier copy', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'capibot-out-')), 'reports');
    mkdirSync(join(root, 'latest'), { recursive: true });
    writeFileSync(join(root, 'latest', 'old'), 'x');
    const a = await createRunFolder(root, new Date(0));
    await pointLatest(a);
    expect(lstatSync(join(root, 'latest')).isSymbolicLink()).toBe(true);
  });

  it('copies the run folder where symlinks cannot be made', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'capibot-out-')), 'reports');
    const a = await createRunFolder(root, new Date(0));
    writeFileSync(join(a, 'report.json'), 'A');
    const refuse = () => Promise.reject(Object.assign(new Error('EPERM'), { code: 'EPERM' }));
    expect(await pointLatest(a, refuse)).toBe('copy');
    expect(lstatSync(join(root, 'latest')).isDirectory()).toBe(true);
    expect(readFileSync(join(root, 'latest', 'report.json'), 'utf8')).toBe('A');
    const b = await createRunFolder(root, new Date(0));
    writeFileSync(join(b, 'report.json'), 'B');
    expect(await pointLatest(b, refuse)).toBe('copy');
    expect(readFileSync(join(root, 'latest', 'report.json'), 'utf8')).toBe('B');
  });
});

describe('prepareOutputFolder (--out, checked before a run)', () => {
  it('creates a missing folder with its parents, and accepts an existing one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'capibot-out-'));
    await prepareOutputFolder(join(root, 'a', 'b'));
    expect(statSync(join(root, 'a', 'b')).isDirectory()).toBe(true);
    await expect(prepareOutputFolder(join(root, 'a', 'b'))).resolves.toBeUndefined();
  });

  it('refuses a file, or a folder under a file, as bad input naming it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'capibot-out-'));
    const file = join(root, 'afile');
    writeFileSync(file, '');
    for (const out of [file, join(file, 'sub')]) {
      const e = await prepareOutputFolder(out).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(BadInputError);
      expect((e as BadInputError).message).toBe(
        `${out}: cannot be the output folder: it, or a folder above it, is a file`,
      );
      expect((e as BadInputError).exitCode).toBe(2);
    }
  });
});
