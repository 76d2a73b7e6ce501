import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Ambient time and randomness are banned in pure and engine code: time, ids and randomness are
// injected (Clock, scheduler, seeded RNG). The composition root (src/cli), the observability edge
// and the system adapters may use them.
const ambient = [
  { object: 'Date', property: 'now', message: 'Inject a Clock instead of Date.now().' },
  { object: 'Math', property: 'random', message: 'Inject a seeded RNG instead of Math.random().' },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'reports/', 'data/', 'coverage/', '.tmp/', 'var/', '**/*.js', '!eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['src/core/**', 'src/risk/**', 'src/execution/**', 'src/reconcile/**', 'src/strategy/**', 'src/engine/**', 'src/backtest/**', 'strategies/**'],
    rules: { 'no-restricted-properties': ['error', ...ambient] },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**', 'strategies/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-restricted-properties': 'off',
    },
  },
  {
    files: ['src/cli/output.ts', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
);
