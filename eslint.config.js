import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const both = (name) => [name, `${name}/*`];
const SERVICE_NAMES = ['sentinel', 'identifier', 'effector', 'memory', 'reference-rag'];
const SERVICES = SERVICE_NAMES.flatMap((s) => both(`@rag-immune/${s}`));
const APPS = both('@rag-immune/cli');
const TOOLS = both('@rag-immune/stack');

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '.stack/**', '**/generated/**', 'models/**/.venv/**', 'tools/qdrant-local/**', '**/dist/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // The dependency direction, by package name (scripts/check-boundaries.ts checks every import,
  // relative paths included, in npm run lint).
  {
    files: ['packages/*/src/**/*.ts', 'packages/*/scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: [...SERVICES, ...APPS, ...TOOLS], message: 'a package never imports a service, an app or the dev stack' }] },
      ],
    },
  },
  // The test kit drives the dev stack and the reference RAG like a test: the RAG through its testing subpath only.
  {
    files: ['test/kit/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // Every service and app except the reference RAG's testing subpath.
              regex: `^@rag-immune/(${[...SERVICE_NAMES.filter((s) => s !== 'reference-rag'), 'cli'].join('|')})(/|$)|^@rag-immune/reference-rag(?!/testing$)`,
              message: 'the test kit never imports a service (the reference RAG: @rag-immune/reference-rag/testing) or an app',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['services/*/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: [...SERVICES, ...APPS, ...TOOLS], message: 'a service never imports another service, an app or the dev stack' },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/*/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...SERVICES, ...TOOLS],
              message: 'an app reaches workers over HTTP or through packages, never a service or the dev stack',
            },
          ],
        },
      ],
    },
  },
);
