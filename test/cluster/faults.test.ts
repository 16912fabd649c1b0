// Issue 29, faults in the cluster itself: mid-run, in execution with worker calls in flight, at a
// random moment, the history, matching or frontend service is killed with SIGKILL and started again,
// or PostgreSQL restarts without a checkpoint (`pg_ctl restart -m immediate`). Every run ends DONE,
// and no LLM call that was answered is asked again: counted at the scripted model server (a
// repeated call is the same purpose and the same messages answered twice).
import { randomInt } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startRun } from '../../src/client/runs';
import { statusQuery } from '../../src/workflows/messages';
import type { RecordedRequest } from '../support/fake-openai';
import { FAST, until, type Harness } from '../support/harness';
import { clusterForSuite, harnessForWorkerProcesses } from '../support/suite-hooks';
import { fourFileTasks, scriptScenario } from '../support/scenario';
import type { Service, TestCluster } from '../support/cluster';

let cluster: TestCluster;
let h: Harness;
clusterForSuite(
  (c) => (cluster = c),
  () => harnessForWorkerProcesses((x) => (h = x)),
);

interface FaultRow {
  fault: string;
  when: string;
  recoverMs: number;
  result: string;
  extraRequests: number;
  repeatedFinished: number;
}
const rows: FaultRow[] = [];
afterAll(() => {
  if (rows.length === 0) return;
  const table = [
    '| fault | when | time to recover | result | extra LLM requests | finished calls asked again |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) => `| ${r.fault} | ${r.when} | ${(r.recoverMs / 1000).toFixed(1)} s | ${r.result} | ${r.extraRequests} | ${r.repeatedFinished} |`,
    ),
  ].join('\n');
  console.log(`Cluster faults (issue 29):\n${table}`);
  // For the closing note: REPLANNER_FAULT_REPORT=<file> keeps the table.
  if (process.env.REPLANNER_FAULT_REPORT) fs.writeFileSync(process.env.REPLANNER_FAULT_REPORT, `${table}\n`);
});

const keyOf = (r: RecordedRequest) => `${r.purpose}\n${r.text}`;

/** Answered (200) calls asked again, and requests beyond one per distinct call. */
function repeats(requests: RecordedRequest[]): { repeatedFinished: number; extra: number } {
  const answered = new Map<string, number>();
  for (const r of requests) if (r.status === 200) answered.set(keyOf(r), (answered.get(keyOf(r)) ?? 0) + 1);
  const repeatedFinished = [...answered.values()].reduce((n, c) => n + c - 1, 0);
  return { repeatedFinished, extra: requests.length - new Set(requests.map(keyOf)).size + repeatedFinished };
}

/**
 * One run of four parallel tasks (five worker calls each, 400 ms apiece); once worker calls are in
 * flight, after a random 0-800 ms, at the next moment a worker call is in flight, `fault` strikes
 * and `recover` undoes it. Returns the row.
 */
async function runThrough(name: string, fault: () => Promise<void>, recover: () => Promise<void>): Promise<FaultRow> {
  h.fake.reset();
  scriptScenario(h.fake, { tasks: fourFileTasks(['a', 'b', 'c', 'd']), workerDelayMs: 400 });
  const ws = h.workspace();
  const { handle } = await startRun(h.client, { instruction: 'write the files', workspace: ws, taskQueue: h.taskQueue, options: FAST });
  const inFlight = () => h.fake.requestsFor('worker_step').filter((r) => r.finishedAt === undefined);
  await until('worker calls in flight', async () => (inFlight().length > 0 ? true : undefined), 120_000);
  // A random moment, then the next one with a worker call in flight (the calls come one after another per task).
  await new Promise((r) => setTimeout(r, randomInt(0, 800)));
  await until('a worker call in flight', async () => (inFlight().length > 0 ? true : undefined), 60_000);
  const answered = h.fake.requestsFor('worker_step').filter((r) => r.status === 200).length;
  const when = `execution, ${inFlight().length} worker call(s) in flight, ${answered}/20 worker calls answered`;
  const struck = Date.now();
  await fault();
  await recover();
  const restarted = Date.now();
  // Recovered: the run answers a query again and a new LLM call started after the restart.
  await until(
    'the run to make progress after the fault',
    async () => {
      await handle.query(statusQuery);
      return h.fake.requests.some((r) => r.startedAt >= restarted) ? true : undefined;
    },
    180_000,
  );
  const recoverMs = Date.now() - struck;
  const result = await handle.result();
  const { repeatedFinished, extra } = repeats(h.fake.requests);
  const row = { fault: name, when, recoverMs, result: result.status, extraRequests: extra, repeatedFinished };
  rows.push(row);
  // The files are all there: the run did its work once.
  for (const id of ['a', 'b', 'c', 'd'])
    for (const n of [1, 2, 3, 4]) expect(fs.readFileSync(path.join(ws, `${id}${n}.txt`), 'utf8')).toBe(`${id}${n}`);
  return row;
}

const killAndRestart = (service: Service) => [() => cluster.kill9(service), () => cluster.restart(service)] as const;

describe('issue 29 faults in the Temporal cluster mid-run', () => {
  it.each(['history', 'matching', 'frontend'] as const)(
    'B2 kill -9 of the %s service with tasks in flight, then a restart: DONE, no answered call asked again',
    async (service) => {
      const row = await runThrough(`kill -9 ${service}, restart`, ...killAndRestart(service));
      expect({ result: row.result, repeatedFinished: row.repeatedFinished }).toEqual({ result: 'DONE', repeatedFinished: 0 });
    },
    300_000,
  );

  it('B2 PostgreSQL restarted without a checkpoint (pg_ctl restart -m immediate) with tasks in flight: DONE, no answered call asked again', async () => {
    const row = await runThrough(
      'pg_ctl restart -m immediate',
      () => cluster.restartPostgres(),
      async () => undefined,
    );
    expect({ result: row.result, repeatedFinished: row.repeatedFinished }).toEqual({ result: 'DONE', repeatedFinished: 0 });
    expect(cluster.log('postgres')).toMatch(/database system was not properly shut down; automatic recovery in progress/);
  }, 300_000);
});
