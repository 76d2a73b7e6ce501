// Loading a config: YAML text → (interpolation, inline-secret refusal) → zod (fields, then cross-field
// rules) → deep-frozen `Config`. Every failure is a ConfigError whose message is one line naming the
// file, line:col and YAML path; when there are several problems the first (in file order) is the
// message and the others are kept on `LoadFailure.problems` for `capibot validate`.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../core/errors.ts';
import { ValidatedConfigSchema } from './cross-checks.ts';
import { deepFreeze } from './freeze.ts';
import type { Env } from './interpolate.ts';
import { ConfigProblemsError, problemsFromIssues } from './problems.ts';
import type { Config } from './schema.ts';
import type { ConfigPath, SourceMap } from './source-map.ts';
import { readYamlTree } from './yaml-tree.ts';

export interface LoadedConfig {
  readonly config: Config;
  /** The source name used in messages (the path as given). */
  readonly source: string;
  /** `file:line:col path` of a value, for errors found after loading (missing files, ...). */
  readonly where: (path: ConfigPath) => string;
}

export { ConfigProblemsError } from './problems.ts';

/** Every problem line of a config error (one for most errors, several after schema validation). */
export function configProblemLines(err: ConfigError): readonly string[] {
  return err instanceof ConfigProblemsError ? err.problems : [err.message];
}

export function parseConfigDocument(text: string, sourceName: string, env: Env): LoadedConfig {
  const { data, map } = readYamlTree(text, sourceName, env);
  const result = ValidatedConfigSchema.safeParse(data, { reportInput: true });
  if (!result.success) {
    throw new ConfigProblemsError(problemsFromIssues(result.error.issues, map, ValidatedConfigSchema));
  }
  const config = deepFreeze(result.data) as Config;
  return { config, source: sourceName, where: (path) => whereIn(map, path) };
}

function whereIn(map: SourceMap, path: ConfigPath): string {
  return map.where(path);
}

/** Parses config text; `sourceName` appears in error messages. */
export function parseConfigText(text: string, sourceName: string, env: Env): Config {
  return parseConfigDocument(text, sourceName, env).config;
}

export function loadConfigDocument(path: string, env: Env): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : 'cannot be read';
    throw new ConfigError(`cannot read the config file: ${why}`, path);
  }
  return parseConfigDocument(text, path, env);
}

/** Reads, validates and freezes the config file at `path`. Throws ConfigError (exit 2). */
export function loadConfig(path: string, env: Env): Config {
  return loadConfigDocument(path, env).config;
}
