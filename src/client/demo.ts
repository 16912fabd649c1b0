// `npm run demo`: the whole pipeline offline. The LLM is the scripted model (src/scripted-model),
// an OpenAI-compatible server replaying a scripted scenario (said loudly: it is not a live model); Temporal is real
// (the persisted local dev server), and the worker really writes files and runs a command. The
// demo's worker is a detached process that stays, like the server: the Web UI's current details of
// a run come from a query, which needs a worker even after the run ended.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import { ScriptedModel } from '../scripted-model/server';
import { decision, scriptDecisions } from '../scripted-model/decisions';
import { plannedTask, scriptScenario, type Scenario } from '../scripted-model/scenario';
import { routeOf } from '../route';
import { builtWorkflowBundle } from '../workflow-bundle-path';
import { replannerCommand } from '../domain/printed-commands';
import { purposeCounts } from '../domain/words/pauses';
import { ensureServer, localServerStopCommand, settingsFromEnv, webUiUrl } from './backend';
import { renderStatus } from './render';
import { startRun } from './runs';
import { eventPrinter, watchEvents } from './watch';
import { startWorker, stopWorker } from './worker-start';
import { readRecords } from './workers';

const INSTRUCTION = 'Create a slugify(text) module with a test that runs, and document how to use it.';

const SLUGIFY = `// Turns any text into a URL slug.
function slugify(text) {
  return String(text).normalize('NFKD').replace(/[\\u0300-\\u036f]/g, '')
    .toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}
module.exports = { slugify };
`;
const TEST = `const assert = require('node:assert');
const { slugify } = require('../slugify');
assert.strictEqual(slugify('Hello, World!'), 'hello-world');
assert.strictEqual(slugify('  Crème brûlée  '), 'creme-brulee');
console.log('slugify: 2 checks passed');
`;

const DEMO_SCENARIO: Scenario = {
  workerDelayMs: 150,
  // The test command really runs in the sandbox: when it fails, the run says so (BLOCKED, and why).
  judgeFromEvidence: true,
  goal: {
    main_objective: 'A tested slugify module with usage documentation',
    success_criteria: ['slugify.js exports slugify', 'the test runs and passes', 'USAGE.md explains the API'],
    constraints: ['no dependencies'],
    ambiguities: [],
    assumptions: ['Node.js CommonJS module'],
    task_profile: 'MULTI_STEP_TASK',
  },
  tasks: [
    { id: 'module', title: 'Write slugify.js', profile: 'FILE_OPERATION', files: { 'slugify.js': SLUGIFY } },
    {
      id: 'test',
      title: 'Write and run the test',
      dependencies: ['module'],
      profile: 'DEBUGGING',
      files: { 'test/slugify.test.js': TEST },
      command: ['node', 'test/slugify.test.js'],
    },
    {
      id: 'docs',
      title: 'Document usage in USAGE.md',
      profile: 'CREATIVE_WRITING',
      files: { 'USAGE.md': "# slugify\n\n```js\nconst { slugify } = require('./slugify');\nslugify('Hello, World!'); // 'hello-world'\n```\n" },
    },
  ],
};

