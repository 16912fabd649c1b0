// The stuck detector in a task: what a worker step's report gives the detector, what the judge
// reads when the detector ended an iteration, and the task's running account of it (status, watch,
// details). Pure.
import type { TokenUsage } from '../usage';
import type { WorkerStepReport } from '../worker-steps';
import { stuckNote, type StuckFinding, type StuckPattern, type StuckStepInput } from './detector';

/** The detector's input from a step's report: its prints, its reply, whether it changed a file, its tokens. */
export function stuckStepInput(r: WorkerStepReport & { usage?: TokenUsage }): StuckStepInput {
  return {
    ...(r.prints ? { prints: r.prints } : {}),
    toolCalls: r.toolCalls,
    ...(r.reply !== undefined ? { reply: r.reply } : {}),
    changedFiles: Boolean(r.files?.length || r.moreFiles),
    tokens: Number.isFinite(r.usage?.totalTokens) ? Math.max(0, r.usage!.totalTokens) : 0,
  };
}

/** The worker summary the judge reads for an iteration the detector ended. */
export function stuckWorkerSummary(f: StuckFinding, steps: number, lastReply?: string): string {
  const answers = f.answers.length ? ` What the tools answered: ${f.answers.join('; ')}.` : '';
  const reply = lastReply !== undefined ? ` Its last reply: ${lastReply}` : ' It gave no final answer; judge the workspace as it is.';
  return `The worker was stopped after ${steps} steps by the stuck detector (${f.pattern}): ${f.summary}.${answers}${reply}`;
}

/** The task's account of the detector (taskStatus, watch, the details): the newest finding and the totals. */
export interface StuckStatus {
  /** stuckNote of the newest finding. */
  note: string;
  pattern: StuckPattern;
  /** Where it fired: the iteration and its step. */
  iteration: number;
  step: number;
  /** Findings so far in this task. */
  times: number;
  /** Steps and tokens spent on repeats, all findings of the task. */
  wastedSteps: number;
  wastedTokens: number;
}

/** The task's stuck line: the newest note where it fired, with the totals once it fired more than once. */
export function stuckStatusLine(s: StuckStatus): string {
  const at = `iteration ${s.iteration}, step ${s.step}`;
  return s.times > 1
    ? `${s.note} at ${at}; ${s.times} times in this task, ${s.wastedSteps} wasted steps, ${s.wastedTokens} tokens`
    : `${s.note} at ${at}`;
}

export function recordStuck(prev: StuckStatus | undefined, f: StuckFinding, iteration: number, step: number): StuckStatus {
  return {
    note: stuckNote(f),
    pattern: f.pattern,
    iteration,
    step,
    times: (prev?.times ?? 0) + 1,
    wastedSteps: (prev?.wastedSteps ?? 0) + f.wastedSteps,
    wastedTokens: (prev?.wastedTokens ?? 0) + f.wastedTokens,
  };
}
