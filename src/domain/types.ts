// Core vocabulary shared by every layer: task states, task profiles, the five phases. Pure types:
// no Temporal, no I/O.

/** The states a task moves through (J4). */
export const TaskState = {
  READY: 'READY',
  RUNNING: 'RUNNING',
  NEEDS_CONTINUATION: 'NEEDS_CONTINUATION',
  DONE: 'DONE',
  BLOCKED: 'BLOCKED',
  CANCELLED: 'CANCELLED',
  REPLACED_BY_REPLAN: 'REPLACED_BY_REPLAN',
} as const;
export type TaskState = (typeof TaskState)[keyof typeof TaskState];

/**
 * The task profiles that set a task's base loop limit, and the explicit UNKNOWN: a profile the
 * planner gives that is not one of the nine becomes UNKNOWN (base 8), never another profile.
 */
export const TASK_PROFILES = [
  'SIMPLE_QUESTION',
  'CODE_ANALYSIS',
  'FILE_OPERATION',
  'COMPLEX_REASONING',
  'MULTI_STEP_TASK',
  'GENERAL_CHAT',
  'CREATIVE_WRITING',
  'DEBUGGING',
  'RESEARCH',
  'UNKNOWN',
] as const;
export type TaskProfile = (typeof TASK_PROFILES)[number];

/** The five phases, in order (X1). */
export const PHASES = ['goal_understanding', 'task_decomposition', 'action_sequence', 'execution', 'reflection'] as const;
export type Phase = (typeof PHASES)[number];

/** A task as the planner produces it. */
export interface TaskSpec {
  id: string;
  title: string;
  description: string;
  acceptanceCriteria: string[];
  dependencies: string[];
  scopePaths: string[];
  profile: TaskProfile;
}

/** Bookkeeping of task re-decomposition. */
export interface ReplanningInfo {
  iteration: number;
  maxIterations: number;
  originalTaskId?: string;
  replacedBy: string[];
  replanReason?: string;
}

/** A task as the run tracks it. */
export interface TaskRecord extends TaskSpec {
  state: TaskState;
  replanningInfo?: ReplanningInfo;
  /** Short outcome text (judge reason, block reason); never a transcript. */
  summary?: string;
  /** The stuck detector fired in this task: its newest note and, past one finding, the wasted steps and tokens in all. */
  stuck?: string;
}

/**
 * The goal as the goal-understanding phase states it (the LLM's snake_case field names).
 * src/llm/schemas.ts's GoalSchema produces exactly this.
 */
export interface Goal {
  main_objective: string;
  success_criteria: string[];
  constraints: string[];
  ambiguities: string[];
  assumptions: string[];
  task_profile: TaskProfile;
}

/** Per task, the ordered steps the worker is asked to follow (the action-sequence phase's plan). */
export type ActionPlan = Record<string, string[]>;

/** The reflection phase's verdict on the run (src/llm/schemas.ts's ReflectionSchema produces exactly this). */
export interface Reflection {
  evaluation_result: 'success' | 'partial_success' | 'failure';
  /** 0–100. */
  achievement_rate: number;
  issues_identified: string[];
  additional_actions: string[];
  revision_scope: 'minor' | 'moderate' | 'major';
  summary: string;
}
