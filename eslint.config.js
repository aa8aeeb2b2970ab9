import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read the time from the injected clock (src/clock.ts), never from the wall clock.',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Read the time from the injected clock (src/clock.ts), never from the wall clock.',
        },
      ],
    },
  },
  {
    // Domain code reads wall time only through the context's port (docs/architecture.md, "Two clocks").
    files: ['src/modules/**', 'src/billing/**', 'src/core/**', 'src/views/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)clock\\.ts$',
              importNames: ['systemClock'],
              message:
                'Read wall time from ctx.wallClock (or a Clock the caller passes in), business time from ctx.clock; only entry points choose systemClock.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/clock.ts', 'test/**', 'bench/**', 'bin/**', 'scripts/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // Tests read response bodies loosely; the assertions are the type checks there.
    files: ['test/**', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
