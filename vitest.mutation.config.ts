// Vitest configuration for mutation runs (scripts/mutation/run.js): the same as vitest.config.ts, but
// running only the mutated kernel's own test files, named by CAPIBOT_MUTATION_TESTS (comma-separated
// globs taken from stryker.config.js), example-based files before property-based ones: Stryker stops
// at the first failing test, so a mutant an example kills is not first run through every property.
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

const tests = (process.env['CAPIBOT_MUTATION_TESTS'] ?? '').split(',').filter((s) => s !== '');

class ExamplesFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification): number => (/\.property\.test\.ts$/.test(f.moduleId) ? 1 : 0);
    return Promise.resolve(
      [...files].sort((a, b) => rank(a) - rank(b) || (a.moduleId < b.moduleId ? -1 : 1)),
    );
  }
}

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    ...(tests.length > 0 ? { include: tests } : {}),
    sequence: { sequencer: ExamplesFirst },
  },
});
