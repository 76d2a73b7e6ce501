// Where a backtest writes when no --out is given: `reports/<UTC timestamp>/`, with `reports/latest`
// pointing at the newest run (a relative symlink, replaced atomically; a copy of the folder where
// symlinks cannot be made, e.g. Windows without the privilege). The timestamp is the wall clock of
// the caller (the CLI), used only for the folder's name, never inside a report.
import { access, constants } from 'node:fs/promises';
import { cp, lstat, mkdir, rename, rm, stat, symlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { BadInputError } from '../core/errors.ts';

export const REPORTS_ROOT = 'reports';
export const LATEST = 'latest';

/** `2026-11-22T01-02-03Z`: sortable, and valid as a file name everywhere. */
export function runFolderName(at: Date): string {
  return at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates and returns a new run folder under `root`, named by `at` (+ `suffix`); `-2`, `-3`, ... are
 * appended when the name is taken.
 */
export async function createRunFolder(root: string, at: Date, suffix = ''): Promise<string> {
  await mkdir(root, { recursive: true });
  const base = runFolderName(at) + suffix;
  for (let i = 1; ; i++) {
    const dir = join(root, i === 1 ? base : `${base}-${i}`);
    try {
      await mkdir(dir);
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/**
 * Points `<dirname(runDir)>/latest` at `runDir`. Returns how: a symlink, or a copy where symlinks
 * fail. Readers never see a missing `latest` in the symlink case (rename over the old link).
 */
export async function pointLatest(
  runDir: string,
  link: (target: string, path: string, type: 'dir') => Promise<void> = symlink,
): Promise<'symlink' | 'copy'> {
  const root = dirname(runDir);
  const latest = join(root, LATEST);
  const tmp = join(root, `.${LATEST}-${process.pid}.tmp`);
  await rm(tmp, { recursive: true, force: true });
  try {
    await link(basename(runDir), tmp, 'dir');
    // A real folder named latest (from an earlier copy) cannot be renamed over: remove it first.
    if (await exists(latest)) {
      const st = await lstat(latest);
      if (!st.isSymbolicLink()) await rm(latest, { recursive: true, force: true });
    }
    await rename(tmp, latest);
    return 'symlink';
  } catch {
    await rm(tmp, { recursive: true, force: true });
    await rm(latest, { recursive: true, force: true });
    await cp(runDir, latest, { recursive: true });
    return 'copy';
  }
}

/**
 * Checks, before a run, that `dir` (--out) can hold its output: it is created if missing (with its
 * parents) and must be a writable folder. Refused as bad input (exit 2) naming the folder, so a long
 * run never ends in a report that cannot be written.
 */
export async function prepareOutputFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    // stat, not lstat: a link to a folder is a folder.
    if (!(await stat(dir)).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
    await access(dir, constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOTDIR' || code === 'EEXIST'
        ? 'it, or a folder above it, is a file'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'it is not writable'
          : `it cannot be created (${code ?? 'error'})`;
    throw new BadInputError(`cannot be the output folder: ${why}`, dir);
  }
}
