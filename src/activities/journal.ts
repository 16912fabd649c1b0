// The LLM journal: every LLM activity's reply is written to disk the moment it is complete, before
// anything checks it, keyed by the activity's identity (workflow id, workflow run id, activity id).
// When Temporal retries an activity whose LLM call already got its reply (the worker crashed while
// checking it or before reporting it, or the server lost the completion), the retry checks the
// journaled reply instead of asking the LLM: no reply is ever paid for twice. A reply that fails its
// check is taken out again, so the retry asks anew (a bad reply is retried with a new request).
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { Context } from '@temporalio/activity';
import { readJson, removeJournaled, runDir, safeName, writeJsonAtomic } from './run-files';

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

/** A journal entry: a reply (kept since replies are journaled before their check) or, from before, a checked value. */
interface Entry<T, R> {
  activityType: string;
  workflowId: string;
  runId: string;
  activityId: string;
  value?: T;
  reply?: R;
}

/**
 * The journal file of the current activity. `journalOf`: a call made again after its workspace host
 * was lost names the lost call's activity id (CallAgainPatch, src/workflows/llm-trouble.ts), so a
 * reply that call journaled before the host died answers this one. Only an id of this same workflow
 * execution: the identity keeps its workflow and run ids.
 */
function journalFile(root: string, journalOf: unknown): { file: string; head: Omit<Entry<never, never>, 'value' | 'reply'> } {
  const info = Context.current().info;
  const activityId = typeof journalOf === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(journalOf) ? journalOf : info.activityId;
  const wf = info.workflowExecution ?? { workflowId: 'standalone', runId: info.activityId };
  // No two runs share an answer: the full identity of the activity execution (workflow id, the
  // whole run id, activity id; attempt-independent), hashed to a fixed-length name. A prefix of the
  // run id is not enough: the server's run ids are time-ordered, so two runs with the same workflow
  // id started within about a minute share their first characters, and the second would replay the
  // first one's answers.
  const identity = JSON.stringify([wf.workflowId, wf.runId, activityId]);
  const key = `${safeName(info.activityType)}.${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
  return {
    file: path.join(root, 'journal', `${key}.json`),
    head: { activityType: info.activityType, workflowId: wf.workflowId, runId: wf.runId, activityId },
  };
}

/** A value computed once per activity identity (see journalFile): a retry gets the journaled one. */
export async function journaled<T>(root: string, compute: () => Promise<T>, journalOf?: unknown): Promise<T> {
  const { file, head } = journalFile(root, journalOf);
  const hit = await readJson<{ value: T }>(file);
  if (hit) {
    Context.current().log.info('LLM journal hit: reusing a finished call', { activityType: head.activityType });
    return hit.value;
  }
  const value = await compute();
  await writeJsonAtomic(file, { ...head, value });
  return value;
}

/**
 * One LLM call through the journal. `ask` makes the call and gives its reply to `record` the moment
 * it is complete (the gateway's onReply); `check` turns a reply into the activity's result and may
 * throw (a bad reply). A retry whose call already got its reply checks the journaled one and asks
 * nothing; a reply that fails its check leaves the journal, so the retry asks anew.
 */
export async function journaledReply<T, R>(
  root: string,
  ask: (record: (reply: R) => Promise<void>) => Promise<R>,
  check: (reply: R) => T | Promise<T>,
  journalOf?: unknown,
): Promise<T> {
  const { file, head } = journalFile(root, journalOf);
  const hit = await readJson<Entry<T, R>>(file);
  // An entry from a worker before replies were journaled: its value was checked already.
  if (hit && hit.reply === undefined && 'value' in hit) return hit.value as T;
  let reply: R;
  if (hit?.reply !== undefined) {
    Context.current().log.info('LLM journal hit: checking the reply that arrived before, no new request', { activityType: head.activityType });
    reply = hit.reply;
  } else {
    let recorded: R | undefined;
    reply = await ask(async (r) => {
      await writeJsonAtomic(file, { ...head, reply: r });
      recorded = r;
    });
    // What the call knew only at its end (the rung it was answered at) joins the entry.
    if (recorded !== reply) await writeJsonAtomic(file, { ...head, reply });
  }
  try {
    return await check(reply);
  } catch (err) {
    await removeJournaled(file);
    throw err;
  }
}
