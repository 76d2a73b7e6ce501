// Deterministic JSON text. Object keys keep insertion order (the report's records are built in a
// fixed order; free-form maps go through sortKeysDeep first); Dec and bigint become decimal strings;
// an object holding only scalars sits on one line, everything else is indented by two spaces.
// Values JSON cannot represent exactly (NaN, Infinity, functions, class instances other than Dec)
// are rejected instead of being silently dropped or mangled.
import { decToString, isDec } from '../../core/decimal.ts';
import { InvariantViolation } from '../../core/errors.ts';

function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function byKey([a]: [string, unknown], [b]: [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function scalar(v: unknown, path: string): string | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return JSON.stringify(v);
    case 'number':
      if (!Number.isFinite(v)) throw new InvariantViolation(`${path}: ${v} cannot be written as JSON`);
      return JSON.stringify(v);
    case 'bigint':
      return JSON.stringify(v.toString());
    case 'object':
      if (isDec(v)) return JSON.stringify(decToString(v));
      if (!Array.isArray(v) && !isPlainObject(v)) {
        throw new InvariantViolation(
          `${path}: only plain objects, arrays, Dec and scalars are written as JSON`,
        );
      }
      return undefined;
    case 'undefined':
    case 'function':
    case 'symbol':
      throw new InvariantViolation(`${path}: a ${typeof v} cannot be written as JSON`);
  }
  throw new InvariantViolation(`${path}: unexpected value`);
}

function write(v: unknown, indent: string, path: string): string {
  const s = scalar(v, path);
  if (s !== undefined) return s;
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    const items = v.map((x: unknown, i) => inner + write(x, inner, `${path}[${i}]`));
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  // Like JSON.stringify, a property whose value is undefined is absent.
  const entries = Object.entries(v as object).filter(([, x]) => x !== undefined);
  if (entries.length === 0) return '{}';
  const flat = entries.map(([k, x]) => [k, scalar(x, `${path}.${k}`)] as const);
  if (flat.every(([, x]) => x !== undefined)) {
    return `{ ${flat.map(([k, x]) => `${JSON.stringify(k)}: ${x!}`).join(', ')} }`;
  }
  const parts = entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${write(x, inner, `${path}.${k}`)}`);
  return `{\n${parts.join(',\n')}\n${indent}}`;
}

/** Deterministic JSON text of `value` (see the file comment); no trailing newline. */
export function canonicalJson(value: unknown): string {
  return write(value, '', '$');
}

/**
 * The text of `value` as canonicalJson writes it at a depth whose lines start with `indent` (its
 * first line unindented), `path` naming it in errors: a streamed writer puts the parts together.
 */
export function canonicalJsonAt(value: unknown, indent: string, path: string): string {
  return write(value, indent, path);
}

/** A copy of a JSON-like value with every plain object's keys sorted (for free-form maps). */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === 'object' && !isDec(value) && isPlainObject(value)) {
    // fromEntries defines own properties, so a key like "__proto__" stays data.
    return Object.fromEntries(
      Object.entries(value)
        .sort(byKey)
        .map(([k, x]) => [k, sortKeysDeep(x)]),
    );
  }
  return value;
}
