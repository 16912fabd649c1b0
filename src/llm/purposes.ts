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

/**
 * `replanner doctor`'s checks name their own purposes (src/llm/probes.ts, src/client/doctor-speed.ts),
 * so a server (the scripted model too) can answer each as it answers a real request.
 */
export const DOCTOR_PURPOSES = {
  /** The tiny structured-output call, at one rung of the JSON ladder. */
  structured: (rung: string) => `doctor_structured_${rung}`,
  /** The tiny tool call, with tool_choice "auto" or "required". */
  tools: (choice: 'auto' | 'required') => `doctor_tools_${choice}`,
  /** The speed check: one streamed call with a run's largest prompt. */
  speed: 'doctor_speed',
} as const;
