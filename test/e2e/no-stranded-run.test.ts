// Issue 23, nothing strands a run: `replanner run` auto-starts a worker with a short idle exit
// (20 s); the run asks a clarification with a short auto-assume timeout (1 minute) that nobody
// answers. The worker stays while the run is open (mayLeaveQueue), the timer fires on it, the run
// goes on with its assumptions and ends DONE — with no command typed after the start — and only
// then does the idle worker exit. No test worker: the worker is the detached process `run` started.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { cli } from '../support/cli';
import { FakeOpenAI } from '../support/fake-openai';
import { runOutcome, temporalAddress, uniqueId, until } from '../support/harness';
import { NO_REPLAN_DECISION, scriptScenario } from '../support/scenario';
import { isOurWorker, readRecords } from '../../src/client/workers';
import { MEMO_DECISIONS } from '../../src/domain/run/views';
import type { DecisionsView } from '../../src/workflows/messages';

const saved = { ...process.env };
const dirs: string[] = [];
let fake: FakeOpenAI;
let connection: Connection;
const tmp = (prefix: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  fake = await FakeOpenAI.start();
  connection = await Connection.connect({ address: temporalAddress() });
  delete process.env.REPLANNER_TASK_QUEUE;
  Object.assign(process.env, {
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'key-stranded',
    REPLANNER_MODEL: 'fake-model',
    REPLANNER_WORKERS_DIR: tmp('replanner-workers-'),
    REPLANNER_WORKFLOW_BUNDLE: process.env.REPLANNER_TEST_BUNDLE,
    REPLANNER_WORKER_IDLE_EXIT: '20s',
  });
});

afterAll(async () => {
  for (const r of readRecords()) if (isOurWorker(r.pid)) process.kill(r.pid, 'SIGKILL');
  process.env = saved;
  await fake?.stop();
  await connection?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

it('X14 an unanswered clarification goes on with its assumptions after auto_assume_timeout_minutes on an auto-started worker with a 20 s idle exit, and the run ends DONE with no command after the start', async () => {
  scriptScenario(fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }] });
  fake.always('replan_decision', { json: NO_REPLAN_DECISION });
  fake.script('replan_decision', {
    json: {
      ...NO_REPLAN_DECISION,
      replan_needed: true,
      reasoning: 'unclear',
      replan_type: 'clarification_request',
      clarification_needed: true,
      clarification_questions: ['Which format?'],
      issues_found: ['format unspecified'],
      assumptions_to_make: ['JSON'],
    },
  });
  const ws = tmp('replanner-ws-');
  const config = path.join(ws, 'replanner.yaml');
  fs.writeFileSync(config, 'replanning:\n  goal_understanding:\n    auto_assume_timeout_minutes: 1\n');
  const id = uniqueId('strand');
  const started = await cli('run', 'write one file', '--workspace', ws, '--config', config, '--id', id);
  expect({ code: started.code, err: started.err }).toMatchObject({ code: 0, err: expect.stringContaining('Started a Replanner worker') });
  const [record] = readRecords();
  expect(record).toBeDefined();

  // From here on only Temporal's own client watches: nothing that could start a worker.
  const client = new Client({ connection });
  const handle = client.workflow.getHandle(`run-${id}`);
  const began = Date.now();
  const result = await runOutcome(handle);
  expect(result.status).toBe('DONE');
  // It waited for the timeout (about 60 s), longer than the idle exit, on the same worker.
  expect(Date.now() - began).toBeGreaterThan(40_000);
  const desc = await handle.describe();
  const decisions = desc.memo?.[MEMO_DECISIONS] as DecisionsView;
  expect(decisions.questions.find((q) => q.text.includes('Which format?'))).toMatchObject({ status: 'timed_out' });
  const log = fs.readFileSync(record!.log, 'utf8');
  expect(log).toMatch(/no work for \d+s, but \d+ workflow\(s\) on its queue are open; staying/);
  // Then, with nothing open on its queue, the idle worker exits by itself.
  await until('the idle worker to exit', async () => (isOurWorker(record!.pid) ? undefined : true), 90_000);
  expect(fs.readFileSync(record!.log, 'utf8')).toMatch(/no work for \d+s; exiting \(no open workflow on its queue/);
}, 240_000);
