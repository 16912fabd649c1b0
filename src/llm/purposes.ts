// Every LLM request names its purpose in the `x-replanner-purpose` header, so logs, test servers
// and gateways can tell calls apart.
export const PURPOSES = [
  'goal_understanding',
  'task_decomposition',
  'action_sequence',
  'execution_step',
  'judge',
  'quality_judge',
  'replan_decision',
  'task_replan',
  'reflection',
  'worker_step',
] as const;
export type Purpose = (typeof PURPOSES)[number];
export const PURPOSE_HEADER = 'x-replanner-purpose';
