// Workspace affinity (issue 23): two worker processes on one endpoint queue, each owning the
// workspaces under its own roots on its own host. Every activity that touches a workspace runs on
// the worker of the host that owns it; planning calls spread over both; a workspace no worker owns
// is refused at start with the fix named.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startRun } from '../../src/client/runs';
import { NoWorkspaceHost } from '../../src/client/workspace-host';
import { statusQuery } from '../../src/workflows/messages';
import { FAST, uniqueId, type Harness } from '../support/harness';
import { harnessForWorkerProcesses, tempDirsForSuite } from '../support/suite-hooks';
import { startHostWorker } from '../support/worker-proc';
import { scriptScenario, fileTask } from '../support/scenario';
import { activitiesOfRun, hostOfIdentity, PLANNING, WORKSPACE_BOUND } from '../support/run-activities';
import { cli } from '../support/cli';

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));

const queue = uniqueId('affinity');
const tmp = tempDirsForSuite();

/** A worker process of `host` owning the workspaces under `root`. */
const hostWorker = (host: string, root: string) =>
  startHostWorker({ taskQueue: queue, llmBaseURL: h.fake.baseURL, host, roots: root, stateDir: tmp(`replanner-state-${host}-`) });

describe('workspace affinity', () => {
  it('B1 O2 two hosts: every workspace-bound activity runs on the owner host, planning calls on both; an unowned workspace is refused naming the fix', async () => {
    scriptScenario(h.fake, {
      tasks: [fileTask('a'), fileTask('b', ['a'])],
    });
    const rootA = tmp('replanner-host-a-');
    const rootB = tmp('replanner-host-b-');
    await hostWorker('host-a', rootA);
    await hostWorker('host-b', rootB);

    const spaces = [rootA, rootA, rootB, rootB].map((root, i) => {
      const ws = path.join(root, `ws${i}`);
      fs.mkdirSync(ws);
      return { ws, owner: root === rootA ? 'host-a' : 'host-b' };
    });
    const runs = await Promise.all(
      spaces.map(async (s) => ({
        ...s,
        ...(await startRun(h.client, { instruction: 'write the files', workspace: s.ws, taskQueue: queue, options: FAST })),
      })),
    );
    for (const r of runs) {
      // The run records its host: in status and as a search attribute.
      expect((await r.handle.query(statusQuery)).host).toBe(r.owner);
      expect((await r.handle.describe()).searchAttributes.ReplannerHost).toEqual([r.owner]);
    }
    const results = await Promise.all(runs.map((r) => r.handle.result()));
    expect(results.map((r) => r.status)).toEqual(['DONE', 'DONE', 'DONE', 'DONE']);

    const planningHosts = new Set<string>();
    for (const r of runs) {
      expect(fs.readFileSync(path.join(r.ws, 'a.txt'), 'utf8')).toBe('A');
      expect(fs.readFileSync(path.join(r.ws, 'b.txt'), 'utf8')).toBe('B');
      const acts = await activitiesOfRun(h.client, r.handle.workflowId);
      const bound = acts.filter((a) => WORKSPACE_BOUND.has(a.type) || (a.type === 'decideReplan' && a.taskQueue !== queue));
      // Every workspace-bound activity type of the run was seen, each on the owner's queue and worker.
      expect(new Set(bound.map((a) => a.type))).toEqual(new Set(['workerStep', 'understandGoal', 'judgeTask', 'decideReplan']));
      for (const a of bound) {
        expect({ type: a.type, queue: a.taskQueue, host: hostOfIdentity(a.identity) }).toEqual({
          type: a.type,
          queue: `${queue}@${r.owner}`,
          host: r.owner,
        });
      }
      const planning = acts.filter((a) => PLANNING.has(a.type) && a.taskQueue === queue);
      expect(planning.length).toBeGreaterThanOrEqual(6);
      for (const a of planning) planningHosts.add(hostOfIdentity(a.identity) ?? '?');
      // The workspace's own journal holds only what ran on its host.
      const journal = path.join(r.ws, '.replanner', 'runs', (await r.handle.query(statusQuery)).runId, 'journal');
      const journaled = fs.readdirSync(journal).map((f) => f.split('.')[0]);
      expect(new Set(journaled)).toEqual(new Set(['understandGoal', 'judgeTask', 'decideReplan']));
    }
    // Planning calls of these runs ran on both hosts' workers.
    expect([...planningHosts].sort()).toEqual(['host-a', 'host-b']);

    // A workspace under neither root: refused at start, naming the fix.
    const elsewhere = tmp('replanner-nobody-');
    const refused = startRun(h.client, { instruction: 'write the files', workspace: elsewhere, taskQueue: queue, options: FAST });
    await expect(refused).rejects.toThrow(NoWorkspaceHost);
    await expect(refused).rejects.toThrow(`no worker owns the workspace ${elsewhere}`);
    await expect(refused).rejects.toThrow(/REPLANNER_WORKSPACE_ROOTS=.* replanner worker/);
    // The CLI refuses it the same way, before anything starts (exit 3).
    process.env.REPLANNER_TASK_QUEUE = queue;
    try {
      const r = await cli('run', 'write the files', '--workspace', elsewhere);
      expect(r.code).toBe(3);
      expect(r.err).toContain(`no worker owns the workspace ${elsewhere}: the workers on task queue "${queue}" hold`);
      expect(r.err).toContain('REPLANNER_WORKSPACE_ROOTS=');
    } finally {
      delete process.env.REPLANNER_TASK_QUEUE;
    }
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  }, 300_000);
});
