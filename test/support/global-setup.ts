// One real Temporal dev server and one workflow bundle for the whole jest run (docs/development.md, Tests).
// TEMPORAL_ADDRESS set → use that server instead of starting one.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflows } from '../../src/worker';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/workflows/search-attributes';
import { freePort } from './dev-server';
import { devServerDynamicConfigArgs } from './dev-server-config';

export default async function globalSetup(): Promise<void> {
  const root = path.resolve(__dirname, '../..');
  const cli = execFileSync('bash', [path.join(root, 'scripts/ensure-temporal')], { encoding: 'utf8' }).trim();
  process.env.TEMPORAL_CLI_PATH = cli;
  if (!process.env.TEMPORAL_ADDRESS) {
    // The Web UI too (V1: test/e2e/web-ui.test.ts opens a run's page in a real browser).
    const uiPort = await freePort();
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: cli },
        ui: true,
        uiPort,
        searchAttributes: SEARCH_ATTRIBUTE_KEYS,
        extraArgs: ['--log-level', 'error', ...devServerDynamicConfigArgs()],
      },
    });
    (globalThis as { __replannerTemporal?: TestWorkflowEnvironment }).__replannerTemporal = env;
    process.env.TEMPORAL_ADDRESS = env.address;
    process.env.REPLANNER_TEST_UI_URL = `http://127.0.0.1:${uiPort}`;
  }
  const bundle = await bundleWorkflows();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-bundle-')), 'workflows.js');
  fs.writeFileSync(file, bundle.code);
  process.env.REPLANNER_TEST_BUNDLE = file;
}
