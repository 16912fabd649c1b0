// The scenarios `replanner scripted-model` serves so a new user can try the CLI with no API key:
// whatever the instruction, a short run that asks one question (scenario "ask"; "plain" asks
// none), writes two real files under replanner-tryout/ in the workspace and checks them with one
// command. Every reply is read from the request itself (the instruction, the user's answer), never
// from what the server saw before, so any number of runs can share one server.
import type { Phase } from '../domain/types';
import { decisionPhaseOf } from './decisions';
import { NO_REPLAN_DECISION, plannedTask, taskIdOf, workerStepsSoFar, type ScenarioTask } from './scenario';
import type { ScriptedModel } from './server';
import { failedCommand, failedCommandVerdict, unfinishedReflection } from './evidence';
import { scriptDoctorProbes } from './doctor-probes';
import type { RecordedRequest, Reply, Responder } from './types';

export const TRYOUT_SCENARIOS = ['ask', 'plain'] as const;
export type TryoutScenario = (typeof TRYOUT_SCENARIOS)[number];

/** Where the scripted worker writes, inside the run's workspace. */
export const TRYOUT_DIR = 'replanner-tryout';
export const TRYOUT_QUESTION = 'Who is the result for: just you (short notes) or your team (a fuller write-up)?';
const ASSUMED_AUDIENCE = 'just you: short notes';

const PLAN_FILE = `${TRYOUT_DIR}/PLAN.md`;
const NOTES_FILE = `${TRYOUT_DIR}/NOTES.md`;

/** The request's instruction (the block every prompt opens with), on one line. */
export function instructionOf(req: RecordedRequest): string {
  const m = /USER INSTRUCTION:\n([\s\S]*?)(?:\n\n|$)/.exec(req.text);
  return oneLine(m?.[1] ?? '(no instruction)', 300);
}

/** What the user answered, as the goal phase is told after an answer ("THE USER ANSWERED:" then "Q: …" / "A: …" lines). */
export function answerOf(req: RecordedRequest): string | undefined {
  const block = /THE USER ANSWERED:\n([\s\S]*?)(?:\n\n|$)/.exec(req.text)?.[1];
  if (block === undefined) return undefined;
  const answers = block
    .split('\n')
    .filter((l) => l.startsWith('A: '))
    .map((l) => l.slice(3).trim());
  return oneLine(answers.join('; ') || block, 200);
}

/** The audience the goal carried into later prompts ("Audience: …" among its constraints). */
function audienceOf(req: RecordedRequest): string {
  return /Audience: (.*)/.exec(req.text)?.[1]?.trim() ?? ASSUMED_AUDIENCE;
}

function oneLine(s: string, max: number): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const TASKS: ScenarioTask[] = [
  { id: 'plan', title: `Write the plan to ${PLAN_FILE}`, profile: 'FILE_OPERATION', files: { [PLAN_FILE]: '' } },
  {
    id: 'notes',
    title: `Write ${NOTES_FILE} and check both files with a command`,
    dependencies: ['plan'],
    profile: 'FILE_OPERATION',
    files: { [NOTES_FILE]: '' },
    command: ['wc', '-l', PLAN_FILE, NOTES_FILE],
  },
];

function planText(instruction: string, audience: string): string {
  return [
    "# Plan (written by Replanner's scripted model, not a real model)",
    '',
    `Instruction: ${instruction}`,
    `For: ${audience}`,
    '',
    '1. Understand the instruction, and ask what is unclear.',
    `2. Write this plan (${PLAN_FILE}).`,
    `3. Write ${NOTES_FILE}, then check both files with a command.`,
    '',
  ].join('\n');
}

function notesText(instruction: string, audience: string): string {
  return [
    '# Notes',
    '',
    `A real model would now carry out: ${instruction}`,
    `(for ${audience}).`,
    '',
    'The scripted model wrote this file and PLAN.md so that you can try `replanner run`, `watch`,',
    '`answer`, `pause` and `diff` without an API key. Point OPENAI_BASE_URL, OPENAI_API_KEY and',
    'REPLANNER_MODEL at a real model to have the work done.',
    '',
  ].join('\n');
}

