import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const WALL_CLOCK = [
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: 'Read the time from the injected clock (src/clock.ts), never from the wall clock.',
  },
  {
    selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
    message: 'Read the time from the injected clock (src/clock.ts), never from the wall clock.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', ...WALL_CLOCK],
    },
  },
  {
    // Domain code reads wall time only through the context's port (docs/architecture.md, "Two clocks").
    files: ['src/modules/**', 'src/billing/**', 'src/core/**', 'src/readModels/**'],
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
    // Rows stop at the repository: a service reads domain types, never a row's snake_case columns
    // (docs/architecture.md, "Rows stop at the repository").
    files: ['src/modules/**/*.service.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...WALL_CLOCK,
        {
          selector: 'MemberExpression[computed=false][property.name=/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/]',
          message:
            'A service reads domain types: map the row in its repository (docs/architecture.md, "Rows stop at the repository").',
        },
      ],
    },
  },
  {
    // A use case reads as a list of named steps (docs/architecture.md, "Use cases read as steps"). Exempt, as lists
    // of their own: an API module's route table (*.routes.ts: one registration after another, each handler parsing,
    // calling one use case and serializing, so their number alone makes the function long), PDF drawing (one
    // statement per thing drawn) and frozen migrations. The composition root (src/app.ts), the CLI's command tables
    // (src/cli/**) and the portal's pages (*.pages.ts) are not exempt: buildApp calls one named step per part of
    // the app, a command's action is a named function, and a page's routes call the page functions of *Page.ts.
    files: ['src/**/*.ts', 'scripts/**/*.ts'],
    ignores: [
      '**/*.test.ts',
      '**/*.fixtures.ts',
      'src/**/*.routes.ts',
      'src/**/*Pdf.ts',
      'src/pdf/**',
      'src/storage/migrations/**',
    ],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
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
