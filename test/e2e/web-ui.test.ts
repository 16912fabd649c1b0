// V1 in the Temporal Web UI itself: a real browser (Debian's Chromium, playwright-core) opens the
// run's page on the jest run's dev server and reads what a person sees.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { startRun } from '../../src/client/runs';
import { answerClarificationUpdate, type DecisionsView } from '../../src/workflows/messages';
import { STATUS_KEY } from '../../src/workflows/search-attributes';
import { workspaceLockId } from '../../src/client/workspace-lock';
import { FAST, runOutcome, startHarness, uniqueId, until, type Harness } from '../support/harness';
import { scriptOneQuestionRun, scriptScenario } from '../support/scenario';
import { launchBrowser, openWorkflowTab, waitForText, webUiUrl } from '../support/web-ui';

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

  it("V1 the root list shows the run and not its workspace lock; the waiting run's page shows the question and how to answer it", async () => {
    h.fake.reset();
    scriptOneQuestionRun(h.fake, 'Which format should the report use?');
    const runId = uniqueId('webwait');
    const workspace = h.workspace();
    const { handle } = await startRun(h.client, {
      runId,
      instruction: 'write the report',
      workspace,
      taskQueue: h.taskQueue,
      options: FAST,
      holdWorkspace: true,
    });
    const lockId = await workspaceLockId(workspace);
    await until('the question to wait', async () =>
      (await handle.describe()).typedSearchAttributes.get(STATUS_KEY) === 'WAITING' ? true : undefined,
    );
    expect((await h.client.workflow.getHandle(lockId).describe()).parentExecution?.workflowId).toBe(handle.workflowId);

    const page = await browser.newPage({ viewport: { width: 1400, height: 1400 } });
    try {
      // The list of root workflows: the UI's own "Parent" view. The run is there; its lock is not.
      await page.goto(`${webUiUrl()}/namespaces/default/workflows`, { waitUntil: 'domcontentloaded' });
      await page.getByText('Parent', { exact: true }).first().click();
      const list = await waitForText(page, ['ParentWorkflowId is null', handle.workflowId, 'RunWorkflow']);
      expect(list).not.toContain(lockId);
      expect(list).not.toContain('WorkspaceLockWorkflow');
      console.log(`V1 the Web UI's root list (its "Parent" view):\n--- page text ---\n${list.replace(/\n\s*\n+/g, '\n').slice(0, 3000)}`);
      await page.screenshot({ path: screenshotPath(`${runId}-root-list.png`), fullPage: true });

      // The waiting run's page: the question, and the three ways to answer it.
      await openWorkflowTab(page, handle.workflowId, 'User Metadata');
      const waiting = await waitForText(page, [
        'Waiting for your answer',
        'question q1 (clarification)',
        'Which format should the report use?',
        'More Actions → Send a Signal',
        'signal name answer, data {"questionId":"q1","answer":"<your answer>"}, encoding json/plain',
        `npx replanner answer ${runId} q1 "<your answer>"`,
        `npx replanner temporal workflow update execute --workflow-id ${handle.workflowId} --name answerClarification`,
        'Status: WAITING',
      ]);
      console.log(`V1 the waiting run's page:\n--- page text ---\n${waiting.replace(/\n\s*\n+/g, '\n').slice(0, 4000)}`);
      await page.screenshot({ path: screenshotPath(`${runId}-waiting.png`), fullPage: true });

      // Answered as the page says: More Actions → Send a Signal, the `answer` signal, the JSON as data.
      await page.getByRole('button', { name: 'More Actions' }).click();
      await page.locator('text="Send a Signal" >> visible=true').first().click();
      const dialog = page.locator('dialog[open]', { hasText: 'Send a Signal' });
      await dialog.getByTestId('signal-select-button').click();
      await dialog.locator('li[role=option]', { has: page.locator('span', { hasText: /^answer$/ }) }).click();
      await dialog.locator('[contenteditable][aria-label="Data"]').click();
      // insertText: the editor's bracket and quote auto-closing would double what keystrokes type.
      await page.keyboard.insertText('{"questionId":"q1","answer":"JSON"}');
      // The UI selects no encoding by itself: the page says json/plain.
      await dialog.locator('label', { hasText: 'json/plain' }).click();
      await dialog.getByTestId('confirm-modal-button').click();
      const answered = await until('q1 answered from the Web UI', async () => {
        const q = (await handle.query<DecisionsView>('decisions')).questions.find((x) => x.id === 'q1');
        return q?.status === 'answered' ? q : undefined;
      });
      expect(answered.answer).toBe('JSON');
      // The Web UI sent it as a person would: one json/plain payload of the typed text.
      const sent = (await handle.fetchHistory()).events?.find((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'answer');
      const payload = sent?.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0];
      expect(Buffer.from(payload?.metadata?.encoding ?? []).toString()).toBe('json/plain');
      expect(JSON.parse(Buffer.from(payload?.data ?? []).toString())).toEqual({ questionId: 'q1', answer: 'JSON' });
      // A second answer from elsewhere is refused with the reason; the first stands.
      const refused = await handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: 'q1', answer: 'CSV' }] }).then(
        () => 'taken',
        (e: Error & { cause?: { message?: string } }) => e.cause?.message ?? e.message,
      );
      expect(refused).toContain('it was already answered: "JSON"');
      expect((await handle.query<DecisionsView>('decisions')).questions[0]).toMatchObject({ status: 'answered', answer: 'JSON' });
      expect((await runOutcome(handle)).status).toBe('DONE');
    } finally {
      await page.close();
      await handle.cancel().catch(() => undefined);
    }
  });
});
