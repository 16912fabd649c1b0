// G4: the run follows its pull request once its tasks are done. It reads the pull request every
// `pullRequest.pollSeconds` (at most a minute) on a durable timer, as an ordinary activity that
// heartbeats (a local one is dropped when a worker with a small cache evicts the run, and the run
// would never get past it), and continues as new when its history grows, so a run may follow for
// days. A failed check on the head, a "changes requested" review or a `/replanner <text>` comment
// from a user who may write goes through the replanning loop as one decision at the execution
// phase (its limits, loop detection, confidence bands and budget): a change adds tasks and the run
// goes back to plan them; no change, or a limit reached, is said on the pull request instead.
// Anything else (a reader's review, a bot's command) changes nothing and is logged. Merged or
// closed, or nothing new for `followHours`: the run ends.
import { allHandlersFinished, condition, continueAsNew, log, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { ReplannerConfig } from '../../domain/config';
import { followingLine, noteGit, type RunGit } from '../../domain/git/run-git';
import { feedbackTriggers, type PullRequestTrigger } from '../../domain/pull-request/feedback';
import { feedbackContext, feedbackDecision, feedbackJump, pullRequestName } from '../../domain/pull-request/run-feedback';
import { answeredTrigger, feedbackRead, follow, followExpired, stopFollowing, type RunPullRequest } from '../../domain/pull-request/run-state';
import { askInsteadReply, noChangeReply, reasoningOf } from '../../domain/pull-request/run-text';
import { feedbackSummary } from '../../domain/pull-request/summary';
import { decisionFactsOf, decisionSays } from '../../domain/words/decisions';
import { applyJump } from '../../domain/run/plan';
import type { Phase } from '../../domain/types';
import type { Activities } from '../../activities';
import { rootMessage } from '../failures';
import type { RunOptions } from '../options';
import type { CallGate } from '../call-gate';
import { isoNow, type RunEntity } from './entity';
import type { Notifier } from './notifications';
import type { createReplanning } from './replanning';
import type { ReplanningDeps } from './replanning-entity';
import { askReplanDecision } from './replanning-llm';
import type { HeldLock, RunInput, RunResult } from './start';

export interface FollowDeps {
  entity: RunEntity;
  config: ReplannerConfig;
  options: RunOptions;
  input: RunInput;
  notifier: Notifier;
  lock: () => HeldLock | undefined;
  gate: CallGate;
  replanning: ReturnType<typeof createReplanning>;
  replanningDeps: ReplanningDeps;
  acts: Pick<Activities, 'replyOnPullRequest'>;
}

const read = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 3,
    nonRetryableErrorTypes: ['ForgeRejected'],
  },
}).readPullRequestFeedback;

function setGit(entity: RunEntity, f: (g: RunGit) => RunGit): void {
  entity.apply((s) => (s.git ? { ...s, git: f(s.git) } : s));
}

function setPr(entity: RunEntity, f: (p: RunPullRequest) => RunPullRequest): void {
  setGit(entity, (g) => (g.pr ? { ...g, pr: f(g.pr) } : g));
}

/** G4: follows the pull request; the phase a piece of feedback sends the run back to, or undefined when following ends. */
export async function followPullRequest(deps: FollowDeps, settled: () => Promise<void>): Promise<Phase | undefined> {
  const { entity, config } = deps;
  const pollMs = config.pullRequest.pollSeconds * 1000;
  setPr(entity, (p) => follow(p, isoNow()));
  const name = () => pullRequestName(entity.state.git!.pr!.project.service, entity.state.git!.pr!.number!);
  for (;;) {
    await continueFollowingIfDue(deps, settled);
    await sleep(pollMs);
    const pr = entity.state.git!.pr!;
    let f;
    try {
      f = await read({
        project: pr.project,
        number: pr.number!,
        ...(pr.cursor ? { cursor: pr.cursor } : {}),
        seen: pr.seen,
        authority: pr.authority,
      });
    } catch (err) {
      // A read that failed is tried again at the next poll; a refusal is said once.
      log.warn(`could not read ${name()}: ${rootMessage(err)}`);
      if (!entity.state.git?.notes?.at(-1)?.startsWith('could not read'))
        setGit(entity, (g) => noteGit(g, `could not read ${name()}: ${rootMessage(err)}`));
      continue;
    }
    const out = feedbackTriggers(f, pr.seen);
    const summary = feedbackSummary(f);
    const changed = summary !== pr.summary;
    setPr(entity, (p) => feedbackRead(p, f, summary, out.seen));
    if (changed && f.state === 'open') setGit(entity, (g) => noteGit(g, followingLine(g) ?? summary));
    for (const line of out.logged) setGit(entity, (g) => noteGit(g, `${name()}: ${line} (nothing changed)`));
    if (f.state !== 'open') {
      setGit(entity, (g) => noteGit(g, `${name()} ${f.state === 'merged' ? 'merged' : 'closed without merging'}: the run ends`));
      setPr(entity, stopFollowing);
      return undefined;
    }
    if (out.triggers.length === 0) {
      if (!followExpired(entity.state.git!.pr!, Date.now(), config.pullRequest.followHours)) continue;
      setGit(entity, (g) => noteGit(g, `nothing new on ${name()} for ${config.pullRequest.followHours} hours: the run stops following it`));
      setPr(entity, stopFollowing);
      return undefined;
    }
    setPr(entity, (p) => follow(p, isoNow()));
    const target = await actOn(deps, out.triggers, name());
    if (target) return target;
  }
}