async function main(): Promise<number> {
  const print = (s: string) => process.stdout.write(`${s}\n`);
  print('=== Replanner offline demo ===');
  print('REPLAY: the LLM replies come from a scripted scenario served by a local OpenAI-compatible test');
  print('server — not a live model. Temporal, the workflows, the worker tools and the files are real.');
  if (process.env.OPENAI_API_KEY)
    print(`(OPENAI_API_KEY is set: \`${replannerCommand('run', '"<instruction>"', '--workspace DIR')}\` uses the live model.)`);

  const fake = await ScriptedModel.start({ logUnscripted: true });
  scriptScenario(fake, DEMO_SCENARIO);
  // One replan to watch: the first decomposition is one coarse task; the LLM asks (confidently) to
  // decompose again, and the planner's second plan has the module, its test and the docs apart.
  fake.script('task_decomposition', {
    json: { tasks: [plannedTask({ id: 'slugify', title: 'Write slugify.js, its test and USAGE.md' })] },
  });
  scriptDecisions(fake, {
    task_decomposition: [
      decision({ confidence: 0.85, type: 'task_redecomposition', issue: 'one task for the module, its test and the docs is too coarse' }),
    ],
  });
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-demo-'));
  const s = settingsFromEnv();
  // The CLI is fetched first (with progress), then the server is awaited: no wait times out on a download.
  const connection = await ensureServer(print);
  const taskQueue = `${DEMO_QUEUE}${process.pid}`;
  // The worker's environment: the scripted model, and no idle exit (it stays as long as the server).
  // A prebuilt bundle (REPLANNER_WORKFLOW_BUNDLE, tests) saves the seconds of bundling.
  const workerEnv: NodeJS.ProcessEnv = {
    ...process.env,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'offline-demo',
    REPLANNER_MODEL: 'scripted-replay',
    REPLANNER_TASK_QUEUE: taskQueue,
    REPLANNER_WORKER_IDLE_EXIT: 'off',
    REPLANNER_LLM_TIMEOUT_MS: '30000',
  };
  await stopEarlierDemoWorkers(print);
  // The build bundled the workflows already; from the sources the worker bundles them first.
  print(builtWorkflowBundle() ? 'Starting a worker…' : 'Starting a worker (it bundles the workflows first, about 10 s)…');
  await startWorker(connection, s, routeOf(workerEnv), workerEnv);
  let code = 1;
  try {
    const client = new Client({ connection, namespace: s.namespace });
    const { runId, handle } = await startRun(client, { instruction: INSTRUCTION, workspace, taskQueue });
    print(`Run ${runId} started on ${workspace}`);
    print(`Instruction: ${INSTRUCTION}`);
    // Through the same stream as `replanner watch`: every event once, in order, with the worker's tool calls.
    const show = eventPrinter(print, { runId });
    const final = await watchEvents(client, runId, show, { intervalMs: 300, onUnavailable: (why) => show.fallBack(why) });
    print('');
    print(renderStatus(final));
    print('');
    print(`Files the worker wrote in ${workspace}:`);
    for (const f of listFiles(workspace)) print(`  ${f}`);
    const calls = fake.requests.filter((r) => r.status === 200).length;
    print(`LLM requests replayed: ${calls} (${purposeCounts(fake.requests.filter((r) => r.status === 200).map((r) => r.purpose))})`);
    print(`Web UI: ${webUiUrl(s.namespace, handle.workflowId)}  (the plan: "Current Details" on that page)`);
    print("The dev server (persisted in .replanner/temporal.db) and the demo's worker keep running, so that");
    print(`page shows the plan and \`${replannerCommand('status', runId)}\` keeps working. The next demo replaces this worker.`);
    // The server's stop only where this clone's local server runs (not one of yours at TEMPORAL_ADDRESS).
    const stopServer = localServerStopCommand();
    const stopWorkerCommand = replannerCommand('worker', 'stop', taskQueue);
    print(stopServer ? `Stop both: ${stopWorkerCommand} && ${stopServer}` : `Stop the worker: ${stopWorkerCommand}`);
    code = final.status === 'DONE' ? 0 : 1;
  } finally {
    await connection.close();
    await fake.stop();
  }
  return code;
}

/** The demo's workers are on queues named after this prefix and the demo's pid. */
const DEMO_QUEUE = 'replanner-demo-';

/** The worker an earlier demo left: one demo's worker at a time. */
async function stopEarlierDemoWorkers(print: (s: string) => void): Promise<void> {
  for (const record of readRecords().filter((r) => r.taskQueue.startsWith(DEMO_QUEUE))) {
    if ((await stopWorker(record)) === 'stopped') print(`Stopped the earlier demo's worker (task queue ${record.taskQueue}).`);
  }
}

function listFiles(dir: string, base = dir): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.name !== '.replanner')
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name), base) : [path.relative(base, path.join(dir, e.name))]));
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(`demo failed: ${err instanceof Error ? err.stack : String(err)}`);
      process.exit(1);
    },
  );
}
