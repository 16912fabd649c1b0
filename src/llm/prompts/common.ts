// Pieces every prompt shares. The user's instruction opens every prompt so no path of the
// run ever plans without it.
import { userInstructionSection } from './instruction';
import type { TaskSpec } from '../../domain/types';
import type { Goal } from '../../domain/types';

export interface Prompt {
  system: string;
  user: string;
}

/** The instruction, never dropped; a very long one is cut to a token budget. */
export function instructionBlock(instruction: string): string {
  return userInstructionSection(instruction);
}

export function goalBlock(goal: Goal): string {
  return [
    `GOAL: ${goal.main_objective}`,
    `Success criteria:\n${bullets(goal.success_criteria)}`,
    goal.constraints.length ? `Constraints:\n${bullets(goal.constraints)}` : '',
    goal.assumptions.length ? `Assumptions:\n${bullets(goal.assumptions)}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function taskBlock(t: TaskSpec): string {
  return [
    `TASK ${t.id}: ${t.title}`,
    t.description,
    `Acceptance criteria:\n${bullets(t.acceptanceCriteria)}`,
    t.scopePaths.length ? `Scope paths: ${t.scopePaths.join(', ')}` : '',
    t.dependencies.length ? `Depends on: ${t.dependencies.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function bullets(items: string[]): string {
  return items.length ? items.map((i) => `- ${i}`).join('\n') : '- (none)';
}

export const JSON_ONLY = 'Answer with one JSON object matching the given schema, and nothing else.';
