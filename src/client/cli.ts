// The `replanner` command line. Exit codes: 0 ok (a waited run ended DONE), 1 the run ended
// BLOCKED/FAILED/CANCELLED, 2 usage error, 3 Temporal unreachable or run not found.
import { parseArgs } from 'node:util';
import * as fs from 'node:fs';
import { BackendError, connect, ensureBackend, webUiUrl, type Backend } from './backend';
import { describeChanges, renderStatus } from './render';
import { AnswerRejected, answerConsultation, cancelRun, getStatus, listRuns, NotFound, startRun, watchRun } from './runs';
import type { RunStatus } from '../workflows/messages';

export const EXIT = { OK: 0, RUN_NOT_DONE: 1, USAGE: 2, UNAVAILABLE: 3 } as const;

const HELP = `replanner — a durable, self-replanning LLM agent orchestrator on Temporal

Usage:
  replanner run "<instruction>" --workspace DIR [--wait] [--json]   start a run (prints its id)
  replanner status <runId> [--json]                                 phase, tasks, counters, usage
  replanner watch <runId> [--json]                                  live progress until the run ends
  replanner list [--json] [--limit N]                               recent runs
  replanner cancel <runId> [--json]                                 cancel a run and its tasks
  replanner consult <runId> <taskId> <choice> ["guidance"] [--json] answer a task's Duck Pacemaker consultation
  replanner worker                                                  run a worker in the foreground

Consultations (shown by \`status\`): choice 1|stop, 2|guidance (needs the guidance text, which goes
into the task's next worker request), 3|continue (go on with a raised loop limit), 4|reset (reset and
replan the task). A rejected answer (nothing pending, unknown choice, no guidance text) exits 2.

Environment:
  TEMPORAL_ADDRESS (localhost:7233)  TEMPORAL_NAMESPACE (default)  REPLANNER_TASK_QUEUE (replanner)
  OPENAI_API_KEY  OPENAI_BASE_URL  REPLANNER_MODEL   the LLM (any OpenAI-compatible server)

When nothing answers at TEMPORAL_ADDRESS, \`run\` starts the persisted local dev server
(.replanner/temporal.db, Web UI on :8233) and a worker, and says so.

Exit codes: 0 ok · 1 the run ended BLOCKED, FAILED or CANCELLED · 2 usage · 3 Temporal unreachable / run not found
`;

class UsageError extends Error {}

/** Friendlier names for the consultation choices (the workflow knows 1-4 and the effect names). */
const CHOICE_ALIASES: Record<string, string> = { continue: 'continue_raised', reset: 'reset_replan', replan: 'reset_replan' };

export interface Output {
  write(s: string): unknown;
}

