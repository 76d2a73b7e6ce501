// The config loader fed arbitrary text, YAML-shaped noise and near misses of config/example.yaml:
// only ConfigError (with a bounded, one-line-ish message) may come out, whatever the input — YAML
// syntax errors, tags, anchors and aliases, merge keys, deep nesting, odd numbers, `${...}`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfigText } from '../../src/config/index.ts';
import type { Env } from '../../src/config/index.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { attempt, expectTypedOnly } from './support/typed.ts';

const ROOT = join(import.meta.dirname, '../..');
const EXAMPLE = readFileSync(join(ROOT, 'config/example.yaml'), 'utf8');
const ENV: Env = {
  CAPIBOT_STORE: 'var/x.sqlite',
  EMPTY: '',
  SELF: '${SELF}',
  NUM: '1e999',
  YAMLISH: '{a: [1, *x]}',
  LONG: 'x'.repeat(10_000),
};

function check(text: string): void {
  const o = attempt(() => parseConfigText(text, 'fuzz.yaml', ENV));
  expectTypedOnly(o, [ConfigError]);
  if (!o.ok) expect((o.error as Error).message.length).toBeLessThan(20_000);
}

const KEYS = [
  'mode',
  'strategies',
  'id',
  'file',
  'params',
  'enabled',
  'paper',
  'backtest',
  'risk',
  'maxOpenOrders',
  'makerFee',
  'store',
  'path',
  'metrics',
  'port',
  'log',
  'level',
  'exchange',
  'baseUrl',
  'credentials',
  'apiKey',
  'secret',
  'passphrase',
  '__proto__',
  'constructor',
  '<<',
  '"quoted key"',
  '? [complex]',
  '1',
  '~',
  '""',
  '*alias',
  '&anchor key',
  '!!str tagged',
];
const SCALARS = [
  'paper',
  'live',
  'backtest',
  '0',
  '-1',
  '1.5',
  '1e999',
  '-.inf',
  '.nan',
  '0x1F',
  '0o17',
  '1_000',
  '123456789012345678901234567890',
  '0.000000000000000000000000001',
  '2001-12-14t21:59:43.10-05:00',
  '~',
  'null',
  'yes',
  'NO',
  "'single'",
  '"double \\u0000 \\x41 \\uD800"',
  '"unterminated',
  '${CAPIBOT_STORE}',
  '${UNSET}',
  '${UNSET:-fallback}',
  '${EMPTY:-}',
  '${',
  '$${literal}',
  '${bad name}',
  '${SELF}',
  '${LONG}',
  '${YAMLISH}',
  '!!binary aGVsbG8=',
  '!!timestamp 2001-12-14',
  '!!set {a, b}',
  '!!omap [a: 1]',
  '!!js/function "x"',
  '!custom x',
  '!!int "x"',
  '!!float abc',
  '&a value',
  '*a',
  '*missing',
  '[a, b, {c: d}]',
  '{a: 1, a: 2}',
  '[',
  '{',
  '|',
  '>-',
  '- item',
  'a: b: c',
  '"\\t tab"',
  '#comment',
  'strategies/ema-cross.ts',
  '\t',
  '\u00a0',
  '\ufeff',
  'é\u0301',
];

/** YAML-shaped text: lines of `indent key: value`, list items, document markers and comments. */
const yamlish: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .tuple(fc.nat({ max: 6 }), fc.constantFrom(...KEYS), fc.constantFrom(...SCALARS, ''))
          .map(([i, k, v]) => `${' '.repeat(i * 2)}${k}: ${v}`),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.nat({ max: 6 }), fc.constantFrom(...SCALARS))
          .map(([i, v]) => `${' '.repeat(i * 2)}- ${v}`),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '---',
          '...',
          '%YAML 1.2',
          '%TAG ! tag:x,2000:',
          '# c',
          '',
          '\t- x',
          'a:\n\tb: 1',
        ),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
    ),
    { maxLength: 25 },
  )
  .map((lines) => lines.join('\n'));

