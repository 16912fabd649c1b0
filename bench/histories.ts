// Reading a run's histories: events and bytes per workflow execution (every continued-as-new run),
// events by type, and the shape the floor replays (bench/floor-workflows.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { ScenarioTask } from '../test/support/scenario';
import type { FloorShape, FloorStep, FloorTask } from './floor-workflows';

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];

/** Sizes gathered while reading histories: each execution's encoded bytes, and events by type over all. */
interface HistorySink {
  bytes: number[];
  types: Record<string, number>;
}

/** Every run of a continued-as-new chain, oldest first (followed back by continuedExecutionRunId); sizes into `sink`. */
async function historyRuns(client: Client, workflowId: string, sink: HistorySink): Promise<HistoryEvent[][]> {
  const out: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (;;) {
    const h = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = h.events ?? [];
    out.unshift(events);
    sink.bytes.push(temporal.api.history.v1.History.encode(h).finish().length);
    const lines: string[] = [];
    for (const e of events) {
      const type = (temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, '');
      sink.types[type] = (sink.types[type] ?? 0) + 1;
      const what =
        e.activityTaskScheduledEventAttributes?.activityType?.name ??
        e.workflowExecutionSignaledEventAttributes?.signalName ??
        e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ??
        '';
      lines.push(
        `${String(e.eventId)} ${e.eventTime?.seconds?.toString() ?? ''}.${String(e.eventTime?.nanos ?? 0)
          .padStart(9, '0')
          .slice(0, 3)} ${type} ${what} ${temporal.api.history.v1.HistoryEvent.encode(e).finish().length}B`,
      );
    }
    // REPLANNER_BENCH_DUMP=DIR: each history as one line per event (id, time, type, activity/signal/child, bytes), to see where events go.
    const dump = process.env.REPLANNER_BENCH_DUMP;
    if (dump) {
      fs.mkdirSync(dump, { recursive: true });
      fs.writeFileSync(path.join(dump, `${workflowId}${runId ? `.${runId}` : ''}.txt`), `${lines.join('\n')}\n`);
      fs.appendFileSync(path.join(dump, 'sizes.txt'), `${workflowId} ${events.length} events ${sink.bytes[sink.bytes.length - 1]} bytes\n`);
    }
    const prev = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!prev) return out;
    runId = prev;
  }
}

export interface RunHistories {
  /** Events of every workflow execution of the run (the run, phases, execution, tasks; each continued-as-new run apart). */
  events: number[];
  /** The same executions' histories in bytes (protobuf-encoded, as the server sends them). */
  bytes: number[];
  /** Events of all those executions by type. */
  types: Record<string, number>;
  shape: FloorShape;
}

/** The events of the chain (oldest first), and each run's size into `counts` (the largest history is per run). */
async function historyEvents(client: Client, workflowId: string, counts: number[], sink: HistorySink): Promise<HistoryEvent[]> {
  const runs = await historyRuns(client, workflowId, sink);
  counts.push(...runs.map((r) => r.length));
  return runs.flat();
}

const countActivities = (events: HistoryEvent[]) => events.filter((e) => e.activityTaskScheduledEventAttributes).length;
export const children = (events: HistoryEvent[]) =>
  events
    .map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
    .filter((a): a is NonNullable<typeof a> => !!a)
    .map((a) => ({ id: a.workflowId ?? '', type: a.workflowType?.name ?? '' }));

/** Walks the run's workflows: event counts, and the shape the floor replays (children and activity counts in order). */
export async function runHistories(client: Client, runWfId: string, plan: ScenarioTask[], maxParallelTasks: number): Promise<RunHistories> {
  const counts: number[] = [];
  const sink: HistorySink = { bytes: [], types: {} };
  const runEvents = await historyEvents(client, runWfId, counts, sink);
  const steps: FloorStep[] = [];
  for (const e of runEvents) {
    if (e.activityTaskScheduledEventAttributes) {
      const last = steps[steps.length - 1];
      if (last && 'activities' in last) last.activities++;
      else steps.push({ activities: 1 });
      continue;
    }
    const child = e.startChildWorkflowExecutionInitiatedEventAttributes;
    if (!child?.workflowId) continue;
    const events = await historyEvents(client, child.workflowId, counts, sink);
    if (child.workflowType?.name !== 'ExecutionWorkflow') {
      steps.push({ phase: countActivities(events) });
      continue;
    }
    const tasks: FloorTask[] = [];
    for (const c of children(events).filter((x) => x.type === 'TaskWorkflow')) {
      const taskEvents = await historyEvents(client, c.id, counts, sink);
      const id = c.id.split('.task-')[1]?.split('.')[0] ?? c.id;
      tasks.push({ id, deps: plan.find((t) => t.id === id)?.dependencies ?? [], activities: countActivities(taskEvents) });
    }
    const own = countActivities(events);
    const perTask = tasks.length ? Math.floor(own / tasks.length) : 0;
    steps.push({ execution: { tasks, maxParallelTasks, activitiesPerTask: perTask, activitiesAfter: own - perTask * tasks.length } });
  }
  return { events: counts, bytes: sink.bytes, types: sink.types, shape: { steps } };
}

/** REPLANNER_BENCH_DUMP: a workflow's history and its children's, recursively (the floor's, to compare with Replanner's). */
export async function dumpTree(client: Client, workflowId: string): Promise<void> {
  const runs = await historyRuns(client, workflowId, { bytes: [], types: {} });
  for (const c of children(runs.flat())) await dumpTree(client, c.id);
}

/** Activity and workflow-task identities of a workflow and its children, recursively (every continued-as-new run). */
export async function workIdentities(
  client: Client,
  workflowId: string,
  out: { activities: string[]; workflowTasks: string[]; activityQueues: string[] },
): Promise<void> {
  const events = (await historyRuns(client, workflowId, { bytes: [], types: {} })).flat();
  for (const e of events) {
    if (e.activityTaskScheduledEventAttributes) out.activityQueues.push(e.activityTaskScheduledEventAttributes.taskQueue?.name ?? '');
    if (e.activityTaskStartedEventAttributes) out.activities.push(e.activityTaskStartedEventAttributes.identity ?? '');
    if (e.workflowTaskStartedEventAttributes) out.workflowTasks.push(e.workflowTaskStartedEventAttributes.identity ?? '');
  }
  for (const c of children(events)) await workIdentities(client, c.id, out);
}
