// ESLint: type-aware typescript-eslint plus the import rules that keep the architecture honest
// (docs/architecture.md, "Layers"): workflows run in Temporal's sandbox and see activities only as
// types; src/domain is pure policy with no Temporal and no I/O, and imports only src/domain.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

// Every Node builtin, bare ('fs', 'fs/promises', 'child_process', …) and with the node: scheme.
const NODE_BUILTINS = [...new Set(builtinModules.filter((m) => !m.startsWith('_')).map((m) => m.replace(/^node:/, '')))];
const nodeBuiltins = (why) => ({
  paths: NODE_BUILTINS.map((name) => ({ name, message: why })),
  patterns: [{ regex: '^node:', message: why }],
});

const WORKFLOW_SANDBOX = 'Workflow code runs in the Temporal sandbox: no Node builtins (do the I/O in an activity).';
const ACTIVITIES_AS_TYPES =
  'Workflows see activities only through `import type` + proxyActivities (docs/architecture.md); a value import drags activity code into the workflow bundle.';
const workflowImports = nodeBuiltins(WORKFLOW_SANDBOX);
workflowImports.paths.push(
  { name: 'openai', message: 'The OpenAI client does I/O: call it from an activity (`import type` is fine).', allowTypeImports: true },
  { name: '@temporalio/activity', message: 'Activity APIs do not work in workflow code.', allowTypeImports: true },
  { name: '@temporalio/client', message: 'Use @temporalio/workflow APIs in workflow code.', allowTypeImports: true },
  { name: '@temporalio/worker', message: 'The worker package is not sandbox-safe.', allowTypeImports: true },
);
workflowImports.patterns.push(
  { regex: '^openai/', message: 'The OpenAI client does I/O: call it from an activity (`import type` is fine).', allowTypeImports: true },
  {
    regex: '^@(octokit|gitbeaker)/',
    message: 'The GitHub / GitLab clients do I/O: call them from an activity (src/activities/notifications).',
    allowTypeImports: true,
  },
  // ../activities, ../activities/index, ../activities/tools/…, ../../src/activities, …
  { regex: '^(\\.{1,2}/)+(src/)?activities(/.*)?$', message: ACTIVITIES_AS_TYPES, allowTypeImports: true },
  { regex: '^(\\.{1,2}/)+(src/)?llm/gateway(\\.ts)?$', message: `The LLM gateway does I/O. ${ACTIVITIES_AS_TYPES}`, allowTypeImports: true },
);

const DOMAIN_PURE = 'src/domain is pure policy (docs/architecture.md): no Temporal, no I/O. Put adapters in activities, client or workflows.';
const DOMAIN_ONLY =
  'src/domain imports only src/domain (docs/architecture.md, "Layers"): not ../llm, ../activities, ../workflows, ../client or anything else outside it. Move the type into the domain, or invert the dependency.';
const domainImports = (leaving) => {
  const rules = nodeBuiltins(DOMAIN_PURE);
  rules.patterns.push({ group: ['@temporalio/*', '@octokit/*', '@gitbeaker/*'], message: DOMAIN_PURE });
  rules.patterns.push({ regex: leaving, message: DOMAIN_ONLY }, { regex: '^replanner(/|$)', message: DOMAIN_ONLY });
  return rules;
};
// A relative import leaves src/domain when it climbs more folders than the file is deep below it:
// '../' from src/domain/x.ts, '../../' from src/domain/run/x.ts, … (one block per depth). Type
// imports count: a type import is an arrow between layers too.
const leavingDomain = (depth) => `^(\\.\\./){${depth + 1}}`;
const domainDepthGlob = (depth) => `src/domain/${'*/'.repeat(depth)}*.ts`;
const DOMAIN_DEPTHS = [0, 1, 2, 3];

export default defineConfig(
  globalIgnores(['dist/', 'node_modules/', '.tools/', 'coverage/', 'test/fixtures/', '.replanner/']),

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Real bug-finders, kept (and made explicit).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // tsc already reports unused locals/parameters (noUnusedLocals/Parameters); one report is enough.
      '@typescript-eslint/no-unused-vars': 'off',
      // Async functions without await are deliberate here (Promise-returning interfaces, update
      // handlers, stubs); forgotten awaits are what no-floating-promises catches.
      '@typescript-eslint/require-await': 'off',
    },
  },

  // Tests and benchmarks read untyped JSON all the time (recorded request bodies, jest matchers,
  // fake servers): `any` there is the point, and the no-unsafe-* rules would flag every use.
  // Product code (src/) keeps them: an `any` there must be validated (zod) before use.
  {
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },

  // Plain JS (CommonJS entry points, configs): no type information, Node globals.
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        exports: 'writable',
        __dirname: 'readonly',
        __filename: 'readonly',
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },

  // Workflows: sandboxed and deterministic; activities, the gateway and openai only as types.
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', workflowImports],
    },
  },

  // Domain: pure policy, table-tested, importing only the domain.
  ...DOMAIN_DEPTHS.map((depth) => ({
    files: [domainDepthGlob(depth)],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', domainImports(leavingDomain(depth))],
    },
  })),
);
