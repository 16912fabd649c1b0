// Issue 29, e2e on a real cluster: PostgreSQL and the four Temporal services as separate processes
// (scripts/ensure-cluster, deploy/temporal/), not the dev server. Two worker hosts in their own
// processes serve runs to DONE with workspace affinity; two clients race for one workspace 20 times
// and exactly one wins each time.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { WorkspaceBusy } from '../../src/client/workspace-lock';
import { startRun } from '../../src/client/runs';
import { FAST, temporalAddress, uniqueId, until, workflowExists, type Harness } from '../support/harness';
import { clusterForSuite, harnessForWorkerProcesses, tempDirsForSuite } from '../support/suite-hooks';
import { startHostWorker } from '../support/worker-proc';
import { scriptScenario } from '../support/scenario';
import { activitiesOfRun, hostOfIdentity, PLANNING, WORKSPACE_BOUND } from '../support/run-activities';
import type { TestCluster } from '../support/cluster';

let cluster: TestCluster;
let h: Harness;
clusterForSuite(
  (c) => (cluster = c),
  () => harnessForWorkerProcesses((x) => (h = x)),
);
const tmp = tempDirsForSuite();

describe('issue 29 on a Temporal cluster (PostgreSQL, four services)', () => {
  it('B1 the cluster is four server processes on PostgreSQL, and the harness talks to its frontend', async () => {
    const pids = (['frontend', 'history', 'matching', 'worker'] as const).map((s) => cluster.pid(s));
    expect(new Set(pids).size).toBe(4);
    expect(temporalAddress()).toBe(cluster.address);
    const info = await h.client.connection.workflowService.getSystemInfo({});
    expect(info.serverVersion).toBe('1.32.2');
  });

  it('B1 O2 two worker hosts: runs end DONE, workspace activities on the owning host, planning calls on both', async () => {
    const queue = uniqueId('cluster-hosts');
    scriptScenario(h.fake, {
      tasks: [
        { id: 'a', title: 'write a', files: { 'a.txt': 'A' } },
        { id: 'b', title: 'write b', dependencies: ['a'], files: { 'b.txt': 'B' } },
      ],
    });
    const root = tmp('replanner-cluster-host-a-');
    const worker = (host: string, roots: string) =>
      startHostWorker({ taskQueue: queue, llmBaseURL: h.fake.baseURL, host, roots, stateDir: tmp(`replanner-state-${host}-`) });
    await worker('host-a', root);
    // host-b owns no workspace (like compose's worker-b): an empty directory of its own.
    await worker('host-b', tmp('replanner-owns-nothing-'));

    const spaces = [0, 1, 2, 3].map((i) => {
      const ws = path.join(root, `ws${i}`);
      fs.mkdirSync(ws);
      return ws;
    });
    const runs = await Promise.all(
      spaces.map(async (ws) => ({
        ws,
        ...(await startRun(h.client, { instruction: 'write the files', workspace: ws, taskQueue: queue, options: FAST })),
      })),
    );
    const results = await Promise.all(runs.map((r) => r.handle.result()));
    expect(results.map((r) => r.status)).toEqual(['DONE', 'DONE', 'DONE', 'DONE']);
    const planningHosts = new Set<string>();
    for (const r of runs) {
      expect(fs.readFileSync(path.join(r.ws, 'b.txt'), 'utf8')).toBe('B');
      const acts = await activitiesOfRun(h.client, r.handle.workflowId);
      const bound = acts.filter((a) => WORKSPACE_BOUND.has(a.type));
      expect(new Set(bound.map((a) => a.type))).toEqual(WORKSPACE_BOUND);
      for (const a of bound)
        expect({ type: a.type, queue: a.taskQueue, host: hostOfIdentity(a.identity) }).toEqual({
          type: a.type,
          queue: `${queue}@host-a`,
          host: 'host-a',
        });
      for (const a of acts.filter((x) => PLANNING.has(x.type) && x.taskQueue === queue)) planningHosts.add(hostOfIdentity(a.identity) ?? '?');
    }
    expect([...planningHosts].sort()).toEqual(['host-a', 'host-b']);
  }, 300_000);

  it('S3 two clients (two connections, like two shells) start a run on one workspace at once, 20 times: exactly one starts each time', async () => {
    // test/e2e/workspace-lock.test.ts races real `replanner run` processes on the dev server; here
    // the race is the cluster's (the lock workflow's id conflict, on PostgreSQL), so two clients
    // of their own start together without paying for two process loads per round.
    h.fake.always('goal_understanding', { hangMs: 120_000 });
    const shells = await Promise.all([0, 1].map(async () => new Client({ connection: await Connection.connect({ address: temporalAddress() }) })));
    const started: string[] = [];
    try {
      for (let round = 0; round < 20; round++) {
        const ws = h.workspace();
        const ids = [uniqueId('race'), uniqueId('race')];
        const results = await Promise.allSettled(
          shells.map((client, i) =>
            startRun(client, { runId: ids[i], instruction: 'race me', workspace: ws, taskQueue: h.taskQueue, holdWorkspace: true }),
          ),
        );
        const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [ids[i]!] : []));
        const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
        expect({ round, won: won.length, refused: refused.map((e) => e instanceof WorkspaceBusy) }).toEqual({ round, won: 1, refused: [true] });
        expect(refused[0]!.message).toContain(`already has a running run: ${won[0]}`);
        // The refused run is closed and its deletion asked for; a cluster deletes in the background
        // (within about a minute), so here it is either gone or closed, never running.
        const loser = `run-${ids.find((id) => id !== won[0])}`;
        await until(
          `${loser} closed or deleted`,
          async () =>
            !(await workflowExists(h.client, loser)) || (await h.client.workflow.getHandle(loser).describe()).status.name !== 'RUNNING'
              ? true
              : undefined,
          30_000,
        );
        started.push(won[0]!);
        await h.client.workflow.getHandle(`run-${won[0]}`).cancel();
      }
      expect(new Set(started).size).toBe(20);
      for (const id of started)
        await h.client.workflow
          .getHandle(`run-${id}`)
          .result()
          .catch(() => undefined);
    } finally {
      h.fake.reset();
      await Promise.all(shells.map((c) => c.connection.close()));
    }
  }, 300_000);
});
