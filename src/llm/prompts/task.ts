// Prompts of a task: the worker's tool-using session and the judge of its result, with when to ask for a replan (J3).
import type { TaskSpec } from '../../domain/types';
import { bullets, instructionBlock, JSON_ONLY, taskBlock, type Prompt } from './common';

/** What the stuck detector saw in the previous iteration (its summary and the tools' answers). */
export interface StuckPromptInput {
  summary: string;
  answers: string[];
}

/** Tells the worker what it repeated, what the tools answered, and not to do it again. */
function stuckBlock(s: StuckPromptInput, iteration: number): string {
  const answers = s.answers.length ? `\nThe tools answered:\n${bullets(s.answers.map((a) => a.slice(0, 300)))}` : '';
  return (
    `YOUR ITERATION ${iteration - 1} WAS STOPPED: you were going round in circles.\nWhat was seen: ${s.summary.slice(0, 400)}.${answers}\n` +
    'Do not repeat those calls: their answers will not change. Use what they told you and take another way; ' +
    'if the task is already done, answer without tool calls with your summary.'
  );
}

export function workerPrompt(input: {
  instruction: string;
  task: TaskSpec;
  steps: string[];
  feedback?: string;
  guidance?: string;
  stuck?: StuckPromptInput;
  iteration: number;
}): Prompt {
  return {
    system:
      'You are a software worker operating on a workspace through tools. Paths are relative to the workspace root; ' +
      'you cannot leave it. run_command takes an argv array (no shell). Do the task completely, verify your work ' +
      '(run the tests or the program when there are any), then answer without tool calls with a short summary of what ' +
      'you changed and how you verified it.',
    user: [
      instructionBlock(input.instruction),
      taskBlock(input.task),
      input.steps.length ? `PLANNED STEPS:\n${bullets(input.steps)}` : '',
      input.stuck ? stuckBlock(input.stuck, input.iteration) : '',
      input.feedback ? `JUDGE FEEDBACK ON ITERATION ${input.iteration - 1} (fix these):\n${input.feedback}` : '',
      input.guidance ? `USER GUIDANCE:\n${input.guidance}` : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
  };
}

export function judgePrompt(input: { instruction: string; task: TaskSpec; workerSummary: string; evidence: string }): Prompt {
  return {
    system:
      'You are the judge of a software task. Decide from the evidence whether every acceptance criterion is met. ' +
      'Return success; if not successful, shouldContinue when another worker iteration with your feedback can finish ' +
      'it, or shouldReplan when the task must be re-decomposed: the scope is too large for one iteration, the ' +
      'requirements are contradictory or unclear, the approach is fundamentally wrong, external resources or ' +
      'preconditions are missing, or it is impossible in the current task design. Give the reason and the missing ' +
      'requirements, and your confidence (0..1, or null when you cannot tell) that the current approach will ' +
      `achieve the task. ${JSON_ONLY}`,
    user: [
      instructionBlock(input.instruction),
      taskBlock(input.task),
      `WORKER SUMMARY:\n${input.workerSummary || '(none)'}`,
      `EVIDENCE (tool calls and results, abridged):\n${input.evidence || '(none)'}`,
    ].join('\n\n'),
  };
}
