import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'strategies/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A TMPDIR of the run's own, removed at its end (test/global-tmpdir.ts).
    globalSetup: ['test/global-tmpdir.ts'],
  },
});