/** G4: one decision about the feedback of one read; the phase a change sends the run to, else the reply says why not. */
async function actOn(deps: FollowDeps, triggers: PullRequestTrigger[], source: string): Promise<Phase | undefined> {
  const { entity, replanning, config } = deps;
  const answered = triggers.map(answeredTrigger);
  const about = answered.map((t) => t.label).join(', ');
  setGit(entity, (g) => noteGit(g, `${source}: ${about} — deciding what to change`));
  await deps.gate.ready();
  const context = feedbackContext(entity.state, triggers, source);
  const recordsBefore = entity.state.log.records.length;
  const asked = await askReplanDecision(deps.replanningDeps, 'execution', context);
  const decision = feedbackDecision(asked.value, triggers);
  const jump = await replanning.afterPhase(
    'execution',
    context,
    { decision, ...(asked.parseError ? { parseError: asked.parseError } : {}) },
    { escalate: false },
  );
  if (jump) {
    const j = feedbackJump(jump, triggers);
    const s = entity.state;
    entity.apply((st) => ({
      ...applyJump(st, j, config.planning.maxTasks, isoNow()).state,
      ...(st.inProgress ? { inProgress: { ...st.inProgress, target: j.target } } : {}),
    }));
    setPr(entity, (p) => ({
      ...stopFollowing(p),
      answering: { triggers: answered, headBefore: s.git!.head, tasksBefore: s.tasks.map((t) => t.id) },
    }));
    setGit(entity, (g) => noteGit(g, `${source}: ${about} — new tasks: ${j.additionalActions?.length ?? 0}`));
    return j.target;
  }
  const record = entity.state.log.records.length > recordsBefore ? entity.state.log.records.at(-1) : undefined;
  const body =
    record === undefined
      ? askInsteadReply(about, 'replanning is turned off in its configuration (replanning.enabled: false)')
      : record.outcome === 'none'
        ? noChangeReply(about, reasoningOf(record.llm_decision))
        : askInsteadReply(about, record.message ?? decisionSays(decisionFactsOf(record)));
  const pr = entity.state.git!.pr!;
  const general = answered.find((t) => !t.inReplyTo);
  for (const t of answered.filter((x) => x.inReplyTo || x === general)) {
    await deps.acts.replyOnPullRequest({
      runId: entity.state.runId,
      project: pr.project,
      number: pr.number!,
      key: `pr-reply:${t.key}:${record?.outcome === 'none' ? 'nochange' : 'refused'}`,
      body,
      ...(t.inReplyTo ? { inReplyTo: t.inReplyTo } : {}),
    });
  }
  setGit(entity, (g) => noteGit(g, `${source}: ${about} — ${record?.outcome === 'none' ? 'no change needed' : 'not acted on'}; replied`));
  return undefined;
}

/** G4: a run that follows for days continues as new when its history grows, carrying its state (and following on). */
async function continueFollowingIfDue(deps: FollowDeps, settled: () => Promise<void>): Promise<void> {
  const info = workflowInfo();
  if (!info.continueAsNewSuggested && info.historyLength < deps.options.continueAsNewAfterEvents) return;
  await condition(allHandlersFinished);
  await settled();
  log.info(`continue-as-new while following its pull request (history ${info.historyLength} events)`);
  deps.entity.publish();
  await deps.notifier.drain(false);
  const lock = deps.lock();
  const carry = { state: deps.entity.state, next: 'reflection' as const, following: true as const, ...(lock ? { lock } : {}) };
  await continueAsNew<(input: RunInput) => Promise<RunResult>>({ ...deps.input, carry });
}
