// V1 in the Temporal Web UI itself: a real browser (Debian's Chromium, playwright-core) opens the
// run's page on the jest run's dev server and reads what a person sees.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { startRun } from '../../src/client/runs';
import { FAST, runOutcome, startHarness, uniqueId, type Harness } from '../support/harness';
import { scriptScenario } from '../support/scenario';
import { launchBrowser, openWorkflowTab, waitForText } from '../support/web-ui';

let h: Harness;
let browser: Browser;
beforeAll(async () => {
  h = await startHarness();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

/** Where the screenshots go (REPLANNER_SCREENSHOTS, else a temporary directory); named in the test log. */
function screenshotPath(name: string): string {
  const dir = process.env.REPLANNER_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-web-ui-'));
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

describe('the run in the Temporal Web UI', () => {
  it('V1 the run page shows the instruction as details and the X11 checklist as current details and in the memo', async () => {
    scriptScenario(h.fake, {
      tasks: [
        { id: 'schema', title: 'write the schema', files: { 'schema.txt': 'S' } },
        { id: 'api', title: 'write the api', dependencies: ['schema'], files: { 'api.txt': 'A' } },
      ],
    });
    const runId = uniqueId('webui');
    const instruction = 'build the schema and the api for the web ui test';
    // Started the way the CLI and the client library start a run (its static summary and details).
    const { handle } = await startRun(h.client, {
      runId,
      instruction,
      workspace: h.workspace(),
      taskQueue: h.taskQueue,
      options: FAST,
      holdWorkspace: true,
    });
    expect((await runOutcome(handle)).status).toBe('DONE');

    const page = await browser.newPage({ viewport: { width: 1400, height: 1400 } });
    try {
      // Current details are answered by the worker (still running here).
      await openWorkflowTab(page, handle.workflowId, 'User Metadata');
      const metadata = await waitForText(page, [
        instruction,
        'Status: DONE',
        'Execution Plan',
        'write the schema',
        'write the api',
        'Progress: 2/2 (100%) complete',
      ]);
      const shot = screenshotPath(`${runId}-user-metadata.png`);
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`V1 Web UI screenshot: ${shot}\n--- page text ---\n${metadata.slice(0, 3000)}`);

      // The memo keeps the same checklist for when no worker answers.
      await openWorkflowTab(page, handle.workflowId, 'Memo');
      await waitForText(page, ['Execution Plan', 'Progress: 2/2 (100%) complete']);
      await page.screenshot({ path: screenshotPath(`${runId}-memo.png`), fullPage: true });
    } finally {
      await page.close();
    }
  });
});
