// Recording workflow histories for the replay (determinism) test. `npm run record-histories`
// re-records them from the workflow tests that call saveHistories().
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';

export const HISTORIES_DIR = path.resolve(__dirname, '../fixtures/histories');

/** Saves the histories of the given workflows when RECORD_HISTORIES=1 (a no-op otherwise). */
export async function saveHistories(client: Client, workflowIds: string[]): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  for (const id of workflowIds) {
    await client.workflow
      .getHandle(id)
      .result()
      .catch(() => undefined);
    // The temporal CLI writes the JSON form that Worker.runReplayHistory reads.
    const json = execFileSync(
      process.env.TEMPORAL_CLI_PATH!,
      ['workflow', 'show', '--workflow-id', id, '--address', process.env.TEMPORAL_ADDRESS!, '--output', 'json'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    // The file name is the workflow id: replay must use the same id (child ids derive from it).
    fs.writeFileSync(path.join(HISTORIES_DIR, `${id}.json`), json);
  }
}

/**
 * With RECORD_ALL_HISTORIES=DIR, every closed workflow on the jest run's server is saved to DIR
 * (global teardown): a wide net for picking replay fixtures before a refactor of workflow code.
 */
export async function saveAllHistories(client: Client): Promise<void> {
  const dir = process.env.RECORD_ALL_HISTORIES;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  for await (const wf of client.workflow.list({ query: 'ExecutionStatus != "Running"' })) {
    const json = execFileSync(
      process.env.TEMPORAL_CLI_PATH!,
      ['workflow', 'show', '--workflow-id', wf.workflowId, '--run-id', wf.runId, '--address', process.env.TEMPORAL_ADDRESS!, '--output', 'json'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    fs.writeFileSync(path.join(dir, `${wf.workflowId}@${wf.runId}.json`), json);
  }
}
