// Pieces every prompt shares. The user's instruction opens every prompt (C1/C2) so no path of the
// run ever plans without it.
import type { TaskSpec } from '../../domain/types';
import type { Goal } from '../schemas';

export interface Prompt {
  system: string;
  user: string;
}

const MAX_INSTRUCTION_CHARS = 8000;

export function instructionBlock(instruction: string): string {
  const text = instruction.trim() === '' ? '(empty instruction)' : instruction;
  const shown =
    text.length > MAX_INSTRUCTION_CHARS
      ? `${text.slice(0, MAX_INSTRUCTION_CHARS / 2)}\n[truncated ${text.length - MAX_INSTRUCTION_CHARS} chars]\n${text.slice(-MAX_INSTRUCTION_CHARS / 2)}`
      : text;
  return `USER INSTRUCTION:\n${shown}`;
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
