// The corpus of malformed configs: each test/fixtures/configs/bad/NAME.yaml has its expected one-line
// error in NAME.expected. The line names the file, line:col and YAML path of the problem.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.ts';
import { ConfigError } from '../../src/core/errors.ts';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'configs', 'bad');
const ENV = { CAPIBOT_TEST_WORD: 'many', HOME: '/home/bot' };
const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

function errorOf(file: string): ConfigError {
  try {
    parseConfigText(readFileSync(join(DIR, file), 'utf8'), file, ENV);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error(`${file} was accepted`);
}

describe('malformed configs', () => {
  it('the corpus has at least 30 cases, each with its expected line', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    for (const f of cases) expect(existsSync(join(DIR, f.replace(/\.yaml$/, '.expected'))), f).toBe(true);
  });

  it.each(cases)('%s is refused with its expected one-line error', (file) => {
    const expected = readFileSync(join(DIR, file.replace(/\.yaml$/, '.expected')), 'utf8').trim();
    const err = errorOf(file);
    expect(err.message).toBe(expected);
    expect(err.message).not.toContain('\n');
    expect(err.message.startsWith(`${file}:`), 'names the file first').toBe(true);
    expect(err.message).toMatch(/^[^:]+:\d+:\d+[ :]/);
    expect(err.exitCode).toBe(2);
  });

  it('never echoes a secret written inline', () => {
    for (const [file, secret] of [
      ['26-inline-api-key.yaml', 'bg_4f2a9c7e1d'],
      ['27-inline-passphrase-quoted.yaml', 'correct horse'],
      ['28-inline-token-in-params.yaml', '8f14e45fceea167a'],
      ['29-inline-secret-number.yaml', '123456789'],
    ] as const) {
      expect(errorOf(file).message).not.toContain(secret);
    }
  });
});
