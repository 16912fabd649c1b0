// Issue 23: `npm run example:client` (examples/client.ts with the package's client entry point,
// `replanner/client`) end to end against the jest run's dev server, with no OPENAI_API_KEY: it says
// it is offline, starts a worker because none polls, starts a run, answers its question with the
// update, prints the final status DONE, and stops the worker it started.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { isOurWorker } from '../../src/client/workers';
import { temporalAddress } from '../support/harness';

it('B4 examples/client.ts starts a run with the client library, answers its question with the update, and ends DONE', async () => {
  const root = path.resolve(__dirname, '../..');
  const workersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-example-workers-'));
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-example-ws-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: temporalAddress(),
    OPENAI_API_KEY: '',
    REPLANNER_WORKERS_DIR: workersDir,
    // The worker it starts loads the test run's prebuilt bundle instead of bundling for seconds.
    REPLANNER_WORKFLOW_BUNDLE: process.env.REPLANNER_TEST_BUNDLE,
  };
  delete env.REPLANNER_TASK_QUEUE;
  delete env.OPENAI_BASE_URL;
  const child = spawn('npm', ['run', '--silent', 'example:client', '--', workspace], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  expect({ code, out }).toMatchObject({ code: 0 });

  expect(out).toContain('OFFLINE: no OPENAI_API_KEY');
  expect(out).toMatch(/Started a Replanner worker on task queue "replanner-[0-9a-f]{10}"/);
  const runId = /Started run (\S+) \(workflow run-\S+\) on task queue (\S+)/.exec(out)?.[1];
  expect(runId).toBeDefined();
  expect(out).toContain('Question q1 (clarification): Which format should the config file use?');
  expect(out).toContain('Answered q1: JSON, with a "greeting" key');
  expect(out).toContain(`Run ${runId}: DONE`);
  expect(fs.readFileSync(path.join(workspace, 'greeting.json'), 'utf8')).toContain('"greeting"');

  // The answer went through the answerClarification update: it is in the run's history.
  const connection = await Connection.connect({ address: temporalAddress() });
  try {
    const history = await new Client({ connection }).workflow.getHandle(`run-${runId}`).fetchHistory();
    const updates = (history.events ?? []).flatMap((e) =>
      e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name
        ? [e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest.input.name]
        : [],
    );
    expect(updates).toContain('answerClarification');
  } finally {
    await connection.close();
  }
  // The worker it started for the scripted LLM went with it.
  expect(out).toContain('Stopped the worker on');
  const pid = Number(/\(pid (\d+), log/.exec(out)?.[1]);
  expect(pid).toBeGreaterThan(0);
  expect(isOurWorker(pid)).toBe(false);
  expect(fs.readdirSync(workersDir).filter((f) => f.endsWith('.json'))).toEqual([]);
}, 240_000);
