// V2: the run's event log lives in its workflow state: it survives continue-as-new (sequence numbers
// go on from the previous run of the chain) and reading it with a cursor adds nothing to history.
import { eventsQuery, statusQuery, type RunEvent } from '../../src/workflows/messages';
import { decision, scriptDecisions } from '../support/decisions';
import { FAST, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { harnessForSuite } from '../support/suite-hooks';
import { scriptScenario, fileTask } from '../support/scenario';

let h: Harness;
harnessForSuite((started) => (h = started));

describe('V2 the run event log', () => {
  it('V2 the event log survives continue-as-new: every phase entry of every run of the chain, sequence numbers monotonic, read once with a cursor', async () => {
    scriptScenario(h.fake, { tasks: [fileTask('a')] });
    scriptDecisions(h.fake, { reflection: [decision({ confidence: 0.6, type: 'plan_revision', issue: 'docs missing' })] });
    const { handle } = await startRun(
      h,
      { instruction: 'write the file a.txt', workspace: h.workspace(), options: { ...FAST, continueAsNewAfterEvents: 1 } },
      'ev',
    );
    expect((await handle.result()).status).toBe('DONE');
    // It really continued as new (one run per phase).
    const runs: string[] = [];
    for await (const w of h.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs.push(w.runId);
    expect(runs.length).toBeGreaterThan(3);

    const page = await handle.query(eventsQuery, 0);
    expect(page).toMatchObject({ firstSeq: 1, dropped: 0, more: false });
    const seqs = page.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(page.nextSeq).toBe(seqs.length + 1);
    // Every phase entry, also those of the first runs of the chain, in the order the phases ran.
    const phases = page.events.filter((e): e is Extract<RunEvent, { kind: 'phase' }> & { seq: number } => e.kind === 'phase');
    const status = await handle.query(statusQuery);
    expect(phases.length).toBe(Object.values(status.phaseRuns).reduce((n, x) => n + (x ?? 0), 0));
    expect(phases[0]).toMatchObject({ seq: 1, phase: 'goal_understanding', n: 1 });
    expect(phases.map((p) => `${p.phase}-${p.n}`)).toEqual([
      'goal_understanding-1',
      'task_decomposition-1',
      'action_sequence-1',
      'execution-1',
      'reflection-1',
      'action_sequence-2',
      'execution-2',
      'reflection-2',
    ]);
    expect(page.events.filter((e) => e.kind === 'decision' && e.replanType === 'plan_revision')).toHaveLength(1);
    expect(page.events.at(-1)).toMatchObject({ kind: 'run_end', status: 'DONE' });

    // A cursor reads only what follows it; a hostile argument reads from the start and changes nothing.
    const after = await handle.query(eventsQuery, seqs.length - 2);
    expect(after.events.map((e) => e.seq)).toEqual([seqs.length - 1, seqs.length]);
    const hostile = await h.client.workflow.getHandle(handle.workflowId).query<unknown, unknown[]>('events', { afterSeq: 'x' });
    expect((hostile as { events: unknown[] }).events).toHaveLength(seqs.length);
  });
});
