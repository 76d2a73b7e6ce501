// Human text for zod validation failures: where (field path) and what, never the offending value.
// A union (fills come in three shapes) reports the branch that got furthest, so the path names the
// real field (`[0].fillSize`) rather than the root.
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

export interface FieldIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** Follows union branches down to the deepest issue. */
export function deepestIssue(issue: Issue): FieldIssue {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    let best: FieldIssue | undefined;
    for (const branch of issue.errors) {
      for (const inner of branch) {
        const d = deepestIssue(inner);
        if (best === undefined || d.path.length > best.path.length) best = d;
      }
    }
    if (best !== undefined) return { path: [...issue.path, ...best.path], message: best.message };
  }
  return { path: issue.path, message: issue.message };
}

/** `list[0].tradeId`; `(root)` for the value itself. */
export function pathText(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out === '' ? '' : '.'}${String(p)}`;
  return out === '' ? '(root)' : out;
}

/** The first issue's path, and up to `max` issues as `path: message`. */
export function describeZodError(error: z.ZodError, max = 3): { where: string; text: string } {
  const issues = error.issues.map(deepestIssue);
  const where = pathText(issues[0]?.path ?? []);
  const text = issues
    .slice(0, max)
    .map((i) => `${pathText(i.path)}: ${i.message}`)
    .join('; ');
  return { where, text };
}
