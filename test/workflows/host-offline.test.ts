// Workspace affinity, O2: the workspace host's worker is SIGKILLed in the middle of a task. The run
// pauses with "workspace host … offline since …" within 30 s (the other host's worker keeps its
// workflows going), no task is BLOCKED, and once that host's worker is back the run goes on by itself
// and ends DONE without repeating a finished LLM call.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startRun } from '../../src/client/runs';
import { renderStatus } from '../../src/client/render';
import { statusQuery, type RunStatus } from '../../src/workflows/messages';
import { FAST, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { harnessForWorkerProcesses, tempDirsForSuite } from '../support/suite-hooks';
import { killWorker, startWorkerProcess } from '../support/worker-proc';
import { scriptScenario, type ScenarioTask } from '../support/scenario';
import { activitiesOfRun } from '../support/run-activities';

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));

const queue = uniqueId('host-offline');
const tmp = tempDirsForSuite();

describe('workspace host offline', () => {
  it('O2 the owner host killed mid-task: paused "workspace host … offline" within 30 s, no task BLOCKED, DONE after it returns, no finished LLM call repeated', async () => {
    const tasks: ScenarioTask[] = [
      { id: 'a', title: 'write a', files: { 'a1.txt': 'A1', 'a2.txt': 'A2' } },
      { id: 'b', title: 'write b', dependencies: ['a'], files: { 'b.txt': 'B' } },
    ];
    scriptScenario(h.fake, { tasks, workerDelayMs: 3000 });
    const rootA = tmp('replanner-host-a-');
    const rootB = tmp('replanner-host-b-');
    const stateA = tmp('replanner-state-a-');
    const worker = (host: string, root: string, state: string) =>
      startWorkerProcess({
        address: temporalAddress(),
        taskQueue: queue,
        llmBaseURL: h.fake.baseURL,
        env: { REPLANNER_HOST: host, REPLANNER_WORKSPACE_ROOTS: root, REPLANNER_STATE_DIR: state },
      });
    const a = await worker('host-a', rootA, stateA);
    await worker('host-b', rootB, tmp('replanner-state-b-'));
    const ws = path.join(rootA, 'ws');
    fs.mkdirSync(ws);
    // As the CLI starts it: a child of its workspace lock, so trouble must reach the run, not the root (the lock).
    const { handle } = await startRun(h.client, {
      instruction: 'write the files',
      workspace: ws,
      taskQueue: queue,
      options: FAST,
      holdWorkspace: true,
    });

    // SIGKILL host-a while a worker step's LLM call of task a is in flight (not finished: it is asked again).
    await until('a worker step in flight', async () => (h.fake.requestsFor('worker_step').some((r) => !r.finishedAt) ? true : undefined));
    await killWorker(a);
    const killedAt = Date.now();

    const paused: RunStatus = await until(
      'the run to pause for its host',
      async () => {
        const s = await handle.query(statusQuery).catch(() => undefined);
        return s?.pauses?.some((p) => p.kind === 'host_offline') ? s : undefined;
      },
      60_000,
    );
    const tookMs = Date.now() - killedAt;
    expect(tookMs).toBeLessThan(30_000);
    expect(paused.status).toBe('PAUSED');
    const pause = paused.pauses!.find((p) => p.kind === 'host_offline')!;
    expect(pause.reason).toMatch(/^workspace host host-a offline since \d{4}-\d\d-\d\dT/);
    // How to move on: bring the host back, or cancel.
    expect(pause.reason).toContain('REPLANNER_HOST=host-a');
    expect(pause.reason).toContain(`npx replanner cancel ${paused.runId}`);
    expect(renderStatus(paused)).toContain('PAUSED: the machine that holds the workspace is offline since');
    expect(renderStatus(paused)).toContain('it goes on by itself when one polls again');
    expect(paused.tasks.filter((t) => t.state === 'BLOCKED')).toEqual([]);

    // The host's worker returns: the run goes on by itself.
    await worker('host-a', rootA, stateA);
    const result = await handle.result();
    expect(result.status).toBe('DONE');
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([
      ['a', 'DONE'],
      ['b', 'DONE'],
    ]);
    expect(fs.readFileSync(path.join(ws, 'a2.txt'), 'utf8')).toBe('A2');
    expect(fs.readFileSync(path.join(ws, 'b.txt'), 'utf8')).toBe('B');

    // No finished LLM call repeated: exactly what the scenario needs (the call cut off by the kill never finished).
    const ok = (p: string) => h.fake.successfulFor(p).length;
    expect(ok('goal_understanding')).toBe(1);
    expect(ok('task_decomposition')).toBe(1);
    expect(ok('quality_judge')).toBe(1);
    expect(ok('action_sequence')).toBe(1);
    expect(ok('worker_step')).toBe(3 + 2);
    expect(ok('judge')).toBe(2);
    expect(ok('reflection')).toBe(1);
    expect(ok('replan_decision')).toBe(6);
    expect(h.fake.requestsFor('worker_step').filter((r) => r.status !== 200)).toHaveLength(1);
  }, 240_000);

  it('O2 a busy host is not offline: its only activity slot taken, a call it did not start in time asks its presence queue and waits; no pause, DONE', async () => {
    h.fake.reset();
    const busyQueue = uniqueId('host-busy');
    const tasks: ScenarioTask[] = [
      { id: 'p', title: 'write p', files: { 'p.txt': 'P' } },
      { id: 'q', title: 'write q', files: { 'q.txt': 'Q' } },
    ];
    scriptScenario(h.fake, { tasks, workerDelayMs: 7000 });
    const root = tmp('replanner-busy-');
    await startWorkerProcess({
      address: temporalAddress(),
      taskQueue: busyQueue,
      llmBaseURL: h.fake.baseURL,
      env: { REPLANNER_HOST: 'host-busy', REPLANNER_WORKSPACE_ROOTS: root, REPLANNER_MAX_CONCURRENT_ACTIVITIES: '1' },
    });
    const ws = path.join(root, 'ws');
    fs.mkdirSync(ws);
    const { handle } = await startRun(h.client, { instruction: 'write both', workspace: ws, taskQueue: busyQueue, options: FAST });
    const kinds = new Set<string>();
    let done = false;
    const watching = (async () => {
      while (!done) {
        const s = await handle.query(statusQuery).catch(() => undefined);
        for (const p of s?.pauses ?? []) kinds.add(p.kind);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const result = await handle.result();
    done = true;
    await watching;
    expect(result.status).toBe('DONE');
    expect(kinds.has('host_offline')).toBe(false);
    // The busy path was taken: a step waited past its start timeout and the host's presence was asked.
    const acts = await activitiesOfRun(h.client, handle.workflowId);
    expect(acts.filter((a) => a.type === 'hostPresent').length).toBeGreaterThan(0);
    expect(acts.filter((a) => a.type === 'hostPresent').every((a) => a.identity !== undefined)).toBe(true);
  }, 240_000);
});
