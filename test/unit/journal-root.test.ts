// Workspace affinity: where an LLM call's journal lives, and how a call made again after its host was
// lost finds the lost call's answer (journalOf) without ever reading another run's.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { journaled, journalRoot } from '../../src/activities/journal';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('LLM journal placement', () => {
  it('S4 beside the workspace on its host (or for a run without a host); in the worker state dir for a planning call on the endpoint queue', () => {
    const run = { workspace: '/srv/a/ws', runId: 'r1' };
    expect(journalRoot(run, 'q', '/state')).toBe('/srv/a/ws/.replanner/runs/r1');
    expect(journalRoot({ ...run, host: 'host-a' }, 'q@host-a', '/state')).toBe('/srv/a/ws/.replanner/runs/r1');
    expect(journalRoot({ ...run, host: 'host-a' }, 'q', '/state')).toBe('/state/runs/r1');
  });

  it('S4 O2 a call made again names the lost call: its journaled answer is reused; another run never shares it', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-journal-'));
    dirs.push(root);
    const env = (activityId: string, runId = 'run-1') =>
      new MockActivityEnvironment({ activityId, activityType: 'judgeTask', workflowExecution: { workflowId: 'run-x.task-a', runId } });
    let calls = 0;
    const compute = async () => `answer ${++calls}`;
    // The lost call (activity 7) finished its LLM call and journaled it before its host died.
    expect(await env('7').run(() => journaled(root, compute))).toBe('answer 1');
    // The call made again (activity 12) names it: no new LLM call.
    expect(await env('12').run(() => journaled(root, compute, '7'))).toBe('answer 1');
    // Without the name, or in another workflow run, or with a malformed name: its own call.
    expect(await env('13').run(() => journaled(root, compute))).toBe('answer 2');
    expect(await env('12', 'run-2').run(() => journaled(root, compute, '7'))).toBe('answer 3');
    expect(await env('14').run(() => journaled(root, compute, '../7'))).toBe('answer 4');
  });
});
