// The plan-quality judge's prompt. It opens with the USER INSTRUCTION and lists the weighted
// criteria, Coverage included, from the domain's QUALITY_CRITERIA.
import { COVERAGE_ISSUE_PREFIX, renderQualityCriteria } from '../../domain/refinement/quality';
import type { TaskSpec } from '../../domain/types';
import type { Goal } from '../../domain/types';
import { goalBlock, instructionBlock, JSON_ONLY, taskBlock, type Prompt } from './common';

export function qualityJudgePrompt(input: {
  instruction: string;
  goal: Goal;
  tasks: TaskSpec[];
  /** Pass mark 0..100 (RefinementConfig.qualityThreshold); guidance for the judge only: a score never overrules "not acceptable". */
  qualityThreshold: number;
  /** Hours a task may take at most (the "max task duration" criterion). */
  maxTaskDuration?: number;
}): Prompt {
  return {
    system:
      'You are the plan-quality judge of a software agent. Evaluate the task plan below against the user instruction ' +
      'and the weighted quality criteria. Return isAcceptable (true only when every CRITICAL criterion is met), the ' +
      'concrete issues you found, suggestions that would improve the plan, and overallScore 0-100 weighted by the ' +
      `tiers (CRITICAL 70%, IMPORTANT 20%, NICE TO HAVE 10%). ${JSON_ONLY}`,
    user: [
      instructionBlock(input.instruction),
      goalBlock(input.goal),
      `TASK PLAN (${input.tasks.length} tasks):\n${input.tasks.map((t) => `${taskBlock(t)}\nProfile: ${t.profile}`).join('\n\n')}`,
      `QUALITY CRITERIA:\n${renderQualityCriteria({ maxTaskDuration: input.maxTaskDuration })}`,
      [
        'SCORING:',
        `- A plan scoring below ${input.qualityThreshold} is normally not acceptable; but isAcceptable is your explicit verdict.`,
        `- Tag every requirement of the instruction that no task covers as an issue starting with "${COVERAGE_ISSUE_PREFIX}".`,
        '- Issues say what is wrong; suggestions say what to change. Keep each to one sentence.',
      ].join('\n'),
    ].join('\n\n'),
  };
}