/** The worker's reply at a step: write its file (its text made from the request), run the command, then sum up. */
function workerReply(req: RecordedRequest): Reply {
  const task = TASKS.find((t) => t.id === taskIdOf(req));
  if (!task) return { status: 400, message: 'scripted model: a worker request for a task it did not plan' };
  const instruction = instructionOf(req);
  const audience = audienceOf(req);
  const calls: { name: string; arguments: unknown }[] = [
    ...Object.keys(task.files ?? {}).map((path) => ({
      name: 'write_file',
      arguments: { path, content: path === PLAN_FILE ? planText(instruction, audience) : notesText(instruction, audience) },
    })),
    ...(task.command ? [{ name: 'run_command', arguments: { argv: task.command } }] : []),
  ];
  const call = calls[workerStepsSoFar(req)];
  if (call) return { toolCalls: [call] };
  return { content: `Task ${task.id} done (scripted): ${calls.map((c) => c.name).join(', ')}.` };
}

function goalReply(req: RecordedRequest, scenario: TryoutScenario): Reply {
  const instruction = instructionOf(req);
  const answer = answerOf(req);
  const unclear = scenario === 'ask' && answer === undefined;
  return {
    json: {
      main_objective: `Carry out: ${instruction}`,
      success_criteria: [`a plan in ${PLAN_FILE}`, `notes in ${NOTES_FILE}, checked by a command`],
      constraints: answer !== undefined ? [`Audience: ${answer}`] : [],
      ambiguities: unclear ? ['who the result is for'] : [],
      assumptions: unclear ? [ASSUMED_AUDIENCE] : [],
      task_profile: 'MULTI_STEP_TASK',
    },
  };
}

/** After the goal phase: one clarification question, until the prompt carries an answer (or the assumption). */
function decisionReply(req: RecordedRequest, scenario: TryoutScenario): Reply {
  const phase: Phase | undefined = decisionPhaseOf(req);
  const told = req.text.includes('**The User Said:**');
  if (scenario === 'ask' && phase === 'goal_understanding' && !told) {
    return {
      json: {
        ...NO_REPLAN_DECISION,
        replan_needed: true,
        confidence: 0.9,
        reasoning: 'the instruction does not say who the result is for',
        replan_type: 'clarification_request',
        issues_found: ['the audience is not given'],
        clarification_needed: true,
        clarification_questions: [TRYOUT_QUESTION],
        assumptions_to_make: [ASSUMED_AUDIENCE],
      },
    };
  }
  return { json: { ...NO_REPLAN_DECISION, reasoning: 'scripted: the phase result is sufficient; continue' } };
}

/**
 * Scripts every purpose of a run on `model` for the tryout scenario. The latency (ms per reply)
 * leaves time to try `replanner pause` while the run goes.
 */
export function scriptTryout(model: ScriptedModel, scenario: TryoutScenario, latencyMs: number, onRequest?: (purpose: string) => void): void {
  model.latencyMs = latencyMs;
  // Each purpose's responder tells `onRequest` first.
  const on = (purpose: string, responder: Responder) =>
    model.always(purpose, (req) => {
      onRequest?.(purpose);
      return typeof responder === 'function' ? responder(req) : responder;
    });
  on('goal_understanding', (req) => goalReply(req, scenario));
  on('replan_decision', (req) => decisionReply(req, scenario));
  on('task_decomposition', (req) => {
    const audience = audienceOf(req);
    const instruction = instructionOf(req);
    return {
      json: {
        tasks: TASKS.map((t) => ({ ...plannedTask(t), description: `${t.title}, for the instruction "${instruction}". Audience: ${audience}` })),
      },
    };
  });
  on('quality_judge', { json: { isAcceptable: true, issues: [], suggestions: [], overallScore: 90 } });
  on('action_sequence', {
    json: {
      actions: TASKS.map((t) => ({
        task_id: t.id,
        steps: [...Object.keys(t.files ?? {}).map((f) => `write ${f}`), ...(t.command ? [`run ${t.command.join(' ')}`] : [])],
      })),
    },
  });
  on('worker_step', workerReply);
  // `replanner doctor` on the try-it settings gets real answers to its checks.
  scriptDoctorProbes(on);
  // Judged from what really happened: a check command that failed leaves its task BLOCKED.
  on('judge', (req) => {
    const failed = failedCommand(req);
    if (failed) return { json: failedCommandVerdict(failed) };
    return {
      json: {
        success: true,
        shouldContinue: false,
        shouldReplan: false,
        reason: `scripted: task ${taskIdOf(req) ?? '?'} wrote its file`,
        missingRequirements: [],
        confidence: 0.9,
      },
    };
  });
  on('reflection', (req) => ({
    json: unfinishedReflection(req) ?? {
      evaluation_result: 'success',
      achievement_rate: 100,
      issues_identified: [],
      additional_actions: [],
      revision_scope: 'minor',
      summary: `scripted: the plan and the notes are in ${TRYOUT_DIR}/ (a real model would have done the work)`,
    },
  }));
}
