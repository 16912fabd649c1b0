// `replanner worker status` and `replanner worker stop <queue>|--all`: the workers `run` started
// (recorded in .replanner/workers/). Exit codes as the CLI's: 0 ok, 1 a worker did not stop in
// time, 2 usage, 3 no such worker.
import { formatDuration } from '../domain/worker-lifecycle';
import { displayPath, workerStatuses, workersDir } from './workers';
import { stopWorker } from './worker-start';
import { routeOf } from '../route';

export const WORKER_HELP = `Usage:
  replanner worker [--no-sandbox] [--sandbox-network]  run a worker in the foreground (Ctrl-C stops it)
  replanner worker status [--json]                     the workers \`run\` started, alive or not
  replanner worker stop <queue> [--json]               stop one gracefully (SIGTERM: tasks in flight end)
  replanner worker stop --all [--json]                 stop every worker \`run\` started

Several hosts: REPLANNER_HOST (default this machine's host name) names the worker's host, and
REPLANNER_WORKSPACE_ROOTS (absolute directories separated by ':'; default '/') the workspaces it owns.
Besides its endpoint-and-model queue it polls "<queue>@<host>", where a run's workspace work goes;
a run for a workspace no worker owns is refused at start.

Records and logs: ${displayPath(workersDir())}/<queue>.json and <queue>.log.
Exit codes: 0 ok · 1 a worker did not stop within 30 s · 2 usage error · 3 no such worker`;

export async function workerCommand(
  rest: string[],
  o: { json: boolean; all: boolean },
  print: (s: string) => void,
  say: (s: string) => void,
): Promise<number> {
  const [sub, ...args] = rest;
  const rel = displayPath;
  switch (sub) {
    case 'help':
      print(WORKER_HELP);
      return 0;
    case 'status': {
      if (args.length) return usage(say, `worker status takes no arguments (got "${args.join(' ')}")`);
      const all = workerStatuses();
      const route = routeOf();
      if (o.json) {
        print(JSON.stringify({ workers: all, thisShell: { taskQueue: route.taskQueue, endpoint: route.endpoint, model: route.model } }, null, 2));
        return 0;
      }
      print(`This shell's runs go to task queue "${route.taskQueue}" (model ${route.model} at ${route.endpoint}).`);
      if (!all.length) {
        print('No worker started by `replanner run` is recorded. (A worker you started yourself is not listed.)');
        return 0;
      }
      for (const w of all) {
        const age = formatDuration(Date.now() - Date.parse(w.startedAt));
        print(
          `${w.taskQueue}  ${w.alive ? 'alive' : 'gone '}  pid ${w.pid}  model ${w.model} at ${w.endpoint}  started ${w.startedAt} (${age} ago)  log ${rel(w.log)}`,
        );
      }
      return 0;
    }
    case 'stop': {
      if (o.all === args.length > 0 || args.length > 1) {
        return usage(say, 'worker stop needs one task queue or --all (see replanner worker status)');
      }
      const known = workerStatuses();
      const targets = o.all ? known : known.filter((w) => w.taskQueue === args[0]);
      if (!o.all && !targets.length) {
        const msg = `no worker started by \`replanner run\` is recorded for task queue "${args[0]}" (replanner worker status lists them; a worker you started yourself stops with Ctrl-C)`;
        if (o.json) print(JSON.stringify({ error: msg }));
        say(`replanner: ${msg}`);
        return 3;
      }
      const results: { taskQueue: string; pid: number; result: 'stopped' | 'gone' | 'timeout' }[] = [];
      for (const w of targets) results.push({ taskQueue: w.taskQueue, pid: w.pid, result: await stopWorker(w) });
      if (o.json) print(JSON.stringify({ stopped: results }, null, 2));
      else if (!results.length) print('No worker started by `replanner run` is recorded; nothing to stop.');
      else
        for (const r of results) {
          print(
            r.result === 'stopped'
              ? `Stopped the worker on "${r.taskQueue}" (pid ${r.pid}).`
              : r.result === 'gone'
                ? `The worker on "${r.taskQueue}" (pid ${r.pid}) was not running; its record is removed.`
                : `The worker on "${r.taskQueue}" (pid ${r.pid}) did not stop within 30 s; kill it with: kill -9 ${r.pid}`,
          );
        }
      return results.some((r) => r.result === 'timeout') ? 1 : 0;
    }
    default:
      return usage(say, `unknown worker command "${sub}"`);
  }
}

function usage(say: (s: string) => void, msg: string): number {
  say(`replanner: ${msg}\n\n${WORKER_HELP}`);
  return 2;
}
