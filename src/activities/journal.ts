// The LLM journal: the validated result of every finished LLM activity is written to disk, keyed by
// the activity's identity (workflow id, workflow run id, activity id). When Temporal retries an
// activity whose LLM call already finished (the worker crashed, or the server lost the completion),
// the journal answers instead of the LLM: no finished LLM call is ever paid for twice.
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { Context } from '@temporalio/activity';
import { readJson, runDir, safeName, writeJsonAtomic } from './run-files';

export async function journaled<T>(workspace: string, runId: string, compute: () => Promise<T>): Promise<T> {
  const info = Context.current().info;
  const wf = info.workflowExecution ?? { workflowId: 'standalone', runId: info.activityId };
  // S4: the full identity of the activity execution (workflow id, the whole run id, activity id;
  // attempt-independent), hashed to a fixed-length name. A prefix of the run id is not enough: the
  // server's run ids are time-ordered, so two runs with the same workflow id started within about a
  // minute share their first characters, and the second would replay the first one's answers.
  const identity = JSON.stringify([wf.workflowId, wf.runId, info.activityId]);
  const key = `${safeName(info.activityType)}.${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
  const file = path.join(runDir(workspace, runId), 'journal', `${key}.json`);
  const hit = await readJson<{ value: T }>(file);
  if (hit) {
    Context.current().log.info('LLM journal hit: reusing a finished call', { activityType: info.activityType });
    return hit.value;
  }
  const value = await compute();
  await writeJsonAtomic(file, { activityType: info.activityType, workflowId: wf.workflowId, runId: wf.runId, activityId: info.activityId, value });
  return value;
}
