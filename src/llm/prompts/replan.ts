// Replanning prompts: the replan decision at the end of each phase, with that phase's own
// criteria (X1), and the re-decomposition of a task its judge said to replan. Both open with the
// user's instruction and the Coverage criterion, whatever path of the run asks (C2).
import { PROMPT_REMAINING, type ExecutionProgress, type ReplanContext } from '../../domain/replan/prompt-context';
import { replanningContext } from './instruction';
import type { Phase, TaskSpec } from '../../domain/types';
import { bullets, goalBlock, taskBlock, type Prompt } from './common';

export interface ReplanPromptInput {
  instruction: string;
  context: ReplanContext;
  toolNames: readonly string[];
  /** Triggers that already reached the loop limit (replan-feedback.ts loopWarning). */
  loopWarning?: string;
  /** Short lines about earlier replans of this run. */
  history?: string[];
  /** Why the replan just proposed cannot run, asking for alternatives. */
  escalation?: string;
  /** What the user answered to earlier questions. */
  userAnswers?: string[];
}

const DECISION_FORMAT = [
  'Answer with one JSON object:',
  '{ "replan_needed": boolean, "confidence": 0..1, "reasoning": string,',
  '  "replan_type": "clarification_request" | "goal_revision" | "task_redecomposition" | "action_regeneration" |',
  '                 "retry" | "partial_replan" | "full_replan" | "plan_revision" | null,',
  '  "target_phase": "goal_understanding" | "task_decomposition" | "action_sequence" | "execution" | null,',
  '  "replan_level": 1..5 | null, "issues_found": [string], "recommended_actions": [string],',
  '  "clarification_needed": boolean, "clarification_questions": [string], ...the phase fields below }',
  'Levels: 1 retry the action, 2 replan the remaining actions, 3 regenerate the action sequence,',
  '4 re-decompose the tasks, 5 re-understand the goal.',
].join('\n');

/**
 * The "Current Plan Progress" and "Remaining Actions" blocks of the execution decision: actions
 * done of total, errors, consecutive errors, the actions left.
 */
export function progressForPrompt(p: ExecutionProgress, maxRemaining = PROMPT_REMAINING): string {
  const rem = p.remaining.slice(0, maxRemaining).map((r) => `- ${r}`);
  if (p.remaining.length > maxRemaining) rem.push(`- … ${p.remaining.length - maxRemaining} more`);
  return [
    '**Current Plan Progress:**',
    `- Completed actions: ${p.completed}/${p.total}`,
    `- Error count: ${p.errorCount}`,
    `- Consecutive errors: ${p.consecutiveErrors}`,
    '',
    '**Remaining Actions:**',
    ...(rem.length ? rem : ['- (none)']),
  ].join('\n');
}

/** G4: feedback on the run's pull request, first among the facts: each recommended action becomes a new task. */
const feedbackBlock = (f: { source: string; text: string }) =>
  [
    `**Feedback on ${f.source}** (from its checks or from people who may write to the repository):`,
    f.text,
    'If it needs a change, set replan_needed true and list in "recommended_actions" the work to do, one new task each ' +
      '(what to change and how to check it). If it needs no change, set replan_needed false and say why in "reasoning": the reviewer reads it.',
  ].join('\n\n');

/** The facts of a phase read that phase's own context, so no entry needs a cast. */
interface PhaseText<P extends Phase = Phase> {
  intro: string;
  facts: (c: Extract<ReplanContext, { phase: P }>, tools: readonly string[]) => string[];
  criteria: string[];
  when: string[];
  fields: string;
}

const list = (xs: string[]) => bullets(xs);
const taskLines = (tasks: TaskSpec[]) =>
  tasks.map((t) => `- ${t.id}: ${t.title} (deps: ${t.dependencies.join(', ') || 'none'}; profile ${t.profile})`).join('\n');

