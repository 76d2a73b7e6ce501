// Content hashes (SHA-256) of the files a sweep point depends on: the recording and the strategy
// files. The submitter hashes them once; a worker hashes its own copies (cached by path, size and
// mtime, so a year-long recording is read once per worker, not once per point) and refuses a point
// whose files differ.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { BadInputError } from '../../../core/errors.ts';
import type { FileCheck } from './payload.ts';

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A path as another machine with the project would name it: relative to `cwd` when inside it. */
export function portablePath(path: string, cwd: string): string {
  const abs = resolve(cwd, path);
  const rel = relative(cwd, abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
}

export class FileHashCache {
  readonly #cache = new Map<string, { size: number; mtimeMs: number; sha256: string }>();

  async hash(path: string): Promise<string> {
    const s = await stat(path);
    const hit = this.#cache.get(path);
    if (hit !== undefined && hit.size === s.size && hit.mtimeMs === s.mtimeMs) return hit.sha256;
    const sha256 = await sha256File(path);
    this.#cache.set(path, { size: s.size, mtimeMs: s.mtimeMs, sha256 });
    return sha256;
  }

  /**
   * Checks each file (resolved against `cwd`) against its expected hash; throws a BadInputError
   * naming the file and both hashes at the first one that is missing or differs.
   */
  async verify(files: readonly FileCheck[], cwd: string, host: string): Promise<void> {
    for (const f of files) {
      const path = resolve(cwd, f.path);
      let actual: string;
      try {
        actual = await this.hash(path);
      } catch {
        throw new BadInputError(`worker ${host} has no ${f.role} file at ${path}`, f.path);
      }
      if (actual !== f.sha256)
        throw new BadInputError(
          `worker ${host} refuses the point: its ${f.role} differs from the submitter's ` +
            `(sha256 ${actual.slice(0, 12)}… here, ${f.sha256.slice(0, 12)}… expected)`,
          f.path,
        );
    }
  }
}