/** config/example.yaml with 1-3 lines edited: value replaced, line deleted, duplicated or re-indented. */
const nearMissExample: fc.Arbitrary<string> = (() => {
  const lines = EXAMPLE.split('\n');
  const edit = fc.tuple(
    fc.nat({ max: lines.length - 1 }),
    fc.nat({ max: 4 }),
    fc.constantFrom(...SCALARS),
    fc.nat({ max: 5 }),
  );
  return fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => {
    const out = [...lines];
    for (const [at, kind, scalar, indent] of edits) {
      const line = out[at] ?? '';
      const colon = line.indexOf(': ');
      switch (kind) {
        case 0:
          out[at] = colon === -1 ? `${line} ${scalar}` : `${line.slice(0, colon + 2)}${scalar}`;
          break;
        case 1:
          out.splice(at, 1);
          break;
        case 2:
          out.splice(at, 0, line);
          break;
        case 3:
          out[at] = `${' '.repeat(indent)}${line.trimStart()}`;
          break;
        default:
          out[at] = `${line.slice(0, Math.max(0, line.length - indent))}`;
      }
    }
    return out.join('\n');
  });
})();

describe('config loader under hostile text', () => {
  it('the example config itself loads (the near misses start from a valid file)', () => {
    expect(attempt(() => parseConfigText(EXAMPLE, 'example.yaml', ENV)).ok).toBe(true);
  });

  it('arbitrary strings → a config or ConfigError', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ maxLength: 300 })),
        check,
      ),
      { numRuns: 300 },
    );
  });

  it('YAML-shaped noise (tags, anchors, aliases, merge keys, directives, ${...}) → a config or ConfigError', () => {
    fc.assert(fc.property(yamlish, check), { numRuns: 300 });
  });

  it('near misses of config/example.yaml → a config or ConfigError', () => {
    fc.assert(fc.property(nearMissExample, check), { numRuns: 300 });
  });

  it('structural extremes → ConfigError', () => {
    const extremes = [
      `strategies: ${'['.repeat(20_000)}${']'.repeat(20_000)}`,
      Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n'),
      'a: &a [*a]\nstrategies: []',
      'a: &a\n  <<: *a\nstrategies: []',
      `mode: ${'9'.repeat(1_000_000)}`,
      '\u0000\u0001\u0002',
      '\uFEFF\uFEFFmode: paper',
      '---\n---\n---',
      '%YAML 9.9\n---\nmode: paper',
    ];
    for (const t of extremes) {
      const o = attempt(() => parseConfigText(t, 'x.yaml', ENV));
      expect(o.ok).toBe(false);
      expectTypedOnly(o, [ConfigError]);
    }
  });

  it('files that are not config files → ConfigError', () => {
    for (const p of [
      join(ROOT, 'does-not-exist.yaml'),
      join(ROOT, 'config'),
      join(ROOT, 'test/fixtures/recordings/sim-small.ndjson'),
    ]) {
      const o = attempt(() => loadConfig(p, ENV));
      expect(o.ok).toBe(false);
      expectTypedOnly(o, [ConfigError]);
    }
  });

  // Regression: a "billion laughs" document of a dozen lines expanded exponentially (6 levels of 10
  // aliases took 45 s and 570 MB); the walker in yaml-tree.ts now caps expanded values and throws
  // a ConfigError. Run in a child process, which is
  // killed at the limit, because the expansion is synchronous and would block the test runner.
  it('a billion-laughs alias bomb → ConfigError, promptly (child process)', async () => {
    const lines = ['l0: &l0 [lol]'];
    for (let i = 1; i <= 9; i++)
      lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
    lines.push('strategies: []');
    const result = await runChild(lines.join('\n'), 5_000);
    expect(result, 'the config loader was still expanding aliases when killed').not.toBe('killed');
    expect(result).toBe('config-error');
  });
});

/** Runs support/config-child.ts on `text`; resolves with its outcome, or 'killed' past `limitMs`. */
function runChild(text: string, limitMs: number): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'support/config-child.ts')],
      {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    let out = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('close', () => {
      clearTimeout(timer);
      if (killed) return resolve('killed');
      try {
        resolve(String((JSON.parse(out.trim()) as { outcome: unknown }).outcome));
      } catch {
        resolve(`no result (${out.slice(0, 100)})`);
      }
    });
    child.stdin.end(text);
  });
}
