// The worker's tool loop as TaskWorkflow runs it: one activity per LLM step, so a crash repeats at
// most one step. These pure functions fold the steps' small results into what the judge and the
// pacemaker need: the final answer, the step count (history turns), tool calls, failed tool calls
// and the last tool-call signatures (repetition lowers focus).
import type { FileChange } from './file-changes';
import type { CallPrint } from './stuck/fingerprint';
import { clip } from './text';

/** What one worker step reports back into workflow history (small by design). */
export interface WorkerStepReport {
  /** The reply's final answer (no tool calls); absent while the worker still calls tools. */
  summary?: string;
  toolCalls: number;
  toolErrors: number;
  /** Signatures of the step's tool calls (pacemaker/vitals.ts toolCallSignature: `name(short args)`, `!` appended when it failed). */
  actions: string[];
  /** Workspace-relative directory of the iteration's transcript. */
  logPath: string;
  /** The files this step's write_file / edit_file calls changed (stepFileChanges: bounded). */
  files?: FileChange[];
  /** Changed files past the listed ones. */
  moreFiles?: number;
  /**
   * The stuck detector's fingerprints of the step's last calls (callPrint; absent from steps
   * recorded before the detector existed, and with no call).
   */
  prints?: CallPrint[];
  /** For the stuck detector: replyPrint of the reply when it called no tool. */
  reply?: string;
  /** Why the step's first failed tool call failed, in one bounded line (failureLine). */
  failure?: string;
}

/** The longest failure line a step reports. */
export const FAILURE_LINE_CHARS = 160;

/**
 * A failed tool call's reason in one line (V6): its output's first line ("bubblewrap not found at
 * …", "read_file: not found: x"); for a command that exited non-zero, the exit code and the first
 * line it printed ("exit code 1: wc: a.md: No such file or directory"). At most FAILURE_LINE_CHARS.
 */
export function failureLine(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && l !== '(no output)');
  const [first = '(no output)', next] = lines;
  const line = /^exit code -?\d+$/.test(first) && next !== undefined ? `${first}: ${next}` : first;
  return clip(line, FAILURE_LINE_CHARS);
}

export interface WorkerTally {
  steps: number;
  toolCalls: number;
  toolErrors: number;
  actionSignatures: string[];
  summary?: string;
  logPath?: string;
}

/** The pacemaker looks at the last few signatures only; history stays small. */
export const ACTION_SIGNATURE_WINDOW = 20;
export const SUMMARY_MAX_CHARS = 2000;

export const EMPTY_WORKER_TALLY: WorkerTally = { steps: 0, toolCalls: 0, toolErrors: 0, actionSignatures: [] };

export function recordWorkerStep(t: WorkerTally, r: WorkerStepReport): WorkerTally {
  return {
    steps: t.steps + 1,
    toolCalls: t.toolCalls + r.toolCalls,
    toolErrors: t.toolErrors + r.toolErrors,
    actionSignatures: [...t.actionSignatures, ...r.actions].slice(-ACTION_SIGNATURE_WINDOW),
    ...(r.summary !== undefined ? { summary: r.summary.slice(0, SUMMARY_MAX_CHARS) } : {}),
    logPath: r.logPath,
  };
}

/** A final answer ends the iteration; so does the step limit. */
export function workerIterationDone(t: WorkerTally, maxSteps: number): boolean {
  return t.summary !== undefined || t.steps >= maxSteps;
}

export interface WorkerIterationOutcome {
  summary: string;
  logPath: string;
  steps: number;
  toolCalls: number;
  toolErrors: number;
  actionSignatures: string[];
  /** False when the step limit ended the iteration without a final answer. */
  finished: boolean;
}

export function workerIterationOutcome(t: WorkerTally): WorkerIterationOutcome {
  return {
    summary: t.summary ?? `stopped after ${t.steps} steps without a final answer`,
    logPath: t.logPath ?? '',
    steps: t.steps,
    toolCalls: t.toolCalls,
    toolErrors: t.toolErrors,
    actionSignatures: t.actionSignatures,
    finished: t.summary !== undefined,
  };
}

export const DEFAULT_WORKER_MAX_STEPS = 24;
export const WORKER_MAX_STEPS_BOUND = 200;

/** The per-iteration step limit as the loop uses it: a whole number in 1..200 (a NaN would never end the loop). */
export function workerStepLimit(n: unknown): number {
  if (typeof n !== 'number' || !Number.isFinite(n)) return DEFAULT_WORKER_MAX_STEPS;
  return Math.min(WORKER_MAX_STEPS_BOUND, Math.max(1, Math.floor(n)));
}