const PHASE_TEXT: { [P in Phase]: PhaseText<P> } = {
  goal_understanding: {
    intro: 'You have completed the goal understanding phase. Now evaluate whether the understanding is sufficient to proceed.',
    facts: (g) => [
      `**Current Goal Understanding:**\n${goalBlock(g.goal)}`,
      g.workspaceListing ? `**Available Context (workspace):**\n${g.workspaceListing}` : '',
    ],
    criteria: [
      'Is the main objective clearly defined?',
      'Are all success criteria identifiable?',
      'Are there any ambiguities or contradictions in the requirements?',
      'Is there sufficient context to proceed with task decomposition?',
      'Are there any questions that need clarification from the user?',
    ],
    when: [
      'Critical information is missing that would prevent successful task completion',
      'There are significant ambiguities that could lead to incorrect implementation',
      'User clarification is essential before proceeding',
    ],
    fields:
      'Phase fields: "assumptions_to_make": [string] (what you would assume if the user does not answer). replan_type: clarification_request | goal_revision | null.',
  },
  task_decomposition: {
    intro: 'You have completed the task decomposition phase. Now evaluate whether the decomposition is appropriate and executable.',
    facts: (d, tools) => [
      `**Task Decomposition Result:**\n${d.tasks.map(taskBlock).join('\n\n')}`,
      `**Original Goal:**\n${goalBlock(d.goal)}`,
      `**Available Tools:** ${tools.join(', ')}`,
    ],
    criteria: [
      'Are all subtasks clearly defined and actionable?',
      'Are the dependencies between subtasks correctly identified?',
      'Is the complexity estimation reasonable?',
      'Are the required tools available for each subtask?',
      'Is the decomposition granularity appropriate (not too fine or too coarse)?',
      'Are there any missing steps that should be included?',
    ],
    when: [
      'Subtasks are not executable with available tools',
      'Critical steps are missing',
      'The decomposition has fundamental issues that would cause execution failures',
    ],
    fields:
      'Phase fields: "missing_steps": [string], "recommended_granularity": string, "scope_adjustment": string. replan_type: task_redecomposition | null.',
  },
  action_sequence: {
    intro: 'You have completed the action sequence generation phase. Now evaluate whether the plan is executable.',
    facts: (a, tools) => {
      const plan = a.tasks.map((t) => `${t.id}:\n${list(a.actions[t.id] ?? [])}`).join('\n');
      return [
        `**Action Plan:**\n${plan}`,
        `**Subtasks:**\n${taskLines(a.tasks)}`,
        `**Available Tools and Their Status:** ${tools.map((t) => `${t} (available)`).join(', ')}`,
      ];
    },
    criteria: [
      'Can all specified tools be executed with the given parameters?',
      'Are the action dependencies correctly ordered?',
      'Are fallback strategies defined for potential failures?',
      'Are the expected outcomes realistic and verifiable?',
      'Is the execution order optimal?',
    ],
    when: [
      'Required tools are unavailable or parameters are invalid',
      'Action dependencies would cause execution deadlocks',
      'Critical fallback strategies are missing',
    ],
    fields:
      'Phase fields: "unavailable_tools", "alternative_tools", "dependency_issues", "plan_adjustments": [string]. replan_type: action_regeneration | null.',
  },
  execution: {
    intro: 'You have executed an action. Evaluate whether execution can continue or replanning is needed.',
    facts: (e) => [
      e.feedback ? feedbackBlock(e.feedback) : '',
      `**Executed Action:**\ntask ${e.executed.taskId}: ${e.executed.title}`,
      `**Execution Result:**\n${e.executed.state}${e.executed.summary ? ` — ${e.executed.summary}` : ''}`,
      `**Error Information (if any):**\n${e.error ?? '(none)'}`,
      progressForPrompt(e.progress),
    ],
    criteria: [
      'Was the action successful? If not, is it recoverable?',
      'Are the preconditions for remaining actions still valid?',
      'Has the execution context changed in a way that affects the plan?',
      'Should execution continue, retry, or replan?',
    ],
    when: [
      'Continue if action succeeded or error is minor (replan_needed false)',
      'Retry if error is transient (network, timeout)',
      'Partial replan if only remaining actions need adjustment',
      'Full replan only if fundamental assumptions are invalid',
    ],
    fields:
      'Phase fields: "error_classification": transient | persistent | fatal, "recovery_strategy": string, "affected_actions": [string]. replan_type: retry | partial_replan | full_replan | null; give replan_level and target_phase.',
  },
  reflection: {
    intro: 'You have completed the execution of planned actions. Now evaluate the overall results and determine if any revision is needed.',
    facts: (r) => {
      const active = r.tasks.filter((t) => t.state !== 'REPLACED_BY_REPLAN');
      return [
        `**Original Goal:**\n${r.goal.main_objective}`,
        `**Success Criteria:**\n${list(r.goal.success_criteria)}`,
        `**Execution Summary:**\n${r.reflection.summary} (${r.reflection.evaluation_result}, ${r.reflection.achievement_rate}%)`,
        `**Actions Completed:**\n${active.map((t) => `- [${t.state}] ${t.id}: ${t.title}${t.summary ? ` — ${t.summary}` : ''}`).join('\n')}`,
        `**Current State:**\nissues: ${r.reflection.issues_identified.join('; ') || 'none'}`,
      ];
    },
    criteria: [
      'Have all success criteria been met?',
      'Are there any unintended side effects?',
      'Is the implementation quality acceptable?',
      'Are there any issues that need to be addressed?',
      'Would additional actions improve the outcome?',
    ],
    when: [
      'Critical success criteria are not met',
      'There are significant quality issues',
      'Important functionality is missing',
      'User feedback indicates problems',
    ],
    fields:
      'Phase fields: "evaluation_result": success | partial_success | failure, "achievement_rate": 0..100, "issues_identified", "additional_actions": [string], "revision_scope": minor | moderate | major. replan_type: plan_revision | null.',
  },
};