export async function main(argv: string[], out: Output = process.stdout, err: Output = process.stderr): Promise<number> {
  const print = (s: string) => out.write(`${s}\n`);
  const say = (s: string) => err.write(`${s}\n`);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string', short: 'w' },
        wait: { type: 'boolean' },
        json: { type: 'boolean' },
        limit: { type: 'string' },
        id: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    say(`replanner: ${(e as Error).message}\n\n${HELP}`);
    return EXIT.USAGE;
  }
  const { values: o, positionals: [cmd, ...rest] } = parsed;
  if (o.help || cmd === 'help') {
    print(HELP);
    return EXIT.OK;
  }
  if (!cmd) {
    say(HELP);
    return EXIT.USAGE;
  }
  const json = (v: unknown) => print(JSON.stringify(v, null, 2));
  let backend: Backend | undefined;
  try {
    switch (cmd) {
      case 'run': {
        const instruction = rest[0];
        if (instruction === undefined) throw new UsageError('run needs an instruction: replanner run "<instruction>" --workspace DIR');
        if (!o.workspace) throw new UsageError('run needs --workspace DIR (the directory the worker may change)');
        if (!fs.existsSync(o.workspace) || !fs.statSync(o.workspace).isDirectory()) {
          throw new UsageError(`--workspace ${o.workspace} is not a directory`);
        }
        backend = await ensureBackend(say);
        const { runId, handle } = await startRun(backend.client, {
          instruction,
          workspace: o.workspace,
          taskQueue: backend.taskQueue,
          runId: o.id,
        });
        const url = webUiUrl(backend.namespace, handle.workflowId);
        if (!o.wait) {
          if (o.json) json({ runId, workflowId: handle.workflowId, webUi: url });
          else print(`Started run ${runId} (workflow ${handle.workflowId})\nWeb UI: ${url}\nWatch it: replanner watch ${runId}`);
          return EXIT.OK;
        }
        if (!o.json) print(`Started run ${runId} — Web UI: ${url}`);
        const final = await watchRun(backend.client, runId, progressPrinter(o.json ? undefined : print));
        if (o.json) json(final);
        else print(renderStatus(final));
        return final.status === 'DONE' ? EXIT.OK : EXIT.RUN_NOT_DONE;
      }
      case 'status': {
        backend = await connect();
        const s = await getStatus(backend.client, needRunId(rest));
        if (o.json) json(s);
        else print(renderStatus(s));
        return EXIT.OK;
      }
      case 'watch': {
        backend = await connect();
        const show = progressPrinter(print);
        const final = await watchRun(backend.client, needRunId(rest), (s) => {
          if (o.json) print(JSON.stringify(s));
          else show(s);
        });
        if (!o.json) print(renderStatus(final));
        return final.status === 'DONE' ? EXIT.OK : EXIT.RUN_NOT_DONE;
      }
      case 'list': {
        backend = await connect();
        const runs = await listRuns(backend.client, Number(o.limit ?? 20));
        if (o.json) json(runs);
        else if (!runs.length) print('No runs yet. Start one: replanner run "<instruction>" --workspace DIR');
        else for (const r of runs) print(`${r.runId}\t${r.status ?? r.temporalStatus}\t${r.phase ?? ''}\t${r.startTime}\t${r.instruction ?? ''}`);
        return EXIT.OK;
      }
      case 'cancel': {
        backend = await connect();
        const runId = needRunId(rest);
        await cancelRun(backend.client, runId);
        if (o.json) json({ runId, cancelRequested: true });
        else print(`Cancellation requested for run ${runId}; its running tasks are being stopped.`);
        return EXIT.OK;
      }
      case 'consult': {
        const [runId, taskId, choice] = rest;
        // Unquoted guidance words are joined, so `consult r t guidance use lib/x.ts` works too.
        const guidance = rest.slice(3).join(' ') || undefined;
        if (!runId || !taskId || choice === undefined) {
          throw new UsageError('consult needs a run id, a task id and a choice: replanner consult <runId> <taskId> <choice> ["guidance"]');
        }
        backend = await connect();
        let ack;
        try {
          ack = await answerConsultation(backend.client, runId, taskId, { choice: CHOICE_ALIASES[choice] ?? choice, guidance });
        } catch (e) {
          if (e instanceof AnswerRejected) throw new UsageError(`the answer was rejected: ${e.message}`);
          throw e;
        }
        if (o.json) json(ack);
        else print(`Answered consultation ${ack.consultationId} of task ${ack.taskId}: ${ack.effect}`);
        return EXIT.OK;
      }
      case 'worker': {
        const { runWorkerProcess } = await import('../worker-main');
        await runWorkerProcess();
        return EXIT.OK;
      }
      default:
        throw new UsageError(`unknown command "${cmd}"`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      say(`replanner: ${e.message}\n(see replanner --help)`);
      return EXIT.USAGE;
    }
    if (e instanceof BackendError || e instanceof NotFound) {
      say(`replanner: ${e.message}`);
      return EXIT.UNAVAILABLE;
    }
    say(`replanner: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT.RUN_NOT_DONE;
  } finally {
    await backend?.close();
  }
}

function needRunId(rest: string[]): string {
  if (!rest[0]) throw new UsageError('this command needs a run id');
  return rest[0];
}

/** Prints what changed since the last status (phase, task states, run status). */
export function progressPrinter(print?: (s: string) => void): (s: RunStatus) => void {
  let prev: RunStatus | undefined;
  return (s) => {
    if (print) for (const line of describeChanges(prev, s)) print(line);
    prev = s;
  };
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
