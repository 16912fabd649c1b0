// X1: the replan-decision call of the run's replanning layer (one activity per decision), with the
// parts of its prompt that come from the run's replanning so far (X6 loops, X9 history, X14 answers).
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { loopingTriggers, type ReplanDecision } from '../../domain/replan';
import type { ReplanContext } from '../../domain/replan/prompt-context';
import { addPlanningUsage } from '../../domain/run/phases';
import type { Phase } from '../../domain/types';
import { touchesWorkspace } from '../../domain/workspace-host';
import { replanPromptExtras, type ReplanPromptExtras } from '../../llm/prompts/replan-feedback';
import { llmActivityOptions } from '../options';
import type { ReplanningDeps } from './replanning-entity';

/** The LLM's decision, or "no replan" with why its reply could not be parsed (X13). */
export interface DecisionReply {
  value: ReplanDecision;
  parseError?: string;
}

/** X6 / X9 / X14: what every replan-decision prompt carries from the run's replanning so far. */
export function promptExtrasOf({ entity, config }: Pick<ReplanningDeps, 'entity' | 'config'>): ReplanPromptExtras {
  const s = entity.state;
  return replanPromptExtras({ records: s.log.records, notes: s.notes, looping: loopingTriggers(s.counters, config) });
}

/** X1: asks the replan-decision LLM about the phase that ended (`alternatives`: X8, after a refusal). */
export async function askReplanDecision(deps: ReplanningDeps, phase: Phase, context: ReplanContext, alternatives?: string): Promise<DecisionReply> {
  const { entity } = deps;
  // Through the run's call gate: O3 none starts that the budget cannot pay for (the run pauses with
  // its budget question), O1 nor while the run is paused; O2 an LLM outage pauses the run.
  const activities = proxyActivities<Activities>(
    llmActivityOptions(
      deps.options,
      alternatives ? `replan alternatives? (${phase})` : `replan? after ${phase}`,
      // The goal phase's decision lists the workspace (decideReplan): on its host.
      touchesWorkspace('decideReplan', {
        instructionFile: deps.run.instructionFile !== undefined,
        listsWorkspace: context.phase === 'goal_understanding' && context.workspaceListing === undefined,
      }),
    ),
  );
  const r = await deps.gate
    .gated(activities)
    .decideReplan({ ...deps.run, ...promptExtrasOf(deps), ...(alternatives ? { escalation: alternatives } : {}), context });
  entity.apply((st) => addPlanningUsage(st, r.usage));
  return r;
}
