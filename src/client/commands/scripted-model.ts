// `replanner scripted-model`: serves the scripted OpenAI-compatible model in the foreground, so a
// new user can try `run`, `watch`, `answer`, `pause` and `diff` with no API key. It says plainly
// that it is not a real model, and prints the settings to export in another shell.
import { Command } from 'commander';
import { countProblem } from '../../domain/run-input';
import { ScriptedModel } from '../../scripted-model/server';
import { scriptTryout, TRYOUT_DIR, TRYOUT_QUESTION, TRYOUT_SCENARIOS, type TryoutScenario } from '../../scripted-model/tryout';
import { act, EXIT, UsageError, type CliContext } from './context';
// The port it listens on, and the model name it lists and answers to (runs go to the task queue of
// this name and its address): the README's try-it settings, which `run` recognises.
import { SCRIPTED_MODEL_NAME, SCRIPTED_MODEL_PORT } from '../../domain/model-check';

interface ScriptedModelOptions {
  port: string;
  host: string;
  scenario: string;
  latencyMs: string;
  quiet?: boolean;
}

export function scriptedModelCommand(ctx: CliContext): Command {
  return new Command('scripted-model')
    .description('serve a scripted stand-in for an LLM (not a real model), to try Replanner with no API key')
    .option('--port <n>', `the port to listen on (0: any free port)`, String(SCRIPTED_MODEL_PORT))
    .option('--host <address>', 'the address to listen on', '127.0.0.1')
    .option('--scenario <name>', `${TRYOUT_SCENARIOS.join(' or ')}: "ask" asks you one question first, "plain" asks none`, 'ask')
    .option('--latency-ms <n>', 'how long each reply takes, so there is time to try `pause`', '500')
    .option('--quiet', 'do not print a line for each request')
    .addHelpText(
      'after',
      `
Whatever the instruction, a run on the scripted model asks one question (with --scenario ask),
writes ${TRYOUT_DIR}/PLAN.md and ${TRYOUT_DIR}/NOTES.md in the workspace, checks them with one
command and ends DONE (BLOCKED, saying why, when that command fails: a sandbox that cannot run it,
say). It does not do what the instruction asks: it only lets you see how a run goes.
Stop it with Ctrl-C.

Exit codes: 0 stopped with Ctrl-C · 2 usage error or the port is taken`,
    )
    .action(act(ctx, (o: ScriptedModelOptions) => serve(ctx, o)));
}

async function serve(ctx: CliContext, o: ScriptedModelOptions): Promise<number> {
  const problem = countProblem('--port', o.port, 0, 65535) ?? countProblem('--latency-ms', o.latencyMs, 0, 60_000);
  if (problem) throw new UsageError(problem);
  if (!(TRYOUT_SCENARIOS as readonly string[]).includes(o.scenario)) {
    throw new UsageError(`--scenario must be ${TRYOUT_SCENARIOS.join(' or ')} (got "${o.scenario}")`);
  }
  let model: ScriptedModel;
  try {
    model = await ScriptedModel.start({ port: Number(o.port), host: o.host, label: 'scripted-model', models: [SCRIPTED_MODEL_NAME] });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${o.port} is taken; choose another with --port N (0: any free port)`, { cause: e });
    throw e;
  }
  const log = o.quiet ? undefined : (purpose: string) => ctx.print(`${new Date().toISOString().slice(11, 19)}  ${purpose}`);
  scriptTryout(model, o.scenario as TryoutScenario, Number(o.latencyMs), log);
  for (const line of introduction(model.baseURL, o.scenario as TryoutScenario, Number(o.latencyMs))) ctx.print(line);
  await stopped();
  await model.stop();
  ctx.print('Stopped the scripted model.');
  return EXIT.OK;
}

/** What it says when it starts: what it is, what to export, what to try. */
function introduction(baseURL: string, scenario: TryoutScenario, latencyMs: number): string[] {
  return [
    'SCRIPTED MODEL: this is not a real model. Every run it serves is the same short, scripted run,',
    'whatever the instruction: it plans two tasks, writes two small files in the workspace',
    `(${TRYOUT_DIR}/PLAN.md and NOTES.md), checks them with one command and ends DONE (BLOCKED, saying why, if that fails).`,
    scenario === 'ask'
      ? `First it asks you one question ("${TRYOUT_QUESTION}"), so you can try \`answer\`.`
      : 'It asks no question (--scenario plain).',
    `Each reply takes ${latencyMs} ms, so there is time to try \`pause\` and \`resume\`.`,
    '',
    `Listening on ${baseURL}. In another shell:`,
    '',
    `  export OPENAI_BASE_URL=${baseURL} OPENAI_API_KEY=scripted REPLANNER_MODEL=${SCRIPTED_MODEL_NAME}`,
    '  mkdir -p /tmp/tryout',
    '  npx replanner run "write a short guide to our API" --workspace /tmp/tryout   # prints the run id',
    '  npx replanner watch <runId>            # follow it; it waits for your answer',
    '  npx replanner answer <runId> q1 "my team"',
    '  npx replanner pause <runId>            # and: npx replanner resume <runId>',
    '  npx replanner diff <runId>             # the files it wrote',
    '',
    'Stop it with Ctrl-C. (`run` starts a worker for it; `npx replanner worker stop --all` stops that too.)',
  ];
}

/** Resolves on Ctrl-C or SIGTERM. */
function stopped(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.removeListener('SIGINT', done);
      process.removeListener('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
