// zod issues → one human line each: `file:line:col path: expected ..., got ...`, in file order.
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import type { ConfigPath, SourceMap } from './source-map.ts';
import { displayPath } from './source-map.ts';
import { didYouMean } from './did-you-mean.ts';

export interface ConfigProblem {
  /** `file:line:col path` */
  readonly where: string;
  readonly message: string;
  readonly line: number;
  readonly col: number;
}

export function problemLine(p: ConfigProblem): string {
  return `${p.where}: ${p.message}`;
}

/** A ConfigError carrying every problem found (the message is the first one). */
export class ConfigProblemsError extends ConfigError {
  readonly problems: readonly string[];
  constructor(problems: readonly ConfigProblem[]) {
    const [first] = problems;
    const more =
      problems.length > 1
        ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})`
        : '';
    super(`${first?.message ?? 'invalid config'}${more}`, first?.where);
    this.problems = problems.map(problemLine);
  }
}

/** Turns zod issues into problems sorted by their place in the file. */
export function problemsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  map: SourceMap,
  schema: z.core.$ZodType,
): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const issue of issues) {
    const path = issue.path.filter((s): s is string | number => typeof s !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, path);
      for (const key of issue.keys) {
        const keyPath = [...path, key];
        const guess = didYouMean(key, known);
        const hint =
          guess !== undefined
            ? ` (did you mean "${guess}"?)`
            : known.length > 0
              ? ` (expected one of: ${known.join(', ')})`
              : '';
        out.push(problem(map, keyPath, 'key', `unknown key${hint}`));
      }
      continue;
    }
    // Values under `credentials` are variable names, but a key pasted there must not be printed back.
    const hide = map.isSensitive(path)
      ? 'env-secret'
      : path[0] === 'credentials'
        ? 'credential-field'
        : undefined;
    out.push(problem(map, path, 'value', describeIssue(issue, hide)));
  }
  return out.sort((a, b) => a.line - b.line || a.col - b.col);
}

function problem(map: SourceMap, path: ConfigPath, at: 'key' | 'value', message: string): ConfigProblem {
  const pos = at === 'key' ? map.keyPosition(path) : map.valuePosition(path);
  return {
    where: `${map.source}:${pos.line}:${pos.col} ${displayPath(path)}`,
    message,
    line: pos.line,
    col: pos.col,
  };
}

/** How a value is hidden in a message: a secret-looking variable's value, or anything under `credentials`. */
type Hidden = 'env-secret' | 'credential-field' | undefined;

function describeIssue(issue: z.core.$ZodIssue, hidden: Hidden): string {
  if (issue.code === 'custom' && issue.params?.['complete'] === true) return issue.message;
  const input = issue.input;
  if (
    input === undefined &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')
  ) {
    return `missing (${expectedText(issue)})`;
  }
  const got =
    input === undefined || hidden === 'credential-field'
      ? ''
      : `, got ${hidden === 'env-secret' ? 'a value from a secret-looking environment variable' : describeValue(input)}`;
  if (issue.code === 'invalid_value') {
    const words = issue.values.map((v) => String(v));
    const guess = typeof input === 'string' ? didYouMean(input, words) : undefined;
    return `${expectedText(issue)}${got}${guess !== undefined ? ` (did you mean "${guess}"?)` : ''}`;
  }
  return `${expectedText(issue)}${got}`;
}

/** The field builders give their own `expected ...` messages; zod's generic ones are translated. */
function expectedText(issue: z.core.$ZodIssue): string {
  if (issue.message.startsWith('expected ')) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'object') return 'expected a mapping (key: value lines)';
      if (issue.expected === 'array') return 'expected a list';
      if (issue.expected === 'record') return 'expected a mapping';
      return `expected ${issue.expected}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'too_small':
      return issue.origin === 'array'
        ? `expected at least ${String(issue.minimum)} entries`
        : `expected at least ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'array'
        ? `expected at most ${String(issue.maximum)} entries`
        : `expected at most ${String(issue.maximum)}`;
    case 'custom':
    case 'invalid_element':
    case 'invalid_format':
    case 'invalid_key':
    case 'invalid_union':
    case 'not_multiple_of':
    case 'unrecognized_keys':
      return issue.message;
  }
}

const MAX_SHOWN = 60;

/** A short rendering of a bad value: strings quoted, mappings and lists named, long text cut. */
export function describeValue(v: unknown): string {
  if (v === null) return 'nothing (null)';
  if (typeof v === 'string') {
    const shown = v.length > MAX_SHOWN ? `${v.slice(0, MAX_SHOWN)}…` : v;
    return JSON.stringify(shown);
  }
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return v.length === 0 ? 'an empty list' : 'a list';
  if (v instanceof Uint8Array) return 'binary data';
  if (typeof v === 'object') return 'a mapping';
  return typeof v;
}

/** The keys the schema accepts at `path` (for "did you mean"), or none when it is not an object there. */
export function knownKeysAt(schema: z.core.$ZodType, path: ConfigPath): string[] {
  let s: z.core.$ZodType | undefined = unwrap(schema);
  for (const seg of path) {
    if (s === undefined) return [];
    if (typeof seg === 'number') s = s instanceof z.ZodArray ? unwrap(s.element) : undefined;
    else s = s instanceof z.ZodObject ? unwrapMaybe(fieldOf(s, seg)) : undefined;
  }
  return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
}

function fieldOf(o: z.ZodObject, key: string): z.core.$ZodType | undefined {
  const shape: Readonly<Record<string, z.core.$ZodType | undefined>> = o.shape;
  return shape[key];
}

function unwrapMaybe(s: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  return s === undefined ? undefined : unwrap(s);
}

function unwrap(s: z.core.$ZodType): z.core.$ZodType {
  let cur = s;
  for (let i = 0; i < 16; i++) {
    if (
      cur instanceof z.ZodDefault ||
      cur instanceof z.ZodPrefault ||
      cur instanceof z.ZodOptional ||
      cur instanceof z.ZodNullable
    ) {
      cur = cur.unwrap();
    } else if (cur instanceof z.ZodPipe) {
      cur = cur.in;
    } else break;
  }
  return cur;
}
