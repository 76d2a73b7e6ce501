// A sweep grid (YAML): which strategy instance of the config to vary, and the values of each param.
//
//   strategy: sma            # the strategy id in the config; optional when only one is enabled
//   params:
//     fast: [5, 8]           # a list: every value is tried
//     slow: [20, 30]
//     size: '0.01'           # a single value: fixed for every run
//
// The combinations are the cartesian product in a fixed order: params in file order, the first one
// varying slowest (like nested loops), values in list order. Combination i (1-based) is always the
// same run, whatever the number of workers.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigProblemsError, problemsFromIssues } from '../../config/problems.ts';
import { readYamlTree } from '../../config/yaml-tree.ts';
import { ConfigError } from '../../core/errors.ts';

/** Largest grid accepted (a typo such as a range of 10 000 values should not start a day of runs). */
export const MAX_COMBINATIONS = 10_000;

export interface Grid {
  /** Strategy id as written in the grid (resolved against the config later), if any. */
  readonly strategy?: string;
  /** Param name → the values tried, in order. */
  readonly params: readonly (readonly [string, readonly unknown[]])[];
}

export type Combination = Readonly<Record<string, unknown>>;

const GridSchema = z.strictObject({
  strategy: z
    .string({ error: 'expected the strategy id (as in the config) whose params vary' })
    .min(1)
    .optional(),
  params: z
    .record(z.string(), z.unknown(), { error: 'expected a mapping of param names to lists of values' })
    .refine((p) => Object.keys(p).length > 0, { error: 'expected at least one param' }),
});

/**
 * Parses grid YAML text; `source` names the file in errors. Read as config files are (the same YAML
 * reader, `${VAR}` from `env`), so every problem is named at `file:line:col`, unknown keys with a
 * did-you-mean.
 */
export function parseGrid(
  text: string,
  source: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Grid {
  const { data, map } = readYamlTree(text, source, env);
  const r = GridSchema.safeParse(data, { reportInput: true });
  if (!r.success) throw new ConfigProblemsError(problemsFromIssues(r.error.issues, map, GridSchema));
  const params: [string, unknown[]][] = [];
  for (const [name, value] of Object.entries(r.data.params)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.length === 0)
      throw new ConfigError('expected at least one value', map.where(['params', name]));
    params.push([name, values]);
  }
  const grid: Grid = { ...(r.data.strategy !== undefined ? { strategy: r.data.strategy } : {}), params };
  const n = combinationCount(grid);
  if (n > MAX_COMBINATIONS)
    throw new ConfigError(
      `${n} combinations; at most ${MAX_COMBINATIONS} are allowed`,
      map.where(['params']),
    );
  return grid;
}

export function loadGrid(path: string, env: Readonly<Record<string, string | undefined>> = {}): Grid {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError(`cannot read the grid file (${code ?? 'error'})`, path);
  }
  return parseGrid(text, path, env);
}

export function combinationCount(grid: Grid): number {
  return grid.params.reduce((n, [, values]) => n * values.length, 1);
}

/** Every combination, in the grid's fixed order. */
export function combinations(grid: Grid): Combination[] {
  let out: Record<string, unknown>[] = [{}];
  for (const [name, values] of grid.params) {
    const next: Record<string, unknown>[] = [];
    for (const partial of out) for (const v of values) next.push({ ...partial, [name]: v });
    out = next;
  }
  return out;
}
