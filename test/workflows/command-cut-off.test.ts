// O4: a worker step's command cut off because its worker stopped (SIGTERM: a graceful stop cancels
// the step in flight; `replanner worker stop`, a restart for a new key, an idle exit) is not
// recorded as a failed tool call: the step, retried by the next worker, runs the command again,
// and the task sees it succeed. Real worker processes, a real command in the real sandbox.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { FAST, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { startWorkerProcess } from '../support/worker-proc';
import { harnessForWorkerProcesses } from '../support/suite-hooks';
import { scriptScenario } from '../support/scenario';
import { recordedCalls } from '../support/transcripts';

let h: Harness;
const taskQueue = uniqueId('cut-off');
harnessForWorkerProcesses((x) => (h = x));

const startWorker = () => startWorkerProcess({ address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL });

it('O4 a command cut off by its worker stopping runs again in the retried step, and the step does not count it as failed', async () => {
  const check = ['sh', '-c', 'echo started >> starts.txt; sleep 3; echo finished >> ends.txt'];
  scriptScenario(h.fake, { tasks: [{ id: 'check', title: 'run the slow check', command: check }] });
  const ws = h.workspace();
  const runId = uniqueId('cut');
  const first = await startWorker();
  const handle = await h.client.workflow.start(RunWorkflow, {
    taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction: 'run the slow check', workspace: ws, options: FAST }],
  });

  // The command is running: stop its worker as `replanner worker stop` does (SIGTERM, a graceful stop).
  await until('the command to start', async () => (fs.existsSync(path.join(ws, 'starts.txt')) ? true : undefined), 90_000);
  first.child.kill('SIGTERM');
  expect(await first.exited).toMatchObject({ code: 0 });
  expect(fs.existsSync(path.join(ws, 'ends.txt'))).toBe(false);

  await startWorker();
  const result = (await handle.result()) as { tasks: { id: string; state: string }[] };
  expect(result.tasks).toEqual([expect.objectContaining({ id: 'check', state: 'DONE' })]);
  // Run twice (the cut-off attempt, then the retry), finished once, recorded once: as it really ended.
  expect(fs.readFileSync(path.join(ws, 'starts.txt'), 'utf8')).toBe('started\nstarted\n');
  expect(fs.readFileSync(path.join(ws, 'ends.txt'), 'utf8')).toBe('finished\n');
  expect(recordedCalls(ws, runId, 'check', 'run_command')).toEqual([
    { name: 'run_command', arguments: JSON.stringify({ argv: check }), id: expect.any(String), ok: true, output: 'exit code 0\n(no output)' },
  ]);
});
