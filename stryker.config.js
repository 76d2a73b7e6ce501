// Mutation testing of the safety kernels (issue #25; see TESTING.md). Run with
// `npm run test:mutation [FILE...]` (scripts/mutation/run.js), which mutates each kernel on its own,
// against ONLY the test files listed for it here.
//
// KERNELS is the one place the kernels are named: add a pure kernel by adding one line,
//   'src/core/money.ts': ['test/core/money*.test.ts'],
// (test globs are vitest `include` patterns, relative to the repository root).

/** Pure kernel file → its own unit and property tests. */
export const KERNELS = {
  'src/core/order-transitions.ts': ['test/core/order-transitions*.test.ts'],
  'src/core/order-reducer.ts': [
    'test/core/order-reducer*.test.ts',
    'test/core/order-transitions.plans.test.ts',
  ],
  'src/reconcile/kernel.ts': ['test/reconcile/kernel*.test.ts', 'test/reconcile/model.property.test.ts'],
  'src/execution/planner.ts': ['test/execution/planner*.test.ts'],
  'src/execution/budget.ts': ['test/execution/budget.test.ts', 'test/execution/budget.*.test.ts'],
  'src/execution/budget-groups.ts': ['test/execution/budget-groups*.test.ts'],
  'src/reconcile/fast-forward.ts': ['test/reconcile/fast-forward*.test.ts'],
  'src/strategy/testing/deferred-reads.ts': ['test/strategy/deferred-reads*.test.ts'],
  'src/core/fixed-decimal.ts': ['test/core/fixed-decimal*.test.ts'],
  'src/core/decimal.ts': ['test/core/decimal*.test.ts', 'test/core/fixed-decimal.rules.test.ts'],
  'src/risk/closable.ts': ['test/risk/closable*.test.ts'],
  'src/reconcile/plan-rows.ts': ['test/reconcile/plan-rows*.test.ts'],
  'src/engine/account-totals.ts': ['test/engine/account-totals*.test.ts'],
  'src/core/float-screen.ts': ['test/core/float-screen*.test.ts'],
  'src/store/compact-id-set.ts': ['test/store/compact-id-set*.test.ts'],
  'src/strategy/place-fields.ts': ['test/strategy/place-fields.test.ts'],
  'src/reconcile/round-orders.ts': [
    'test/reconcile/round-orders.test.ts',
    'test/reconcile/round-orders.property.test.ts',
    'test/reconcile/kernel.property.test.ts',
  ],
  'src/core/small-sort.ts': ['test/core/small-sort*.test.ts'],
};

/** Minimum score (killed + timeout over everything not ignored) per kernel; the runner checks it. */
export const THRESHOLDS = {
  default: 90,
  'src/core/order-reducer.ts': 95,
  'src/reconcile/kernel.ts': 95,
};

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner', './scripts/mutation/ignorers.js'],
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  // Log, error and anomaly texts and case labels are not mutated (scripts/mutation/ignorers.js); codes are.
  ignorers: ['prose', 'case-labels'],
  coverageAnalysis: 'perTest',
  concurrency: 1,
  // A mutant that loops forever is caught after this much on top of its tests' own time (× 1.5).
  timeoutMS: 3_000,
  mutate: Object.keys(KERNELS),
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowEmojis: false, logTests: false, reportMutants: false, reportScoreTable: true },
  tempDirName: '.tmp/stryker',
  ignorePatterns: ['data', 'bench', 'docs', 'deploy', 'reports', 'var', 'coverage', '.tmp', '*.sqlite*'],
  cleanTempDir: true,
};
