// The LLM journal: the validated result of every finished LLM activity is written to disk, keyed by
// the activity's identity (workflow id, workflow run id, activity id). When Temporal retries an
// activity whose LLM call already finished (the worker crashed, or the server lost the completion),
// the journal answers instead of the LLM: no finished LLM call is ever paid for twice.
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { Context } from '@temporalio/activity';
import { readJson, runDir, safeName, writeJsonAtomic } from './run-files';

/**
 * Where a call's journal lives. Workspace affinity: an activity on the host that owns the workspace
 * (its host queue, or any activity of a run started without a host) journals beside the run, in
 * `<workspace>/.replanner/runs/<runId>/journal/`. A planning call on the endpoint queue may run on any
 * worker, where the workspace's path is not the run's (another machine): it journals in this
 * worker's own state directory (`journalDir`, REPLANNER_STATE_DIR) instead. The trade-off: a retry
 * that lands on the same worker host finds the answer (a worker restart, a server that lost the
 * completion), one that lands on another host does not and asks the LLM again — possible only when
 * a worker dies in the milliseconds between a planning reply and its report to Temporal (the
 * worker step, whose tools run long after its LLM call, always journals beside the run).
 */
export function journalRoot(run: { workspace: string; runId: string; host?: string }, activityQueue: string, journalDir: string): string {
  const onHost = run.host === undefined || activityQueue.endsWith(`@${run.host}`);
  return onHost ? runDir(run.workspace, run.runId) : path.join(journalDir, 'runs', safeName(run.runId));
}

/**
 * `journalOf`: a call made again after its workspace host was lost names the lost call's activity id
 * (CallAgainPatch, src/workflows/llm-trouble.ts), so a reply that call journaled before the host died
 * answers this one. Only an id of this same workflow execution: the identity keeps its workflow and run ids.
 */
export async function journaled<T>(root: string, compute: () => Promise<T>, journalOf?: unknown): Promise<T> {
  const info = Context.current().info;
  const activityId = typeof journalOf === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(journalOf) ? journalOf : info.activityId;
  const wf = info.workflowExecution ?? { workflowId: 'standalone', runId: info.activityId };
  // S4: the full identity of the activity execution (workflow id, the whole run id, activity id;
  // attempt-independent), hashed to a fixed-length name. A prefix of the run id is not enough: the
  // server's run ids are time-ordered, so two runs with the same workflow id started within about a
  // minute share their first characters, and the second would replay the first one's answers.
  const identity = JSON.stringify([wf.workflowId, wf.runId, activityId]);
  const key = `${safeName(info.activityType)}.${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
  const file = path.join(root, 'journal', `${key}.json`);
  const hit = await readJson<{ value: T }>(file);
  if (hit) {
    Context.current().log.info('LLM journal hit: reusing a finished call', { activityType: info.activityType });
    return hit.value;
  }
  const value = await compute();
  await writeJsonAtomic(file, { activityType: info.activityType, workflowId: wf.workflowId, runId: wf.runId, activityId, value });
  return value;
}
