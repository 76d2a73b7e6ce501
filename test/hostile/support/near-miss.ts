// Near-miss inputs: a valid documented reply (test/fixtures/weex-docs) with one to three nodes
// replaced by something hostile (wrong type, null, missing, huge, negative, NaN-like text, 30-digit
// ids sent as bare JSON numbers, odd unicode). The result is JSON *text*, so numbers JSON.stringify
// cannot write (30 digits, 1e400, -0) reach the parser exactly as a hostile server would send them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { isLosslessNumber, parse } from 'lossless-json';

export const FIXTURES_DIR = join(import.meta.dirname, '../../fixtures/weex-docs');

/** A JSON number written verbatim into the text (see `toJsonText`). */
const RAW = '@@raw-number@@';
const RAW_PATTERN = /"@@raw-number@@([^"]*)"/g;

export function rawNumber(text: string): string {
  return `${RAW}${text}`;
}

export type Json = null | boolean | string | Json[] | { [k: string]: Json };

/** Fixture text → a JSON tree whose numbers are kept as raw-number markers (exact digits). */
export function loadFixture(name: string): Json {
  return toMarked(parse(readFileSync(join(FIXTURES_DIR, name), 'utf8')));
}

function toMarked(v: unknown): Json {
  if (isLosslessNumber(v)) return rawNumber(v.value);
  if (Array.isArray(v)) return v.map(toMarked);
  if (typeof v === 'object' && v !== null) {
    const out: { [k: string]: Json } = {};
    for (const [k, x] of Object.entries(v)) out[k] = toMarked(x);
    return out;
  }
  if (typeof v === 'number') return rawNumber(String(v));
  return v as Json;
}

/** The JSON text of a marked tree: raw-number markers become bare numbers. */
export function toJsonText(v: unknown): string {
  return JSON.stringify(v).replace(RAW_PATTERN, (_m, digits: string) => digits);
}

type Path = readonly (string | number)[];

function paths(v: Json, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

const DELETE = Symbol('delete');
type Mutation = Json | typeof DELETE;

function setAt(v: Json, path: Path, m: Mutation): Json {
  if (path.length === 0) return m === DELETE ? null : m;
  const [head, ...rest] = path;
  if (Array.isArray(v)) {
    const copy = [...v];
    const i = head as number;
    if (rest.length === 0 && m === DELETE) copy.splice(i, 1);
    else copy[i] = setAt(copy[i] ?? null, rest, m);
    return copy;
  }
  if (typeof v === 'object' && v !== null) {
    const copy: { [k: string]: Json } = { ...v };
    const k = String(head);
    if (rest.length === 0 && m === DELETE) delete copy[k];
    else
      Object.defineProperty(copy, k, {
        value: setAt(copy[k] ?? null, rest, m),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return copy;
  }
  return v;
}

const HUGE = 100_000;

/** Hostile replacements for one node. */
export const hostileValue: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constantFrom<Mutation>(
    DELETE,
    null,
    true,
    false,
    '',
    ' ',
    [],
    {},
    // NaN-like and almost-numbers
    'NaN',
    'nan',
    'Infinity',
    '-Infinity',
    '1e999',
    '1e99999999',
    '-1e-99999999',
    '1e',
    'e5',
    '.',
    '-',
    '+1',
    '0x1F',
    ' 1',
    '1 ',
    '1,5',
    '1_000',
    '00001',
    '-0',
    '-1',
    '-0.0001',
    '٣',
    '１２',
    // ids
    '9'.repeat(30),
    '0'.repeat(30),
    rawNumber('123456789012345678901234567890'),
    rawNumber('719220560554361777'),
    rawNumber('9007199254740993'),
    rawNumber('-1'),
    rawNumber('-0'),
    rawNumber('1.5'),
    rawNumber('0.12345678901234567890'),
    rawNumber('1e400'),
    rawNumber('-1e400'),
    rawNumber('1E-7'),
    rawNumber('0'),
    // text that means something elsewhere
    'null',
    'undefined',
    'true',
    '__proto__',
    'constructor',
    '[object Object]',
    // unicode
    '\u0000',
    '\uD800',
    '\uDFFF\uD800',
    '😀',
    '\u202Eesrever',
    'e\u0301',
    // huge
    '9'.repeat(HUGE),
    'a'.repeat(HUGE),
    `1.${'0'.repeat(HUGE)}1`,
  ),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer().map((n) => rawNumber(String(n))),
  fc.double().map((d) => (Number.isFinite(d) ? rawNumber(String(d)) : String(d))),
);

/** JSON text of `fixture` with 1-3 nodes replaced by hostile values. */
export function nearMiss(fixture: Json): fc.Arbitrary<string> {
  const all = paths(fixture);
  return fc
    .array(fc.tuple(fc.nat({ max: all.length - 1 }), hostileValue), { minLength: 1, maxLength: 3 })
    .map((muts) => {
      let v = fixture;
      for (const [i, m] of muts) v = setAt(v, all[i] ?? [], m);
      return toJsonText(v);
    });
}

/** Arbitrary JSON text: random JSON values, anything JSON-safe, and raw strings. */
export const arbitraryJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.anything({ withNullPrototype: true, withBoxedValues: true, withSparseArray: true }).map((v) => {
    try {
      return JSON.stringify(v) ?? 'null';
    } catch {
      return 'null';
    }
  }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom(
    '{"__proto__":{"order_id":"1","result":true,"list":[]}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
    `{"list":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
    '{"a":1,"a":2}',
    '\uFEFF[]',
    '[1,]',
    'NaN',
    '',
  ),
);

/** Reply texts for one endpoint: near misses of its fixtures, arbitrary JSON, and wrapped variants. */
export function replyText(fixtureNames: readonly string[]): fc.Arbitrary<string> {
  const fixtures = fixtureNames.map(loadFixture);
  const near = fc.oneof(...fixtures.map(nearMiss));
  return fc.oneof(
    { weight: 5, arbitrary: near },
    { weight: 2, arbitrary: arbitraryJsonText },
    {
      weight: 1,
      arbitrary: near.map((t) => `{"code":"00000","msg":"success","requestTime":1,"data":${t}}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.jsonValue({ maxDepth: 1 }), fc.jsonValue({ maxDepth: 1 }))
        .map(([code, msg]) => JSON.stringify({ code, msg, requestTime: 1, data: null })),
    },
  );
}
