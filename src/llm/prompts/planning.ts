// Prompts of the planning phases: goal understanding, task decomposition, action sequence, reflection.
import type { TaskRecord, TaskSpec } from '../../domain/types';
import type { Goal } from '../../domain/types';
import { goalBlock, instructionBlock, JSON_ONLY, taskBlock, type Prompt } from './common';

export function goalUnderstandingPrompt(input: { instruction: string; workspaceListing: string; feedback?: string }): Prompt {
  return {
    system:
      'You are the goal-understanding phase of a software agent. Restate what the user wants as a main objective, ' +
      'measurable success criteria, constraints, ambiguities and the assumptions you make for them, and classify the ' +
      'task profile (SIMPLE_QUESTION, CODE_ANALYSIS, FILE_OPERATION, COMPLEX_REASONING, MULTI_STEP_TASK, GENERAL_CHAT, ' +
      `CREATIVE_WRITING, DEBUGGING, RESEARCH; UNKNOWN when none fits). ${JSON_ONLY}`,
    user: [
      instructionBlock(input.instruction),
      `WORKSPACE (top level):\n${input.workspaceListing || '(empty)'}`,
      input.feedback ? `FEEDBACK FROM THE PREVIOUS ATTEMPT:\n${input.feedback}` : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
  };
}

export function decompositionPrompt(input: { instruction: string; goal: Goal; feedback?: string; previousTasks?: TaskSpec[] }): Prompt {
  return {
    system:
      'You are the task-decomposition phase of a software agent. Split the goal into a small graph of tasks (usually ' +
      '2-6), each completable by one worker in one session: unique short ids, a title, a description, concrete ' +
      'acceptance criteria, dependencies (ids of tasks that must finish first; independent tasks must not depend on ' +
      'each other so they can run in parallel), the workspace paths in scope, and a task profile. Coverage: every ' +
      `requirement of the user instruction must be covered by at least one task. ${JSON_ONLY}`,
    user: [
      instructionBlock(input.instruction),
      goalBlock(input.goal),
      input.previousTasks?.length
        ? `PREVIOUS PLAN:\n${input.previousTasks.map((t) => `- ${t.id}: ${t.title} (deps: ${t.dependencies.join(', ') || 'none'})`).join('\n')}`
        : '',
      input.feedback ? `FEEDBACK TO ADDRESS:\n${input.feedback}` : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
  };
}

export function actionSequencePrompt(input: { instruction: string; goal: Goal; tasks: TaskSpec[]; feedback?: string }): Prompt {
  return {
    system:
      'You are the action-sequence phase of a software agent. For every task, list the ordered concrete steps a ' +
      'worker should take with its tools (read_file, write_file, edit_file, list_dir, search_text, run_command). ' +
      `Use the task ids given. ${JSON_ONLY}`,
    user: [
      instructionBlock(input.instruction),
      goalBlock(input.goal),
      `TASKS:\n${input.tasks.map(taskBlock).join('\n\n')}`,
      input.feedback ? `FEEDBACK TO ADDRESS:\n${input.feedback}` : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
  };
}

export function reflectionPrompt(input: { instruction: string; goal: Goal; tasks: TaskRecord[] }): Prompt {
  const done = input.tasks.filter((t) => t.state === 'DONE').length;
  const active = input.tasks.filter((t) => t.state !== 'REPLACED_BY_REPLAN');
  return {
    system:
      'You are the reflection phase of a software agent. Judge the whole run against the user instruction and the ' +
      'success criteria: evaluation_result (success | partial_success | failure), achievement_rate 0-100, the issues ' +
      `you identified, additional actions that would close gaps, revision_scope, and a short summary. ${JSON_ONLY}`,
    user: [
      instructionBlock(input.instruction),
      goalBlock(input.goal),
      `TASK OUTCOMES (${done}/${active.length} done):\n${active
        .map((t) => `- [${t.state}] ${t.id}: ${t.title}${t.summary ? ` — ${t.summary}` : ''}`)
        .join('\n')}`,
    ].join('\n\n'),
  };
}
