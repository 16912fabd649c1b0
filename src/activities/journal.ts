// The LLM journal: the validated result of every finished LLM activity is written to disk, keyed by
// the activity's identity (workflow id, workflow run id, activity id). When Temporal retries an
// activity whose LLM call already finished (the worker crashed, or the server lost the completion),
// the journal answers instead of the LLM: no finished LLM call is ever paid for twice.
import * as path from 'node:path';
import { Context } from '@temporalio/activity';
import { readJson, runDir, safeName, writeJsonAtomic } from './run-files';

export async function journaled<T>(workspace: string, runId: string, compute: () => Promise<T>): Promise<T> {
  const info = Context.current().info;
  const wf = info.workflowExecution ?? { workflowId: 'standalone', runId: info.activityId };
  const key = safeName(`${wf.workflowId}.${wf.runId.slice(0, 8)}.${info.activityId}`);
  const file = path.join(runDir(workspace, runId), 'journal', `${key}.json`);
  const hit = await readJson<{ value: T }>(file);
  if (hit) {
    Context.current().log.info('LLM journal hit: reusing a finished call', { activityType: info.activityType });
    return hit.value;
  }
  const value = await compute();
  await writeJsonAtomic(file, { activityType: info.activityType, value });
  return value;
}
