// Driving Replanner from a script with @temporalio/client, the way Temporal's samples drive a
// workflow: connect, start, wait for a question, answer it with the update, print the final status.
//
//   npm run example:client                    # builds, then runs this file (dist/examples/client.js)
//   npm run example:client -- ./my-repo       # on a workspace of yours (default: a fresh temp dir)
//
// With OPENAI_API_KEY set it uses your LLM (OPENAI_BASE_URL, REPLANNER_MODEL) and answers the
// question with REPLANNER_EXAMPLE_ANSWER. Without a key it replays a scripted scenario from a local
// OpenAI-compatible test server, like `npm run demo`, and says so; Temporal, the worker, the files
// and the commands are real either way.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import {
  answerQuestion,
  ensureServer,
  ensureWorker,
  readRecord,
  renderStatus,
  routeOf,
  settingsFromEnv,
  startRun,
  stopWorker,
  waitForQuestion,
  watchRun,
} from 'replanner/client';
// Only for the offline mode: the package's scripted OpenAI-compatible model (as the demo uses it).
import { NO_REPLAN_DECISION, ScriptedModel, scriptScenario } from 'replanner/scripted-model';

const print = (line: string) => process.stdout.write(`${line}\n`);

const INSTRUCTION = 'Write a small config file for the greeting service and a check that reads it back.';

async function main(): Promise<number> {
  const offline = process.env.OPENAI_API_KEY ? undefined : await startScriptedLlm();
  // The environment the worker gets: yours, or the scripted LLM's endpoint with a placeholder key.
  const env: NodeJS.ProcessEnv = offline
    ? { ...process.env, OPENAI_BASE_URL: offline.baseURL, OPENAI_API_KEY: 'offline-example', REPLANNER_MODEL: 'scripted-replay' }
    : process.env;
  if (offline) {
    print('OFFLINE: no OPENAI_API_KEY, so the LLM replies come from a scripted scenario served by a local');
    print('OpenAI-compatible test server — not a live model. Temporal, the worker and the files are real.');
  }

  // 1. Connect (starting the persisted local dev server when nothing answers, as `replanner run` does).
  const { address, namespace } = settingsFromEnv(env);
  const connection = await ensureServer(print, env);
  const client = new Client({ connection, namespace });

  // 2. A worker for the run's task queue: the queue of the endpoint + model; started when none polls.
  const route = routeOf(env);
  await ensureWorker(connection, { address, namespace }, print, env, route);

  let code = 1;
  try {
    // 3. Start the run: workflow id run-<id>, its memo and search attributes, holding the workspace.
    const workspace = path.resolve(process.argv[2] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-example-')));
    const { runId, handle } = await startRun(client, { instruction: INSTRUCTION, workspace, taskQueue: route.taskQueue, holdWorkspace: true });
    print(`Started run ${runId} (workflow ${handle.workflowId}) on task queue ${route.taskQueue}, workspace ${workspace}`);

    // 4. Wait for its question and answer it with the answerClarification update.
    const question = await waitForQuestion(client, runId, { timeoutMs: 5 * 60_000 });
    if (question) {
      print(`Question ${question.id} (${question.kind}): ${question.text}`);
      if (question.assumptions.length) print(`  without an answer it would assume: ${question.assumptions.join('; ')}`);
      const answer = offline ? 'JSON, with a "greeting" key' : (process.env.REPLANNER_EXAMPLE_ANSWER ?? 'Use your best judgement; keep it small.');
      const ack = await answerQuestion(client, runId, question.id, answer);
      print(`Answered ${ack.questionId}: ${answer}`);
    } else {
      print('The run asked no question.');
    }

    // 5. Follow it to the end and print the final status.
    let phase = '';
    const final = await watchRun(client, runId, (s) => {
      if (s.phase !== phase) print(`  phase: ${(phase = s.phase)}`);
    });
    print('');
    print(renderStatus(final));
    code = final.status === 'DONE' ? 0 : 1;
  } finally {
    await connection.close();
    if (offline) {
      // The worker started for the scripted LLM would outlive it: stop it with the example.
      const record = readRecord(route.taskQueue, env);
      if (record) await stopWorker(record, env);
      await offline.stop();
      print(`Stopped the worker on ${route.taskQueue} and the scripted LLM.`);
    }
  }
  return code;
}

/** The scripted scenario: the goal is unclear about the format, so the run asks which one. */
async function startScriptedLlm(): Promise<ScriptedModel> {
  const fake = await ScriptedModel.start({ logUnscripted: true });
  scriptScenario(fake, {
    goal: {
      main_objective: 'A greeting config file and a check that reads it',
      success_criteria: ['greeting.json exists', 'the check prints the greeting'],
      constraints: ['no dependencies'],
      ambiguities: ['the config format is not given'],
      assumptions: ['JSON'],
      task_profile: 'MULTI_STEP_TASK',
    },
    tasks: [
      {
        id: 'config',
        title: 'Write greeting.json and a check that reads it',
        files: { 'greeting.json': '{ "greeting": "hello" }\n', 'check.js': "console.log(require('./greeting.json').greeting);\n" },
        command: ['node', 'check.js'],
      },
    ],
  });
  // The first replan decision (after goal understanding) asks; later ones go on.
  fake.always('replan_decision', { json: NO_REPLAN_DECISION });
  fake.script('replan_decision', {
    json: {
      ...NO_REPLAN_DECISION,
      replan_needed: true,
      reasoning: 'the config format is not specified',
      replan_type: 'clarification_request',
      clarification_needed: true,
      clarification_questions: ['Which format should the config file use?'],
      issues_found: ['format unspecified'],
      assumptions_to_make: ['JSON'],
    },
  });
  return fake;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`example failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
