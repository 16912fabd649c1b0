// What the run reads from its own children. A child never tells the run what happened: it pokes
// (llmTrouble, taskConsultation), and the run reads the child's own state with a query through the
// inspectOwnWorkflow activity, which first asks the server whether that workflow really is the
// run's (or its execution phase's) child. A forged poke at worst makes the run look again and see
// the truth. The execution phase's progress (taskProgress, one report per change of its tasks)
// comes sealed with the token the run gave that phase (SealedProgressSchema): taken as it comes,
// without a read; a report the run cannot take in order (one came in between that it missed) makes
// it read the phase, as a poke does.
import { log, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import { consultationChange, freshTroubleObservation } from '../../domain/run/child-reads';
import { applyTaskProgress } from '../../domain/run/plan';
import { applyConsultation } from '../../domain/run/questions';
import type { Activities } from '../../activities';
import { taskWorkflowId } from '../execution';
import { rootMessage } from '../failures';
import {
  CurrentConsultationSchema,
  LlmTroubleObservationSchema,
  LlmTroublePokeSchema,
  parsePayload,
  SealedProgressSchema,
  TaskConsultationPokeSchema,
  TaskConsultationSchema,
  TaskProgressSchema,
} from '../messages';
import { coalescedPerKey } from './coalesce';
import type { RunEntity } from './entity';

/** One run of a child workflow. */
export interface ChildRef {
  workflowId: string;
  runId: string;
}

/** The run's children running now. */
export class RunningChildren {
  /** The phase child running now: the one told of a pause, the only one that may ask the budget. */
  phase: string | undefined;
  /** The running execution phase (the run started it, so it knows the exact run it reads progress from). */
  execution: ChildRef | undefined;
  /** S2: the token of the execution phase starting or running now, which seals its progress reports. */
  progressToken: string | undefined;
}

/**
 * Pokes about LLM trouble from one workflow while the run reads it ask for one more read after it,
 * not one read each (anyone can send them: a flood of them was a flood of activities; S2). Runs
 * recorded before it read once per poke; asked only when a read of that workflow is under way.
 */
const COALESCED_TROUBLE_READS = 'coalesced-trouble-reads';

const INSPECT_OPTIONS = { startToCloseTimeout: '30 seconds', retry: { initialInterval: '500 milliseconds', maximumAttempts: 3 } } as const;

export class ChildReads {
  /**
   * An ordinary activity: the run's workflow task completes while the read waits for the child (O6).
   * Runs recorded before RUN_WITHOUT_LOCAL_ACTIVITIES read from a local activity, which held the
   * run's workflow task open meanwhile; a worker with a full workflow cache evicts such a run and
   * drops the read with it, again and again.
   */
  private readonly inspect: Activities['inspectOwnWorkflow'];
  /** taskProgress: one read at a time; pokes during a read ask for one more after it. */
  private readingProgress = false;
  private progressPokedAgain = false;
  /** Per workflow run of the run's children, the number of its last LLM trouble observation taken. */
  private readonly troubleTaken = new Map<string, number>();
  /** Per workflow of the run: its LLM trouble reads under way, and whether a poke came meanwhile. */
  private readonly troubleReads = new Map<string, { reading: number; again: boolean }>();
  /** A task's consultation, one read per task at a time. */
  private readonly readConsultation = coalescedPerKey(
    (taskId: string) => this.consultationOf(taskId),
    (taskId, e) => log.warn(`could not read task ${taskId}'s consultation: ${rootMessage(e)}`),
  );

  constructor(
    private readonly entity: RunEntity,
    private readonly children: RunningChildren,
    private readonly runWorkflowId: string,
    withoutLocalActivities: boolean,
  ) {
    this.inspect = withoutLocalActivities
      ? proxyActivities<Activities>({ ...INSPECT_OPTIONS, summary: 'read a workflow of this run' }).inspectOwnWorkflow
      : proxyLocalActivities<Activities>(INSPECT_OPTIONS).inspectOwnWorkflow;
  }

  // ---------------------------------------------------------------- the execution phase's task states

  /** taskProgress: a sealed report is taken as it comes; a poke (or a report that does not follow on) makes the run read the phase. */
  progressReported(payload: unknown): void {
    if (typeof payload !== 'object' || payload === null || !('token' in payload)) return this.progressPoked();
    const p = parsePayload(SealedProgressSchema, payload);
    if (!p.ok) return log.warn(`ignored taskProgress: ${p.reason}`);
    const { token, since, report } = p.value;
    if (this.children.progressToken === undefined || token !== this.children.progressToken) {
      return log.warn('ignored taskProgress: not sealed by the execution phase this run is running');
    }
    // A report in between did not come (or not yet): what the phase has is read from it.
    if (since > this.entity.state.progressSeq) return this.progressPoked();
    this.entity.applyParsed('taskProgress', applyTaskProgress, report);
  }

  /** A poke: coalesced; while one look is under way, pokes ask for one more after it. */
  private progressPoked(): void {
    if (!this.children.execution) return log.warn('ignored taskProgress: no execution phase is running');
    if (this.readingProgress) return void (this.progressPokedAgain = true);
    this.readingProgress = true;
    void (async () => {
      try {
        do {
          this.progressPokedAgain = false;
          const target: ChildRef | undefined = this.children.execution;
          if (!target) break;
          await this.readProgress(target, () => this.children.execution === target);
        } while (this.progressPokedAgain);
      } catch (e) {
        log.warn(`could not read the execution phase's progress: ${rootMessage(e)}`);
      } finally {
        this.readingProgress = false;
      }
    })();
  }

  /** One read of the execution child's task states since the version the run has; applied if it is still that child's turn. */
  async readProgress(target: ChildRef, stillCurrent: () => boolean): Promise<void> {
    const s0 = this.entity.state;
    const args = [s0.progressSeq, s0.executionDecisions?.length ?? 0];
    const r = await this.inspect({ ...target, parentWorkflowId: this.runWorkflowId, query: 'executionProgress', args });
    if (!stillCurrent()) return; // the phase ended meanwhile: its result has the final states
    if (!r.ok) return log.warn(`ignored taskProgress: ${r.reason}`);
    this.entity.applyRead('taskProgress', TaskProgressSchema, applyTaskProgress, r.value);
  }

  // ---------------------------------------------------------------- LLM trouble

  /** The workflow of this run `from` names, asked what its own LLM calls returned; each observation taken once. */
  troublePoked(payload: unknown): void {
    const p = parsePayload(LlmTroublePokeSchema, payload);
    if (!p.ok) return log.warn(`ignored llmTrouble: ${p.reason}`);
    const from = p.value.from;
    if (!this.parentOf(from)) return log.warn(`ignored llmTrouble: ${from} is not a running workflow of this run`);
    const under = this.troubleReads.get(from);
    if (under && patched(COALESCED_TROUBLE_READS)) return void (under.again = true);
    void this.readTrouble(from);
  }

  /** Reads `from`'s LLM trouble, once more for pokes that came meanwhile (while it is still a workflow of this run). */
  private async readTrouble(from: string): Promise<void> {
    const r = this.troubleReads.get(from) ?? { reading: 0, again: false };
    this.troubleReads.set(from, r);
    r.reading += 1;
    try {
      for (let parent = this.parentOf(from); parent; parent = r.again ? this.parentOf(from) : undefined) {
        r.again = false;
        await this.inspect({ workflowId: from, parentWorkflowId: parent, query: 'llmTroubleState' }).then(
          (read) => this.troubleRead(from, read),
          (e: unknown) => log.warn(`could not ask ${from} about its LLM trouble: ${rootMessage(e)}`),
        );
      }
    } finally {
      r.reading -= 1;
      if (r.reading === 0) this.troubleReads.delete(from);
    }
  }

  private troubleRead(from: string, r: Awaited<ReturnType<Activities['inspectOwnWorkflow']>>): void {
    if (!r.ok) return log.warn(`ignored llmTrouble: ${r.reason}`);
    if (r.value === null) return log.warn(`ignored llmTrouble: ${from} has had no LLM trouble`);
    const o = parsePayload(LlmTroubleObservationSchema, r.value);
    if (!o.ok) return log.warn(`ignored llmTrouble: ${from} answered ${o.reason}`);
    // Each observation once: a poke naming a workflow whose latest trouble was already taken changes nothing.
    const who = `${from}/${r.runId}`;
    if (!freshTroubleObservation(this.troubleTaken.get(who), o.value.n)) return log.warn(`ignored llmTrouble: nothing new from ${from}`);
    this.troubleTaken.set(who, o.value.n);
    this.entity.llmTrouble({ trouble: o.value.trouble, ...(o.value.error !== undefined ? { error: o.value.error } : {}) });
  }

  /** Which workflow of this run `from` may be, and its parent: a phase child, or a task of the running execution. */
  private parentOf(from: string): string | undefined {
    const { runWorkflowId, children, entity } = this;
    if (from === children.phase) return runWorkflowId;
    if (!children.execution || !from.startsWith(`${runWorkflowId}.task-`)) return undefined;
    const round = entity.state.phaseRuns.execution ?? 1;
    return entity.state.tasks.some((t) => taskWorkflowId(runWorkflowId, t.id, round) === from) ? children.execution.workflowId : undefined;
  }

  // ---------------------------------------------------------------- a task's consultation

  consultationPoked(payload: unknown): void {
    const p = parsePayload(TaskConsultationPokeSchema, payload);
    if (!p.ok) return log.warn(`ignored taskConsultation: ${p.reason}`);
    this.readConsultation(p.value.taskId);
  }

  private async consultationOf(taskId: string): Promise<void> {
    const { entity } = this;
    const target = this.children.execution;
    const from = taskWorkflowId(this.runWorkflowId, taskId, entity.state.phaseRuns.execution ?? 1);
    if (!target || !entity.state.tasks.some((t) => t.id === taskId))
      return log.warn(`ignored taskConsultation: ${taskId} is not a running task of this run`);
    const r = await this.inspect({ workflowId: from, parentWorkflowId: target.workflowId, query: 'taskConsultationState' });
    if (this.children.execution !== target) return; // the phase ended meanwhile: its consultations ended with it
    if (!r.ok) return log.warn(`ignored taskConsultation: ${r.reason}`);
    const c = parsePayload(CurrentConsultationSchema, r.value);
    if (!c.ok) return log.warn(`ignored taskConsultation: task ${taskId} answered ${c.reason}`);
    const change = consultationChange(entity.state, taskId, c.value);
    if (change) entity.applyRead('taskConsultation', TaskConsultationSchema, applyConsultation, change);
  }
}
