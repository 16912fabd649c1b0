// What the CLI checks and prepares before it starts a run: an instruction given by file or
// stdin (stored beside the run and passed by path), whether the workspace already has a running
// run (the workspace lock, src/client/workspace-lock.ts, enforces it at start), and whether the
// model this shell names answers, before anything starts.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { instructionFilePath, instructionHead, runIdProblem } from '../domain/run-input';
import { runWorkflowId } from '../workflows/run';
import { workspaceLockId } from './workspace-lock';
import { endsInVersion, modelCheckVerdict, withV1, type ModelProbe } from '../domain/model-check';
import { ModelRefused, ModelUnreachable } from './errors';

export const newRunId = (): string => randomUUID().slice(0, 8);

/** A file-given instruction may be long (prompts keep its head and tail), but not unbounded. */
export const MAX_INSTRUCTION_FILE_BYTES = 16 * 1024 * 1024;

/** Reads `--instruction-file FILE` (or `-`: the given stream, normally stdin); undefined text means a problem. */
export async function readInstructionSource(file: string, stdin: NodeJS.ReadableStream): Promise<{ text?: string; problem?: string }> {
  let buf: Buffer;
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of stdin) {
        const b = Buffer.isBuffer(c) ? c : Buffer.from(String(c));
        size += b.length;
        if (size > MAX_INSTRUCTION_FILE_BYTES) return { problem: `the instruction on stdin exceeds ${MAX_INSTRUCTION_FILE_BYTES} bytes` };
        chunks.push(b);
      }
      buf = Buffer.concat(chunks);
    } else {
      const st = await fs.stat(file);
      if (!st.isFile()) return { problem: `--instruction-file ${file} is not a file` };
      if (st.size > MAX_INSTRUCTION_FILE_BYTES)
        return { problem: `--instruction-file ${file} has ${st.size} bytes; the limit is ${MAX_INSTRUCTION_FILE_BYTES}` };
      buf = await fs.readFile(file);
    }
  } catch (e) {
    return { problem: `cannot read the instruction from ${file === '-' ? 'stdin' : file}: ${(e as Error).message}` };
  }
  const text = buf.toString('utf8');
  if (!text.trim()) return { problem: `the instruction ${file === '-' ? 'on stdin' : `in ${file}`} is empty: say what the run should achieve` };
  return { text };
}

/** Stores the instruction beside the run; the run input carries its head and this path. */
export async function storeInstruction(workspace: string, runId: string, text: string): Promise<{ instruction: string; instructionFile: string }> {
  const file = instructionFilePath(path.resolve(workspace), runId);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, text);
  await fs.rename(tmp, file);
  return { instruction: instructionHead(text), instructionFile: file };
}

/**
 * The id of a run still running on this workspace, if any: the run holding the workspace lock
 * (src/client/workspace-lock.ts; describe is consistent), else through visibility (eventually
 * consistent) a run started without the lock, e.g. a bare `temporal workflow start`. The lock
 * itself refuses the second of two starts at the same moment; this check gives the earlier answer.
 */
export async function runningRunOn(client: Client, workspace: string): Promise<string | undefined> {
  const ws = path.resolve(workspace);
  const held = await heldBy(client, await workspaceLockId(ws));
  if (held !== undefined && (await isRunning(client, runWorkflowId(held)))) return held;
  for await (const wf of client.workflow.list({ query: `WorkflowType = 'RunWorkflow' AND ExecutionStatus = 'Running'` })) {
    // Visibility may lag behind a run that just ended: describe says for sure.
    if (wf.memo?.workspace === ws && (await isRunning(client, wf.workflowId))) return wf.workflowId.replace(/^run-/, '');
  }
  return undefined;
}

async function heldBy(client: Client, lockId: string): Promise<string | undefined> {
  try {
    const d = await client.workflow.getHandle(lockId).describe();
    const runId = d.memo?.runId;
    return d.status.name === 'RUNNING' && typeof runId === 'string' && !runIdProblem(runId) ? runId : undefined;
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return undefined;
    throw e;
  }
}

async function isRunning(client: Client, workflowId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return false;
    throw e;
  }
}

/** How long `run` waits for the model's answer: a model that is up answers GET /models at once. */
export const MODEL_CHECK_TIMEOUT_MS = 1500;

/**
 * The model this shell names answers, before `run` starts the server, a worker or the run:
 * ModelUnreachable (exit 3) when nothing answers, ModelRefused (exit 2) when it refuses the key or
 * the address; a warning (`warn`) when it answers oddly. A queue pinned by name
 * (REPLANNER_TASK_QUEUE) is not checked: the workers on it bring their own model settings.
 */
export async function checkModelAnswers(env: NodeJS.ProcessEnv, warn: (line: string) => void): Promise<void> {
  if (env.REPLANNER_TASK_QUEUE?.trim()) return;
  // Loaded here, not at start: only `run` needs the model client.
  const [{ llmSettingsFromEnv }, { probeClient, probeModels }] = await Promise.all([import('../llm/gateway'), import('../llm/probes')]);
  const llm = llmSettingsFromEnv(env);
  const look = async (baseURL: string): Promise<ModelProbe> => {
    const r = await probeModels(probeClient({ ...llm, baseURL, timeoutMs: MODEL_CHECK_TIMEOUT_MS }));
    if (r.ok) return { kind: 'listed', models: r.models };
    const f = r.failure;
    return f.kind === 'http' ? { kind: 'http', status: f.status ?? 0, message: f.message } : { kind: f.kind, message: f.message };
  };
  const probe = await look(llm.baseURL);
  const v1Answers =
    probe.kind === 'http' && probe.status === 404 && !endsInVersion(llm.baseURL) ? (await look(withV1(llm.baseURL))).kind === 'listed' : undefined;
  const verdict = modelCheckVerdict({
    baseURL: llm.baseURL,
    model: llm.model,
    probe,
    timeoutMs: MODEL_CHECK_TIMEOUT_MS,
    v1Answers,
    defaultBase: !env.OPENAI_BASE_URL,
  });
  if (verdict.go) {
    if (verdict.warning) warn(`replanner: warning: ${verdict.warning}`);
    return;
  }
  throw verdict.unreachable ? new ModelUnreachable(verdict.message) : new ModelRefused(verdict.message);
}