/** The replan-decision prompt of a phase. */
export function replanDecisionPrompt(input: ReplanPromptInput): Prompt {
  // One cast where the phase picks its text: PHASE_TEXT[p].facts takes the context of phase p.
  const t = PHASE_TEXT[input.context.phase] as PhaseText;
  return {
    system:
      'You decide whether an autonomous software agent must replan. You are careful: replanning costs time, so ' +
      'recommend it only when it is truly necessary, and state your confidence honestly. ' +
      DECISION_FORMAT,
    user: [
      replanningContext(input.instruction),
      t.intro,
      ...t.facts(input.context, input.toolNames),
      `**Evaluation Criteria:**\n${t.criteria.map((c, i) => `${i + 1}. ${c}`).join('\n')}`,
      input.history?.length ? `**Replan History (this run):**\n${list(input.history)}` : '',
      input.userAnswers?.length ? `**The User Said:**\n${list(input.userAnswers)}` : '',
      input.loopWarning ?? '',
      input.escalation ? `**Your Previous Proposal Was Refused:**\n${input.escalation}` : '',
      `Based on your evaluation, provide a replan decision in the JSON format above. ${t.fields}`,
      `Consider carefully whether replanning is truly necessary. Only recommend replanning if:\n${list(t.when)}`,
    ]
      .filter(Boolean)
      .join('\n\n'),
  };
}

/** Re-decompose into smaller tasks one task the judge said cannot be finished as designed. */
export function taskReplanPrompt(input: {
  instruction: string;
  task: TaskSpec;
  reason: string;
  missingRequirements: string[];
  runLog: string;
  otherTasks: { id: string; title: string; state: string }[];
  /** Why the previous answer was refused (e.g. the plan grew over planning.maxTasks). */
  feedback?: string;
}): Prompt {
  return {
    system:
      'You are the planner of a software agent. A task could not be completed as designed. Split it into 3-5 ' +
      'smaller achievable tasks that together do everything the original task had to do: unique short ids, a ' +
      'title, a description, concrete acceptance criteria, dependencies (ids among the new tasks, or of existing ' +
      'tasks), the workspace paths in scope, and a task profile. Answer with one JSON object {"tasks": [...]} ' +
      'and nothing else.',
    user: [
      replanningContext(input.instruction),
      `TASK TO RE-DECOMPOSE:\n${taskBlock(input.task)}`,
      `WHY IT MUST BE REPLANNED (judge):\n${input.reason || '(no reason given)'}`,
      `MISSING REQUIREMENTS:\n${list(input.missingRequirements)}`,
      `RUN LOG OF THE LAST WORKER ITERATION (abridged):\n${input.runLog || '(none)'}`,
      input.otherTasks.length ? `OTHER TASKS OF THE PLAN:\n${input.otherTasks.map((t) => `- [${t.state}] ${t.id}: ${t.title}`).join('\n')}` : '',
      input.feedback ?? '',
      'Split this task into 3-5 smaller achievable tasks.',
    ]
      .filter(Boolean)
      .join('\n\n'),
  };
}
