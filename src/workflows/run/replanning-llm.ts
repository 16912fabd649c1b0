// The replan-decision call of the run's replanning layer (one activity per decision), with the
// parts of its prompt that come from the run's replanning so far (triggers that looped, the
// history of decisions, the user's answers).
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { loopingTriggers, type ReplanDecision } from '../../domain/replan';
import type { ReplanContext } from '../../domain/replan/prompt-context';
import { isPaused } from '../../domain/run/pause';
import { addPlanningUsage } from '../../domain/run/phases';
import type { Phase } from '../../domain/types';
import { touchesWorkspace } from '../../domain/workspace-host';
import { replanPromptExtras, type ReplanPromptExtras } from '../../llm/prompts/replan-feedback';
import { llmActivityOptions } from '../options';
import { gateOn } from '../pause-gate';
import type { ReplanningDeps } from './replanning-entity';

/** The LLM's decision, or "no replan" with why its reply could not be parsed. */
export interface DecisionReply {
  value: ReplanDecision;
  parseError?: string;
}

/** What every replan-decision prompt carries from the run's replanning so far. */
export function promptExtrasOf({ entity, config }: Pick<ReplanningDeps, 'entity' | 'config'>): ReplanPromptExtras {
  const s = entity.state;
  return replanPromptExtras({ records: s.log.records, notes: s.notes, looping: loopingTriggers(s.counters, config) });
}

/** Asks the replan-decision LLM about the phase that ended (`alternatives`: after a refusal, what else it proposes). */
export async function askReplanDecision(deps: ReplanningDeps, phase: Phase, context: ReplanContext, alternatives?: string): Promise<DecisionReply> {
  const { entity } = deps;
  // No LLM call starts while the run is paused; an LLM outage pauses the run.
  const gate = deps.gate ?? gateOn(() => isPaused(entity.state));
  await gate.ready();
  // And none starts that the budget cannot pay for (the run pauses with its budget question).
  const budgeted = deps.budget?.limited === true;
  const key = budgeted ? await deps.budget!.before() : 0;
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
  const r = await gate
    .gated(activities)
    .decideReplan({ ...deps.run, ...promptExtrasOf(deps), ...(alternatives ? { escalation: alternatives } : {}), context });
  entity.apply((st) => addPlanningUsage(st, r.usage));
  if (budgeted) deps.budget!.after(key, r.usage);
  return r;
}
