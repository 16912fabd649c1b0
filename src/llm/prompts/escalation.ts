// Escalation: the LLM is told why the replan it proposed cannot run (a limit, a loop, or it failed)
// and asked for alternatives (src/domain/replan/escalation.ts decides when).
import { whyNotCarriedOut, type EscalationInput } from '../../domain/replan/escalation';
import { clipCounted } from '../../domain/text';

/** The "Your Previous Proposal Was Refused" part of the next replan-decision prompt. */
export function alternativesPrompt(input: Pick<EscalationInput, 'phase' | 'trigger' | 'detail' | 'decision'>): string {
  const d = input.decision;
  return [
    `The replan you proposed in the ${input.phase} phase cannot be carried out: ${whyNotCarriedOut(input.trigger)}.`,
    `Details: ${clipCounted(input.detail, 1000)}`,
    d.issues_found.length ? `The issues you found:\n${d.issues_found.map((i) => `- ${clipCounted(i, 300)}`).join('\n')}` : '',
    'Consider alternatives that do not need this replan: a different, smaller change (another replan type',
    'or level), different actions or tools, or continuing with the current plan under explicit assumptions.',
    'Answer with a replan decision in the same JSON format. If there is no alternative, set',
    '"replan_needed": false and list the assumptions you would continue with in "assumptions_to_make".',
  ]
    .filter(Boolean)
    .join('\n');
}
