// Where one run's history events go, by what needs them: `node dist/bench/events-floor.js DIR RUN`
// over the histories `REPLANNER_BENCH_DUMP=DIR` wrote (one line per event: id, time, type, what,
// bytes), RUN being a run's workflow id (`run-bench-<pid>-<n>`). It splits the run's tree into the
// parts bench/README.md weighs against the fewest events Temporal allows ("Why ≤ 11 events per
// call is out of reach"). A workflow task is put with the event that made the server schedule it.
import fs from 'node:fs';
import path from 'node:path';

interface Line {
  type: string;
  what: string;
}

const read = (file: string): Line[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [, , type = '', what = ''] = l.split(' ');
      return { type, what: what.endsWith('B') && /^\d+B$/.test(what) ? '' : what };
    });

const WFT = new Set(['WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED']);

/**
 * The run's own events by part: the lock (its activities, its child's start and end, the release
 * signal, the timer that bounds the wait for the lock's end: the serial run has no other timer),
 * the progress reports (the signal, its workflow task and the memo write it leads to), other memo
 * writes, search attributes, and the rest. The run waits for one activity or child at a time here,
 * so an activity's start and end belong with the last one scheduled.
 */
type Part = 'lock' | 'reports' | 'memo' | 'searchAttributes' | 'rest';

function runParts(events: Line[]): Record<Part, number> {
  const parts: Record<Part, number> = { lock: 0, reports: 0, memo: 0, searchAttributes: 0, rest: 0 };
  let cause: Part = 'rest';
  let lastActivity: Part = 'rest';
  let lockStarting = false;
  let lockEnding = false;
  const partOf = (e: Line): Part => {
    switch (e.type) {
      case 'WORKFLOW_TASK_SCHEDULED':
      case 'WORKFLOW_TASK_STARTED':
      case 'WORKFLOW_TASK_COMPLETED':
        return cause;
      case 'WORKFLOW_PROPERTIES_MODIFIED':
        return cause === 'reports' ? 'reports' : 'memo';
      case 'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES':
        return 'searchAttributes';
      case 'WORKFLOW_EXECUTION_SIGNALED':
        return e.what === 'taskProgress' ? 'reports' : 'rest';
      case 'ACTIVITY_TASK_SCHEDULED':
        return (lastActivity = /workspacelock/i.test(e.what) ? 'lock' : 'rest');
      case 'ACTIVITY_TASK_STARTED':
      case 'ACTIVITY_TASK_COMPLETED':
        return lastActivity;
      case 'START_CHILD_WORKFLOW_EXECUTION_INITIATED':
        lockStarting = e.what.startsWith('workspace-');
        return lockStarting ? 'lock' : 'rest';
      case 'CHILD_WORKFLOW_EXECUTION_STARTED':
        return lockStarting ? ((lockStarting = false), 'lock') : 'rest';
      case 'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED':
        lockEnding = true;
        return 'lock';
      case 'CHILD_WORKFLOW_EXECUTION_COMPLETED':
        return lockEnding ? ((lockEnding = false), 'lock') : 'rest';
      default:
        return e.type.startsWith('TIMER_') || e.type === 'EXTERNAL_WORKFLOW_EXECUTION_SIGNALED' ? 'lock' : 'rest';
    }
  };
  for (const e of events) {
    const part = partOf(e);
    parts[part] += 1;
    // What the server schedules a workflow task for: any event that is not a command's record.
    if (!WFT.has(e.type) && !COMMANDS.has(e.type)) cause = part;
  }
  return parts;
}

/** Events that record the workflow's own commands (they schedule no workflow task). */
const COMMANDS = new Set([
  'WORKFLOW_PROPERTIES_MODIFIED',
  'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
  'ACTIVITY_TASK_SCHEDULED',
  'START_CHILD_WORKFLOW_EXECUTION_INITIATED',
  'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
  'TIMER_STARTED',
  'TIMER_CANCELED',
  'MARKER_RECORDED',
  'ACTIVITY_TASK_STARTED',
]);

function main(): void {
  const [dir, run] = process.argv.slice(2);
  if (!dir || !run) {
    console.error('usage: node dist/bench/events-floor.js DIR RUN   (DIR from REPLANNER_BENCH_DUMP, RUN a run workflow id)');
    process.exit(2);
  }
  const files = fs.readdirSync(dir);
  const count = (re: RegExp) => files.filter((f) => re.test(f)).reduce((n, f) => n + read(path.join(dir, f)).length, 0);
  const esc = run.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const runEvents = read(path.join(dir, `${run}.txt`));
  const lockId = runEvents.find((e) => e.what.startsWith('workspace-'))?.what;
  const execution = files.filter((f) => new RegExp(`^${esc}\\.execution-`).test(f)).flatMap((f) => read(path.join(dir, f)));
  const executionReports = execution.filter(
    (e) => e.type.includes('EXTERNAL_WORKFLOW_EXECUTION_SIGNALED') || e.type === 'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
  ).length;
  const r = runParts(runEvents);
  const out = {
    tasks: count(new RegExp(`^${esc}\\.task-`)),
    phases: count(new RegExp(`^${esc}\\.(goal_understanding|task_decomposition|action_sequence|reflection)-`)),
    executionApartFromReports: execution.length - executionReports,
    runApartFromTheRest: r.rest,
    reports: executionReports + r.reports,
    runMemoAtOtherChanges: r.memo,
    searchAttributes: r.searchAttributes,
    lock: r.lock + (lockId ? read(path.join(dir, `${lockId}.txt`)).length : 0),
  };
  const total = Object.values(out).reduce((a: number, b: number) => a + b, 0);
  console.log(JSON.stringify({ ...out, total }, null, 2));
}

main();
