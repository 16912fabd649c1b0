// Two projects (docs/development.md, "Tests"). `unit`: pure and fast, no server, no workflow bundle
// (`npm run test:unit`). `workflows`: one real Temporal dev server and one workflow bundle for the
// whole run (test/support/global-setup.ts). Types are checked by tsc, not by ts-jest.
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
};

module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/test/unit'],
      testMatch: ['**/*.test.ts'],
    },
    {
      ...shared,
      displayName: 'workflows',
      roots: ['<rootDir>/test/workflows', '<rootDir>/test/e2e', '<rootDir>/test/cluster'],
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  testTimeout: 120000,
  maxWorkers: 2,
};
