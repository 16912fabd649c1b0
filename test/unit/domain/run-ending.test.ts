// Issue 23 (O5): what a client shows for a run no worker answers for.
import { closedRunDecisions, closedRunStatus, endingLine, workerStartHint } from '../../../src/domain/run-ending';
import type { RunStatusView } from '../../../src/domain/run/views';

const recorded = (status: RunStatusView['status']): RunStatusView => ({
  runId: 'r1',
  instruction: 'do it',
  workspace: '/ws',
  phase: 'execution',
  status,
  tasks: [],
  phaseRuns: { execution: 1 },
  usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3, calls: 1 },
  blocked: [],
  questions: [{ id: 'q1', status: 'pending' } as never],
});

describe('O5 the final state of a closed run', () => {
  it('O5 what the workflow recorded wins when it ended the run itself', () => {
    const done = { ...recorded('DONE'), questions: [{ id: 'q1', status: 'answered' } as never] };
    expect(closedRunStatus({ runId: 'r1', recorded: done, ending: { temporalStatus: 'COMPLETED' } })).toBe(done);
  });

  it('V4 O5 a terminated run is TERMINATED with who and why, keeping what it recorded, its open questions closed with why', () => {
    const v = closedRunStatus({
      runId: 'r1',
      recorded: recorded('RUNNING'),
      ending: { temporalStatus: 'TERMINATED', reason: 'stuck', by: 'ops@host', at: '2026-01-01T00:00:00.000Z' },
    });
    expect(v).toMatchObject({ status: 'TERMINATED', phase: 'finished', phaseRuns: { execution: 1 } });
    expect(v.error).toBe('the run was terminated by ops@host: stuck (at 2026-01-01T00:00:00.000Z)');
    expect(v.questions).toEqual([{ id: 'q1', status: 'closed', closedWhy: 'the run was terminated' }]);
  });

  it('V4 a run that recorded its own end keeps it; a question it left open shows closed, with why', () => {
    const cancelled = recorded('CANCELLED');
    const v = closedRunStatus({ runId: 'r1', recorded: cancelled, ending: { temporalStatus: 'CANCELLED' } });
    expect(v).toMatchObject({ status: 'CANCELLED', questions: [{ id: 'q1', status: 'closed', closedWhy: 'the run was cancelled' }] });
  });

  it('O5 a run that recorded nothing shows the memo’s instruction and Temporal’s status', () => {
    const v = closedRunStatus({ runId: 'r2', ending: { temporalStatus: 'TIMED_OUT' }, memo: { instruction: 'x', workspace: '/w' } });
    expect(v).toMatchObject({ runId: 'r2', instruction: 'x', workspace: '/w', status: 'TIMED_OUT', tasks: [] });
    expect(endingLine({ temporalStatus: 'TIMED_OUT' })).toBe('timed out (its execution timeout passed)');
    expect(closedRunStatus({ runId: 'r3', ending: { temporalStatus: 'FAILED', reason: 'boom' } })).toMatchObject({
      status: 'FAILED',
      error: 'the run was failed: boom',
    });
    expect(closedRunStatus({ runId: 'r3', recorded: recorded('RUNNING'), ending: { temporalStatus: 'CANCELLED' } }).status).toBe('CANCELLED');
  });

  it('O5 V4 a closed run with no recorded log has an empty one; a recorded log’s open questions show closed', () => {
    expect(closedRunDecisions(undefined, 'CANCELLED')).toMatchObject({ records: [], dropped: 0, questions: [] });
    const log = {
      records: [],
      dropped: 0,
      counters: closedRunDecisions(undefined, 'DONE').counters,
      questions: [{ id: 'q1', status: 'pending' } as never],
    };
    expect(closedRunDecisions(log, 'TERMINATED').questions).toEqual([{ id: 'q1', status: 'closed', closedWhy: 'the run was terminated' }]);
  });
});

describe('O5 how to start the worker of a queue', () => {
  it('O5 the caller’s own queue, a queue the CLI once served, any other queue', () => {
    expect(workerStartHint({ queue: 'q', callerQueue: 'q' })).toBe('start its worker from this shell: npx replanner worker');
    expect(workerStartHint({ queue: 'q', callerQueue: 'p', recorded: { endpoint: 'http://llm/v1', model: 'm' } })).toContain(
      'OPENAI_BASE_URL=http://llm/v1 REPLANNER_MODEL=m OPENAI_API_KEY=<key> npx replanner worker',
    );
    expect(workerStartHint({ queue: 'q', callerQueue: 'p' })).toContain('REPLANNER_TASK_QUEUE=q ');
  });
});
