// Vitest configuration for mutation runs (scripts/mutation/run.js): the same as vitest.config.ts, but
// running only the mutated kernel's own test files, named by CAPIBOT_MUTATION_TESTS (comma-separated
// globs taken from stryker.config.js).
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

const tests = (process.env['CAPIBOT_MUTATION_TESTS'] ?? '').split(',').filter((s) => s !== '');

export default defineConfig({
  ...base,
  test: { ...base.test, ...(tests.length > 0 ? { include: tests } : {}) },
});
