// `replanner worker` runs a worker in the foreground; `worker status` and `worker stop <queue>|--all`
// show and stop the workers `run` started (recorded in .replanner/workers/).
import { Command } from 'commander';
import { replannerCommand } from '../../domain/printed-commands';
import { formatDuration } from '../../domain/worker-lifecycle';
import { routeOf } from '../../route';
import { stopWorker } from '../worker-start';
import { displayPath, workerStatuses, workersDir } from '../workers';
import { act, EXIT, UsageError, type CliContext } from './context';

const WORKER_NOTES = `
Examples:
  ${replannerCommand('worker')}                  run a worker in the foreground (Ctrl-C stops it)
  ${replannerCommand('worker status')}           the workers \`run\` started, alive or not
  ${replannerCommand('worker stop <queue>')}     stop one gracefully (SIGTERM: tasks in flight end)
  ${replannerCommand('worker stop --all')}       stop every worker \`run\` started

Several hosts: REPLANNER_HOST (default this machine's host name) names the worker's host, and
REPLANNER_WORKSPACE_ROOTS (absolute directories separated by ':'; default '/') the workspaces it owns.
Besides its endpoint-and-model queue it polls "<queue>@<host>", where a run's workspace work goes;
a run for a workspace no worker owns is refused at start.

Records and logs: ${displayPath(workersDir())}/<queue>.json and <queue>.log.
Exit codes: 0 ok · 1 a worker did not stop within 30 s · 2 usage error · 3 no such worker, or no Temporal server (foreground)`;

export function workerCommand(ctx: CliContext): Command {
  const worker = new Command('worker')
    .description('run a worker in the foreground, or show and stop the workers `run` started')
    .option('--no-sandbox', "run the worker's commands unconfined, with no bubblewrap sandbox (logged loudly; REPLANNER_SANDBOX=off)")
    .option('--sandbox-network', "let the worker's commands use the network (REPLANNER_SANDBOX_NETWORK=1; default: none)")
    // `worker help` prints this help; any other word is not a worker command.
    .allowExcessArguments()
    .addHelpText('after', WORKER_NOTES)
    .action(
      act(ctx, async (o: { sandbox: boolean; sandboxNetwork?: boolean }, self: Command) => {
        const [sub] = self.args;
        if (sub === 'help') {
          self.outputHelp();
          return EXIT.OK;
        }
        if (sub !== undefined) throw new UsageError(`unknown worker command "${sub}"`);
        return foreground(ctx, o);
      }),
    );
  return worker.addCommand(statusCommand(ctx)).addCommand(stopCommand(ctx));
}

async function foreground(ctx: CliContext, o: { sandbox: boolean; sandboxNetwork?: boolean }): Promise<number> {
  const { runWorkerProcess, TemporalUnreachable } = await import('../../worker-main');
  // The sandbox switches are the worker's own; they travel in its environment.
  if (!o.sandbox) process.env.REPLANNER_SANDBOX = 'off';
  if (o.sandboxNetwork) process.env.REPLANNER_SANDBOX_NETWORK = '1';
  try {
    await runWorkerProcess();
  } catch (e) {
    if (!(e instanceof TemporalUnreachable)) throw e;
    ctx.say(`replanner: ${e.message}`);
    return EXIT.UNAVAILABLE;
  }
  return EXIT.OK;
}

function statusCommand(ctx: CliContext): Command {
  return new Command('status')
    .description('the workers `run` started: queue, endpoint, model, pid, alive, started, log')
    .option('--json', 'machine-readable output')
    .action(
      act(ctx, async (o: { json?: boolean }) => {
        const all = workerStatuses();
        const route = routeOf();
        if (o.json) {
          ctx.json({ workers: all, thisShell: { taskQueue: route.taskQueue, endpoint: route.endpoint, model: route.model } });
          return EXIT.OK;
        }
        ctx.print(`This shell's runs go to task queue "${route.taskQueue}" (model ${route.model} at ${route.endpoint}).`);
        if (!all.length) {
          ctx.print('No worker started by `run` is recorded. (A worker you started yourself is not listed.)');
          return EXIT.OK;
        }
        for (const w of all) {
          const age = formatDuration(Date.now() - Date.parse(w.startedAt));
          ctx.print(
            `${w.taskQueue}  ${w.alive ? 'alive' : 'gone '}  pid ${w.pid}  model ${w.model} at ${w.endpoint}  started ${w.startedAt} (${age} ago)  log ${displayPath(w.log)}`,
          );
        }
        return EXIT.OK;
      }),
    );
}

function stopCommand(ctx: CliContext): Command {
  return new Command('stop')
    .description('stop a worker `run` started gracefully (SIGTERM: tasks in flight end)')
    .usage('<queue>|--all [--json]')
    .argument('[queue]', 'its task queue, as `worker status` lists it')
    .option('--all', 'every worker `run` started')
    .option('--json', 'machine-readable output')
    .action(
      act(ctx, async (queue: string | undefined, o: { all?: boolean; json?: boolean }) => {
        if (Boolean(o.all) === (queue !== undefined))
          throw new UsageError(`worker stop needs one task queue (${replannerCommand('worker status')} lists them) or --all`);
        const known = workerStatuses();
        const targets = o.all ? known : known.filter((w) => w.taskQueue === queue);
        if (!o.all && !targets.length) {
          const msg = `no worker started by \`run\` is recorded for task queue "${queue}" (${replannerCommand('worker status')} lists them; a worker you started yourself stops with Ctrl-C)`;
          if (o.json) ctx.print(JSON.stringify({ error: msg }));
          ctx.say(`replanner: ${msg}`);
          return EXIT.UNAVAILABLE;
        }
        const results: { taskQueue: string; pid: number; result: 'stopped' | 'gone' | 'timeout' }[] = [];
        for (const w of targets) results.push({ taskQueue: w.taskQueue, pid: w.pid, result: await stopWorker(w) });
        if (o.json) ctx.json({ stopped: results });
        else if (!results.length) ctx.print('No worker started by `run` is recorded; nothing to stop.');
        else for (const r of results) ctx.print(stoppedLine(r));
        return results.some((r) => r.result === 'timeout') ? EXIT.RUN_NOT_DONE : EXIT.OK;
      }),
    );
}

function stoppedLine(r: { taskQueue: string; pid: number; result: 'stopped' | 'gone' | 'timeout' }): string {
  if (r.result === 'stopped') return `Stopped the worker on "${r.taskQueue}" (pid ${r.pid}).`;
  if (r.result === 'gone') return `The worker on "${r.taskQueue}" (pid ${r.pid}) was not running; its record is removed.`;
  return `The worker on "${r.taskQueue}" (pid ${r.pid}) did not stop within 30 s; kill it with: kill -9 ${r.pid}`;
}
