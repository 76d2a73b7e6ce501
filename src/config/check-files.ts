// `capibot validate --check-files`: the files a config names exist. Not part of loading, because a
// config is often written before its strategy or its recording exists.
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigProblemsError, type LoadedConfig } from './load.ts';
import type { ConfigProblem } from './problems.ts';
import type { ConfigPath } from './source-map.ts';

interface FileRef {
  readonly path: ConfigPath;
  readonly file: string;
  readonly kind: 'file' | 'directory';
}

/** Every file (or parent directory, for files capibot creates) the config refers to. */
export function referencedFiles(loaded: LoadedConfig): FileRef[] {
  const c = loaded.config;
  const refs: FileRef[] = [];
  c.strategies.forEach((s, i) => {
    if (s.enabled) refs.push({ path: ['strategies', i, 'file'], file: s.file, kind: 'file' });
  });
  if (c.paper.data !== undefined) refs.push({ path: ['paper', 'data'], file: c.paper.data, kind: 'file' });
  if (c.backtest.data !== undefined)
    refs.push({ path: ['backtest', 'data'], file: c.backtest.data, kind: 'file' });
  if (c.log.file !== undefined)
    refs.push({ path: ['log', 'file'], file: dirname(c.log.file), kind: 'directory' });
  return refs;
}

/** Throws a ConfigError naming every referenced file that does not exist (relative to `cwd`). */
export function checkConfigFiles(loaded: LoadedConfig, cwd: string): void {
  const problems: ConfigProblem[] = [];
  for (const ref of referencedFiles(loaded)) {
    const full = resolve(cwd, ref.file);
    const ok =
      existsSync(full) && (ref.kind === 'file' ? statSync(full).isFile() : statSync(full).isDirectory());
    if (ok) continue;
    const what = ref.kind === 'file' ? `file ${ref.file}` : `directory ${ref.file}`;
    problems.push({
      where: loaded.where(ref.path),
      message: `${what} does not exist (relative paths resolve against ${cwd})`,
      line: problems.length,
      col: 0,
    });
  }
  if (problems.length > 0) throw new ConfigProblemsError(problems);
}
