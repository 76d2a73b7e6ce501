// The committed JSON Schemas of the example strategies' params (strategies/schemas/) must match what
// scripts/strategy-schemas.ts generates from the strategies' zod schemas.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

describe('strategy params JSON Schemas', () => {
  it('are up to date (node bin/run-ts.js scripts/strategy-schemas.ts --check)', async () => {
    const r = await new Promise<{ code: number; out: string }>((done) => {
      execFile(
        process.execPath,
        [join(ROOT, 'bin', 'run-ts.js'), 'scripts/strategy-schemas.ts', '--check'],
        { cwd: ROOT },
        (err, stdout, stderr) => {
          done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr });
        },
      );
    });
    expect(r.out).toContain('ok: 4 strategy schemas are up to date');
    expect(r.code).toBe(0);
  });

  it('describe every param with its default', () => {
    for (const name of ['ema-cross', 'grid', 'market-maker', 'mean-reversion']) {
      const doc = JSON.parse(
        readFileSync(join(ROOT, 'strategies', 'schemas', `${name}.schema.json`), 'utf8'),
      ) as {
        properties: Record<string, { description?: string; default?: unknown }>;
        additionalProperties: boolean;
      };
      expect(doc.additionalProperties).toBe(false);
      for (const [key, p] of Object.entries(doc.properties)) {
        expect(p.description, `${name}.${key}`).toMatch(/Default: /);
        expect(p.default, `${name}.${key}`).toBeDefined();
      }
    }
  });
});
