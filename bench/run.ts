// Benchmark: Replanner's makespan against the LLM-bound critical path and against Temporal's own
// floor (bench/floor-workflows.ts), measured in the same process on the same worker. Figures are
// defined in bench/README.md.
// Usage: npm run bench [-- --reps 3 --json --smoke --only a,b,c,d,e,scale --settings --scale-runs 20 --scale-latency 100]
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, type WorkerOptions } from '@temporalio/worker';
import { FakeOpenAI, type RecordedRequest } from '../test/support/fake-openai';
import { scriptScenario, taskIdOf, type ScenarioTask } from '../test/support/scenario';
import { devServerDynamicConfigArgs } from '../test/support/dev-server-config';
import { createWorker, sharedWorkflowModules, WORKER_NODE_ARGS, type ReplannerWorker } from '../src/worker';
import { RunWorkflow, runWorkflowId } from '../src/workflows/run';
import { SEARCH_ATTRIBUTE_KEYS } from '../src/workflows/search-attributes';
import { floorActivities } from './floor-activities';
import { FloorRunWorkflow, type FloorShape, type FloorStep, type FloorTask } from './floor-workflows';
import { startRun } from '../src/client/runs';
import {
  countByHost,
  countByQueue,
  machineCpuMs,
  medianRep,
  rootOfRun,
  scaleFigures,
  scaleWorkerSpecs,
  workspaceRootsEnv,
  type ScaleSample,
  type ScaleWorkerSpec,
} from './scale';

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];

export interface BenchOptions {
  reps: number;
  smoke: boolean;
  /** Scenarios to run: a (9-task graph), b (independent tasks), c (large plan), d (concurrent runs), e (worker settings), scale (1 worker process against 2). */
  only: string[];
  /** An existing dev server (jest); otherwise the bench starts its own. */
  address?: string;
  log?: (line: string) => void;
  /** Dev server dynamic config (`KEY=VALUE`), for a server the bench starts itself. */
  dynamicConfig?: string[];
  /** (e): the worker settings to measure (names of SETTINGS); default all. */
  settings?: string[];
  /** (scale): concurrent runs and the LLM's latency (defaults 20 and 100 ms; smoke 4 and 20 ms). */
  scale?: { runs?: number; latencyMs?: number };
}

/** Scenario names `--only` accepts. */
export const SCENARIOS = ['a', 'b', 'c', 'd', 'e', 'scale'];

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r1 = (x: number) => Math.round(x * 10) / 10;

/** The 9-task graph: `chains` independent chains of `length` tasks, then one task joining their ends. */
export function chainGraph(chains: number, length: number): ScenarioTask[] {
  const tasks: ScenarioTask[] = [];
  for (let c = 0; c < chains; c++) {
    for (let i = 0; i < length; i++) {
      const id = `c${c}s${i}`;
      tasks.push({ id, title: `chain ${c} step ${i}`, dependencies: i ? [`c${c}s${i - 1}`] : [], files: { [`${id}.txt`]: id } });
    }
  }
  tasks.push({
    id: 'join',
    title: 'join',
    dependencies: Array.from({ length: chains }, (_, c) => `c${c}s${length - 1}`),
    files: { 'join.txt': 'j' },
  });
  return tasks;
}

export function independent(n: number): ScenarioTask[] {
  return Array.from({ length: n }, (_, i) => ({ id: `t${i}`, title: `task ${i}`, files: { [`t${i}.txt`]: `${i}` } }));
}

// ------------------------------------------------------------------ the critical-path bound

/** The task an LLM request belongs to, if any: worker steps and judges name it; execution replan decisions carry it. */
export function requestTaskId(req: RecordedRequest): string | undefined {
  // The execution decision's prompt names its action as "**Executed Action:**\ntask <id>: <title>".
  if (req.purpose === 'replan_decision') return /\*\*Executed Action:\*\*\s*\ntask (\S+):/.exec(req.text)?.[1];
  if (req.purpose === 'worker_step' || req.purpose === 'judge') return taskIdOf(req);
  return undefined;
}

/**
 * LLM calls on the longest chain of dependent calls: every call not tied to a task (phases, their
 * quality judge and replan decisions, reflection and its decision) plus, along the heaviest
 * dependency path of the plan, each task's own calls (worker steps, judge, replan decision).
 */
export function criticalPathCalls(requests: RecordedRequest[], plan: ScenarioTask[]): { calls: number; perTask: Map<string, number> } {
  const perTask = new Map<string, number>();
  let phaseCalls = 0;
  for (const req of requests) {
    const id = requestTaskId(req);
    if (id !== undefined && plan.some((t) => t.id === id)) perTask.set(id, (perTask.get(id) ?? 0) + 1);
    else phaseCalls++;
  }
  const longest = new Map<string, number>();
  const depth = (t: ScenarioTask): number => {
    const known = longest.get(t.id);
    if (known !== undefined) return known;
    const before = Math.max(0, ...(t.dependencies ?? []).map((d) => depth(plan.find((p) => p.id === d)!)));
    const v = before + (perTask.get(t.id) ?? 0);
    longest.set(t.id, v);
    return v;
  };
  return { calls: phaseCalls + Math.max(0, ...plan.map(depth)), perTask };
}

// ------------------------------------------------------------------ histories → figures and the floor's shape

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

interface RunHistories {
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
const children = (events: HistoryEvent[]) =>
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

// ------------------------------------------------------------------ the bench

/** Reps of the 9-task graph's 0 ms rows at least (bench/README.md, "Dev server dynamic config (session 8)"). */
const SHORT_ROW_REPS = 5;

interface Ctx {
  client: Client;
  fake: FakeOpenAI;
  taskQueue: string;
  opts: BenchOptions;
  seq: number;
  /** CPU of the last floor run measured (bench process, dev server). */
  lastFloorCpu?: { bench: number; server: number };
}

export interface ReplannerFigures {
  tasks: number;
  latencyMs: number;
  maxParallelTasks: number;
  reps: number;
  makespanMs: number;
  llmCalls: number;
  llmCallsPerPurpose: Record<string, number>;
  criticalPathCalls: number;
  boundMs: number;
  makespanOverBound: number | null;
  overheadPerCriticalCallMs: number;
  historyEventsPerLlmCall: number;
  largestHistory: number;
  /** The largest history of any workflow execution of the run, in bytes. */
  largestHistoryBytes: number;
  /** History events per LLM call by event type (the last rep), to see where the events go. */
  eventsPerLlmCallByType: Record<string, number>;
  workflows: number;
  /** CPU ms of one run (median): the bench process (worker, client, fake LLM) and the dev server. */
  cpuMs: { bench: number; server: number };
}

/** CPU ms used so far (user + system, from /proc) by this process (worker, client, fake LLM) and by its children (the dev server it started). */
export function cpuNow(): { bench: number; server: number } {
  const ms = (stat: string) => {
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in ticks of 10 ms
  };
  let server = 0;
  for (const pid of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) server += ms(stat);
    } catch {
      /* ended meanwhile */
    }
  }
  return { bench: ms(fs.readFileSync('/proc/self/stat', 'utf8')), server };
}

const cpuSince = (c0: { bench: number; server: number }) => {
  const c1 = cpuNow();
  return { bench: c1.bench - c0.bench, server: c1.server - c0.server };
};

async function oneRun(ctx: Ctx, plan: ScenarioTask[], latencyMs: number, maxParallelTasks: number, config?: unknown) {
  const { client, fake } = ctx;
  fake.reset();
  scriptScenario(fake, { tasks: plan, latencyMs });
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-bench-'));
  const runId = `bench-${process.pid}-${++ctx.seq}`;
  const c0 = cpuNow();
  const t0 = performance.now();
  const handle = await client.workflow.start(RunWorkflow, {
    taskQueue: ctx.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction: 'bench', workspace: ws, options: { maxParallelTasks }, ...(config ? { config } : {}) }],
  });
  const res = await handle.result();
  const makespanMs = performance.now() - t0;
  // The run's CPU, as the floor's: up to its result, not the history reads below.
  const cpu = cpuSince(c0);
  if (res.status !== 'DONE') throw new Error(`bench run ${runId} ended ${res.status}`);
  const requests = [...fake.requests];
  const hist = await runHistories(client, handle.workflowId, plan, maxParallelTasks);
  fs.rmSync(ws, { recursive: true, force: true });
  return { makespanMs, requests, hist, cpu };
}

/** Events by type / LLM calls of one run, largest first. */
function perCall(run: { requests: RecordedRequest[]; hist: RunHistories }): Record<string, number> {
  const n = run.requests.length;
  return Object.fromEntries(
    Object.entries(run.hist.types)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => [k, Math.round((v / n) * 100) / 100]),
  );
}

/**
 * `reps` Replanner runs; with `withFloor`, each followed at once by one run of its floor (the same
 * shape, same maxParallelTasks), so each floor figure is measured beside the run it is compared
 * with: this shared machine's speed drifts over minutes (bench/README.md, "Parallel 16 (session 7)").
 */
async function replanner(
  ctx: Ctx,
  plan: ScenarioTask[],
  latencyMs: number,
  maxParallelTasks: number,
  reps: number,
  config?: unknown,
  withFloor = false,
) {
  const runs = [];
  const floorMs: number[] = [];
  for (let r = 0; r < reps; r++) {
    const run = await oneRun(ctx, plan, latencyMs, maxParallelTasks, config);
    runs.push(run);
    if (withFloor) floorMs.push(await floor(ctx, withParallel(run.hist.shape, maxParallelTasks), 1));
  }
  const perRun = runs.map((run) => {
    const cp = criticalPathCalls(run.requests, plan);
    const calls = run.requests.length;
    const events = run.hist.events.reduce((a, b) => a + b, 0);
    return {
      makespanMs: run.makespanMs,
      calls,
      cp: cp.calls,
      overhead: (run.makespanMs - latencyMs * cp.calls) / cp.calls,
      eventsPerCall: events / calls,
      largest: Math.max(...run.hist.events),
      largestBytes: Math.max(...run.hist.bytes),
      workflows: run.hist.events.length,
      cpu: run.cpu,
    };
  });
  const purposes: Record<string, number> = {};
  for (const req of runs[runs.length - 1]!.requests) purposes[req.purpose] = (purposes[req.purpose] ?? 0) + 1;
  const makespanMs = median(perRun.map((p) => p.makespanMs));
  const cp = median(perRun.map((p) => p.cp));
  const figures: ReplannerFigures = {
    tasks: plan.length,
    latencyMs,
    maxParallelTasks,
    reps,
    makespanMs: Math.round(makespanMs),
    llmCalls: median(perRun.map((p) => p.calls)),
    llmCallsPerPurpose: purposes,
    criticalPathCalls: cp,
    boundMs: latencyMs * cp,
    makespanOverBound: latencyMs > 0 ? Math.round((makespanMs / (latencyMs * cp)) * 100) / 100 : null,
    overheadPerCriticalCallMs: r1(median(perRun.map((p) => p.overhead))),
    historyEventsPerLlmCall: r1(median(perRun.map((p) => p.eventsPerCall))),
    largestHistory: Math.max(...perRun.map((p) => p.largest)),
    largestHistoryBytes: Math.max(...perRun.map((p) => p.largestBytes)),
    eventsPerLlmCallByType: perCall(runs[runs.length - 1]!),
    workflows: median(perRun.map((p) => p.workflows)),
    cpuMs: { bench: median(perRun.map((p) => p.cpu.bench)), server: median(perRun.map((p) => p.cpu.server)) },
  };
  ctx.opts.log?.(
    `  replanner ${plan.length} tasks, ${latencyMs} ms, parallel ${maxParallelTasks}: ${figures.makespanMs} ms (bound ${figures.boundMs} ms, ${figures.criticalPathCalls} critical calls)`,
  );
  return {
    figures,
    shape: runs[runs.length - 1]!.hist.shape,
    floorMs: withFloor ? Math.round(median(floorMs)) : undefined,
    /** Rep by rep: [Replanner ms, its floor's ms]. */
    pairs: runs.map((r, i) => [Math.round(r.makespanMs), Math.round(floorMs[i] ?? NaN)] as const),
  };
}

function shapeActivities(shape: FloorShape): number {
  let n = 0;
  for (const s of shape.steps) {
    if ('activities' in s) n += s.activities;
    else if ('phase' in s) n += s.phase;
    else n += s.execution.tasks.reduce((a, t) => a + t.activities + s.execution.activitiesPerTask, 0) + s.execution.activitiesAfter;
  }
  return n;
}

function withParallel(shape: FloorShape, maxParallelTasks: number): FloorShape {
  return { steps: shape.steps.map((s) => ('execution' in s ? { execution: { ...s.execution, maxParallelTasks } } : s)) };
}

async function floor(ctx: Ctx, shape: FloorShape, reps: number): Promise<number> {
  const ms: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    const c0 = cpuNow();
    await ctx.client.workflow.execute(FloorRunWorkflow, { taskQueue: ctx.taskQueue, workflowId: `floor-${process.pid}-${++ctx.seq}`, args: [shape] });
    ms.push(performance.now() - t0);
    ctx.lastFloorCpu = cpuSince(c0);
    if (process.env.REPLANNER_BENCH_DUMP) await dumpTree(ctx.client, `floor-${process.pid}-${ctx.seq}`);
  }
  return Math.round(median(ms));
}

/** REPLANNER_BENCH_DUMP: a workflow's history and its children's, recursively (the floor's, to compare with Replanner's). */
async function dumpTree(client: Client, workflowId: string): Promise<void> {
  const runs = await historyRuns(client, workflowId, { bytes: [], types: {} });
  for (const c of children(runs.flat())) await dumpTree(client, c.id);
}

/** Per sequential no-op activity and per bare child workflow (a child with no activity), from the difference of two floors. */
async function floorUnits(ctx: Ctx, reps: number) {
  const n = ctx.opts.smoke ? 10 : 20;
  await floor(ctx, { steps: [{ phase: 1 }] }, 1); // warm-up: the first workflow of a worker pays for its start
  const empty = await floor(ctx, { steps: [] }, reps);
  const acts = await floor(ctx, { steps: [{ activities: n }] }, reps);
  const kids = await floor(ctx, { steps: Array.from({ length: n }, () => ({ phase: 0 })) }, reps);
  return { emptyWorkflowMs: empty, perActivityMs: r1((acts - empty) / n), perChildWorkflowMs: r1((kids - empty) / n) };
}

async function startInProcessWorker(
  connection: NativeConnection,
  taskQueue: string,
  fake: FakeOpenAI,
  bundle: { code: string; sourceMap: string },
  overrides?: Partial<WorkerOptions>,
) {
  const worker: ReplannerWorker = await createWorker({
    connection,
    taskQueue,
    llm: { apiKey: 'k', baseURL: fake.baseURL, model: 'm', timeoutMs: 30_000 },
    workflowBundle: bundle,
    extraActivities: floorActivities,
    ...(overrides ? { overrides } : {}),
  });
  let failed: unknown;
  const running = worker.run().catch((err: unknown) => {
    failed = err;
  });
  // A setting the SDK refuses stops the worker at once; never start runs that would wait forever.
  await new Promise((r) => setTimeout(r, 1000));
  if (failed !== undefined || worker.getState() !== 'RUNNING') throw new Error(`worker did not start: ${String(failed)}`);
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}

function workerEnvFrom(spec: string | undefined): Record<string, string> {
  if (!spec) return {};
  return Object.fromEntries(spec.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

/** /proc figures of a process: CPU ms (user+system) and peak RSS (VmHWM) in MiB. */
function procStats(pid: number): { cpuMs: number; peakRssMiB: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, i.e. 11 and 12 after "(comm) ".
  const ticks = Number(fields[11]) + Number(fields[12]);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { cpuMs: (ticks * 1000) / 100, peakRssMiB: Math.round(Number(hwm) / 1024) };
}

async function concurrentRuns(ctx: Ctx, address: string, bundleFile: string, root: string, runs: number, latencyMs: number) {
  const { fake, client } = ctx;
  const taskQueue = `bench-proc-${process.pid}`;
  const plan = independent(3);
  fake.reset();
  scriptScenario(fake, { tasks: plan, latencyMs });
  const compiled = __filename.endsWith('.js');
  const script = compiled ? path.join(root, 'dist/src/worker-main.js') : path.join(root, 'test/support/worker-process.js');
  const child = spawn(process.execPath, [...WORKER_NODE_ARGS, script], {
    env: {
      PATH: process.env.PATH,
      TEMPORAL_ADDRESS: address,
      REPLANNER_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'k',
      REPLANNER_MODEL: 'm',
      REPLANNER_WORKFLOW_BUNDLE: bundleFile,
      REPLANNER_LOG_LEVEL: 'ERROR',
      // BENCH_WORKER_ENV=K=V,K2=V2: extra environment for the worker process (bench/README.md, RSS).
      ...workerEnvFrom(process.env.BENCH_WORKER_ENV),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const pid = child.pid!;
    const before = procStats(pid);
    const wss: string[] = [];
    const t0 = performance.now();
    const results = await Promise.all(
      Array.from({ length: runs }, async (_, i) => {
        const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-bench-'));
        wss.push(ws);
        const runId = `bench-conc-${process.pid}-${i}-${++ctx.seq}`;
        return client.workflow.execute(RunWorkflow, {
          taskQueue,
          workflowId: runWorkflowId(runId),
          args: [{ runId, instruction: 'bench', workspace: ws, options: { maxParallelTasks: 3 } }],
        });
      }),
    );
    const wallMs = performance.now() - t0;
    const after = procStats(pid);
    for (const ws of wss) fs.rmSync(ws, { recursive: true, force: true });
    const calls = fake.requests.length;
    const figures = {
      runs,
      tasksPerRun: plan.length,
      latencyMs,
      allDone: results.every((r) => r.status === 'DONE'),
      done: results.filter((r) => r.status === 'DONE').length,
      wallMs: Math.round(wallMs),
      llmCalls: calls,
      // CPU from the start of the first run to the end of the last (worker start-up excluded).
      workerCpuMsPerLlmCall: r1((after.cpuMs - before.cpuMs) / calls),
      workerPeakRssMiB: after.peakRssMiB,
    };
    ctx.opts.log?.(
      `  ${runs} concurrent runs: ${figures.done} DONE in ${figures.wallMs} ms, ${figures.workerCpuMsPerLlmCall} ms CPU per call, ${figures.workerPeakRssMiB} MiB peak`,
    );
    return figures;
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

// ------------------------------------------------------------------ (scale) 1 worker process against 2

export interface ScaleOptions {
  /** Concurrent runs per batch (default 20). */
  runs: number;
  /** The scripted LLM's fixed latency per call, ms. */
  latencyMs: number;
  /** Worker process counts to compare, in order. */
  workerCounts: number[];
}

/** A worker process of the scale scenario: worker-main (compiled) or test/support/worker-process.js (jest), like (d). */
function spawnScaleWorker(address: string, bundleFile: string, root: string, taskQueue: string, fakeURL: string, spec: ScaleWorkerSpec) {
  const compiled = __filename.endsWith('.js');
  const script = compiled ? path.join(root, 'dist/src/worker-main.js') : path.join(root, 'test/support/worker-process.js');
  return spawn(process.execPath, [...WORKER_NODE_ARGS, script], {
    env: {
      PATH: process.env.PATH,
      TEMPORAL_ADDRESS: address,
      REPLANNER_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: fakeURL,
      OPENAI_API_KEY: 'k',
      REPLANNER_MODEL: 'm',
      REPLANNER_WORKFLOW_BUNDLE: bundleFile,
      REPLANNER_LOG_LEVEL: 'ERROR',
      // Issue 23's settings: ignored by a worker without workspace affinity (both then share one queue).
      REPLANNER_HOST: spec.host,
      REPLANNER_WORKSPACE_ROOTS: workspaceRootsEnv(spec),
      ...workerEnvFrom(process.env.BENCH_WORKER_ENV),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Waits until every pid polls `taskQueue` for workflow tasks (a worker that exits first fails the bench). */
async function untilPolling(client: Client, taskQueue: string, children: ReturnType<typeof spawn>[], timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = children.find((c) => c.exitCode !== null);
    if (dead) throw new Error(`scale: worker process ${dead.pid} exited with ${dead.exitCode} before polling ${taskQueue}`);
    const res = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    const ids = (res.pollers ?? []).map((p) => p.identity ?? '');
    const seen = countByHost(ids, Object.fromEntries(children.map((c) => [c.pid!, String(c.pid)])));
    if (children.every((c) => seen[String(c.pid)])) return;
    if (Date.now() > deadline)
      throw new Error(`scale: worker processes not polling ${taskQueue} after ${timeoutMs} ms (pollers: ${ids.join(', ') || 'none'})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Activity and workflow-task identities of a workflow and its children, recursively (every continued-as-new run). */
async function workIdentities(
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

/** Stops a child process (SIGTERM) and waits for its exit. */
const stopChild = (child: ReturnType<typeof spawn>) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/**
 * One batch: `workers` worker processes (distinct REPLANNER_HOST, the roots split between them),
 * a warm-up run per worker, then `runs` concurrent runs with their workspaces alternating between
 * the roots. CPU per process from /proc over the batch; which host ran what from the histories.
 */
async function scaleBatch(
  ctx: Ctx,
  address: string,
  bundleFile: string,
  root: string,
  workers: number,
  roots: string[],
  so: ScaleOptions,
  criticalCallsPerRun: number,
  plan: ScenarioTask[],
) {
  const { client, fake } = ctx;
  const specs = scaleWorkerSpecs(workers, roots);
  const taskQueue = `bench-scale-${process.pid}-${++ctx.seq}`;
  const procs = specs.map((spec) => spawnScaleWorker(address, bundleFile, root, taskQueue, fake.baseURL, spec));
  const pidToHost = Object.fromEntries(procs.map((c, i) => [c.pid!, specs[i]!.host]));
  const wss: string[] = [];
  const batch = async (n: number, tag: string) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const ws = fs.mkdtempSync(path.join(rootOfRun(i, roots), `${tag}-`));
        wss.push(ws);
        const { handle } = await startRun(client, {
          instruction: 'bench',
          workspace: ws,
          taskQueue,
          runId: `bench-scale-${process.pid}-${tag}-${i}-${++ctx.seq}`,
          options: { maxParallelTasks: plan.length },
        });
        const res = await handle.result();
        return { workflowId: handle.workflowId, status: res.status };
      }),
    );
  try {
    await untilPolling(client, taskQueue, procs);
    fake.reset();
    scriptScenario(fake, { tasks: plan, latencyMs: so.latencyMs });
    // A fresh worker's first runs pay for its start (workflow bundle, connections): untimed.
    await batch(workers, 'warm');
    fake.reset();
    scriptScenario(fake, { tasks: plan, latencyMs: so.latencyMs });
    const before = procs.map((c) => procStats(c.pid!).cpuMs);
    const c0 = cpuNow();
    const m0 = machineCpuMs(fs.readFileSync('/proc/stat', 'utf8'));
    const t0 = performance.now();
    const results = await batch(so.runs, 'run');
    const makespanMs = performance.now() - t0;
    const m1 = machineCpuMs(fs.readFileSync('/proc/stat', 'utf8'));
    const cpu = cpuSince(c0);
    const workerCpu = procs.map((c, i) => procStats(c.pid!).cpuMs - before[i]!);
    const llmCalls = fake.requests.length;
    const ids = { activities: [] as string[], workflowTasks: [] as string[], activityQueues: [] as string[] };
    for (const r of results) await workIdentities(client, r.workflowId, ids);
    const sample: ScaleSample = {
      workers,
      runs: so.runs,
      makespanMs,
      llmCalls,
      latencyMs: so.latencyMs,
      criticalCallsPerRun,
      workerCpuMs: Object.fromEntries(specs.map((s, i) => [s.host, workerCpu[i]!])),
      // The dev server is this process's other child (when the bench started it): children's CPU less the workers'.
      serverCpuMs: ctx.opts.address ? null : Math.max(0, cpu.server - workerCpu.reduce((a, b) => a + b, 0)),
      benchCpuMs: cpu.bench,
      machine: { busyMs: m1.busyMs - m0.busyMs, totalMs: m1.totalMs - m0.totalMs },
      floorMakespanMs: NaN, // measured after the batches of the rep (scaleScenario)
    };
    return {
      sample,
      done: results.filter((r) => r.status === 'DONE').length,
      hosts: specs.map((s) => ({ host: s.host, roots: s.roots })),
      activitiesByHost: countByHost(ids.activities, pidToHost),
      workflowTasksByHost: countByHost(ids.workflowTasks, pidToHost),
      activitiesByQueue: countByQueue(ids.activityQueues, taskQueue),
    };
  } finally {
    await Promise.all(procs.map(stopChild));
    for (const ws of wss) fs.rmSync(ws, { recursive: true, force: true });
  }
}

/**
 * (scale): 1 worker process against 2 on this machine, `runs` concurrent 3-task runs at a fixed
 * LLM latency, reps interleaved (1, 2, floor; 1, 2, floor; …) so each configuration sees the machine
 * at the same moment; the floor is `runs` concurrent FloorRunWorkflows of one run's shape on the
 * bench's in-process worker.
 */
async function scaleScenario(ctx: Ctx, address: string, bundleFile: string, root: string, so: ScaleOptions, reps: number) {
  const plan = independent(3);
  // One run alone (in-process worker): its LLM calls on the critical path and the shape the floor replays.
  const solo = await oneRun(ctx, plan, so.latencyMs, plan.length);
  const critical = criticalPathCalls(solo.requests, plan).calls;
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-bench-scale-'));
  const roots = ['a', 'b'].map((r) => path.join(base, r));
  for (const r of roots) fs.mkdirSync(r);
  const per: Record<number, Awaited<ReturnType<typeof scaleBatch>>[]> = {};
  const floors: number[] = [];
  try {
    for (let r = 0; r < reps; r++) {
      const inRep: Awaited<ReturnType<typeof scaleBatch>>[] = [];
      for (const w of so.workerCounts) {
        const b = await scaleBatch(ctx, address, bundleFile, root, w, roots, so, critical, plan);
        (per[w] ??= []).push(b);
        inRep.push(b);
        ctx.opts.log?.(`  ${w} worker(s), ${so.runs} runs: ${b.done} DONE in ${Math.round(b.sample.makespanMs)} ms`);
      }
      const shape = withParallel(solo.hist.shape, plan.length);
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: so.runs }, () =>
          ctx.client.workflow.execute(FloorRunWorkflow, {
            taskQueue: ctx.taskQueue,
            workflowId: `floor-scale-${process.pid}-${++ctx.seq}`,
            args: [shape],
          }),
        ),
      );
      const floorMs = performance.now() - t0;
      floors.push(floorMs);
      for (const b of inRep) b.sample.floorMakespanMs = floorMs;
      ctx.opts.log?.(`  floor, ${so.runs} concurrent runs: ${Math.round(floorMs)} ms`);
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
  const cores = os.cpus().length;
  const configs = so.workerCounts.map((w) => {
    const m = medianRep(per[w]!.map((b) => ({ ...b, makespanMs: b.sample.makespanMs })));
    return {
      ...scaleFigures(m.sample, cores),
      repsMakespanMs: per[w]!.map((b) => Math.round(b.sample.makespanMs)),
      allDone: per[w]!.every((b) => b.done === so.runs),
      llmCalls: m.sample.llmCalls,
      hosts: m.hosts,
      activitiesByHost: m.activitiesByHost,
      workflowTasksByHost: m.workflowTasksByHost,
      activitiesByQueue: m.activitiesByQueue,
    };
  });
  const first = configs[0]!;
  const last = configs[configs.length - 1]!;
  return {
    runs: so.runs,
    tasksPerRun: plan.length,
    latencyMs: so.latencyMs,
    reps,
    cores,
    soloMakespanMs: Math.round(solo.makespanMs),
    criticalCallsPerRun: critical,
    llmBoundMs: critical * so.latencyMs,
    floorMakespanMs: Math.round(median(floors)),
    configs,
    /** Throughput of the last configuration over the first's (2 workers over 1). */
    speedUp: Math.round((first.makespanMs / last.makespanMs) * 100) / 100,
  };
}

/** Worker settings to measure against the default (bench/README.md, "What the engine allows"). */
const SETTINGS: Record<string, Partial<WorkerOptions>> = {
  default: {},
  'maxCachedWorkflows=0 (no sticky cache)': { maxCachedWorkflows: 0 },
  'maxConcurrentWorkflowTaskExecutions=2': { maxConcurrentWorkflowTaskExecutions: 2 },
  'maxConcurrentWorkflowTaskExecutions=20': { maxConcurrentWorkflowTaskExecutions: 20 },
  'maxConcurrentActivityTaskExecutions=100': { maxConcurrentActivityTaskExecutions: 100 },
  'workflow+activity pollers=10': {
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 10 },
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 10 },
  },
  'workflow pollers=2, activity pollers=1': {
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 2 },
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 1 },
  },
  'maxEagerActivityReservationsPerWorkflowTask=0 (no eager activities)': { maxEagerActivityReservationsPerWorkflowTask: 0 },
  'maxEagerActivityReservationsPerWorkflowTask=20': { maxEagerActivityReservationsPerWorkflowTask: 20 },
  'stickyQueueScheduleToStartTimeout=1s': { stickyQueueScheduleToStartTimeout: '1s' },
  'nonStickyToStickyPollRatio=0.01': { nonStickyToStickyPollRatio: 0.01 },
  'workflowThreadPoolSize=1': { workflowThreadPoolSize: 1 },
  'reuseV8Context=false': { reuseV8Context: false },
};

export async function runBench(opts: BenchOptions) {
  const log = opts.log;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    /* installed already (jest harness): keep it */
  }
  const reps = opts.reps;
  const only = new Set(opts.only);
  const root = path.resolve(__dirname, '..', fs.existsSync(path.resolve(__dirname, '..', 'package.json')) ? '' : '..');
  let env: TestWorkflowEnvironment | undefined;
  let address = opts.address;
  if (!address) {
    const cli = execFileSync('bash', [path.join(root, 'scripts/ensure-temporal')], { encoding: 'utf8' }).trim();
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: cli },
        searchAttributes: SEARCH_ATTRIBUTE_KEYS,
        // The project's dev-server config first; --dc values after it (bench/README.md).
        extraArgs: [
          '--log-level',
          'error',
          ...devServerDynamicConfigArgs(),
          ...(opts.dynamicConfig ?? []).flatMap((kv) => ['--dynamic-config-value', kv]),
        ],
      },
    });
    address = env.address;
  }
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    logger: quietLogger,
    preloadModules: sharedWorkflowModules(),
  });
  const bundleFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-bench-bundle-')), 'workflows.js');
  fs.writeFileSync(bundleFile, bundle.code);
  const fake = await FakeOpenAI.start({ logUnscripted: true });
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  const client = new Client({ connection: clientConnection });
  const ctx: Ctx = { client, fake, taskQueue: `bench-${process.pid}`, opts, seq: 0 };
  let worker = await startInProcessWorker(connection, ctx.taskQueue, fake, bundle);
  const out: Record<string, unknown> = {
    server: 'temporal dev server (TestWorkflowEnvironment.createLocal, CLI from scripts/ensure-temporal)',
    reps,
    smoke: opts.smoke,
  };
  try {
    const s = opts.smoke;
    out.floorUnits = await floorUnits(ctx, reps);
    log?.(`floor units: ${JSON.stringify(out.floorUnits)}`);

    if (only.has('a')) {
      log?.('(a) the chain graph');
      const plan = s ? chainGraph(2, 1) : chainGraph(4, 2);
      const latencies = s ? [0] : [0, 50, 300];
      const parallels = s ? [1, 2] : [1, 4];
      const rows: ReplannerFigures[] = [];
      const floors: Record<string, number> = {};
      for (const latency of latencies) {
        for (const p of parallels) {
          // The 0 ms rows (the floor gate) are runs of about a second, where one busy moment of this
          // shared machine moves a run by 20-50%: at least 5 reps each (Replanner and floor).
          const n = latency === 0 && !s ? Math.max(reps, SHORT_ROW_REPS) : reps;
          const { figures, shape, floorMs } = await replanner(ctx, plan, latency, p, n, undefined, latency === 0);
          rows.push(figures);
          if (floorMs !== undefined) {
            floors[`maxParallelTasks=${p}`] = floorMs;
            floors[`activities`] = shapeActivities(shape);
            log?.(`  floor parallel ${p}: ${floors[`maxParallelTasks=${p}`]} ms`);
          }
        }
      }
      const at = (l: number, p: number) => rows.find((r) => r.latencyMs === l && r.maxParallelTasks === p)!;
      const [p1, pN] = [parallels[0]!, parallels[1]!];
      const lMax = latencies[latencies.length - 1]!;
      out.graph = {
        tasks: plan.length,
        runs: rows,
        floor: floors,
        gates: {
          makespan0msSeqOverFloor: r1(at(0, p1).makespanMs / floors[`maxParallelTasks=${p1}`]!),
          overheadPerCall0msSeqMs: at(0, p1).overheadPerCriticalCallMs,
          overheadPerCall0msParMs: at(0, pN).overheadPerCriticalCallMs,
          [`makespanMinusBound${lMax}msParOverFloor0ms`]: r1((at(lMax, pN).makespanMs - at(lMax, pN).boundMs) / floors[`maxParallelTasks=${pN}`]!),
          [`makespanOverBound${lMax}msPar`]: at(lMax, pN).makespanOverBound,
        },
      };
    }

    if (only.has('b')) {
      log?.('(b) independent tasks');
      const plan = independent(s ? 4 : 64);
      const latency = s ? 20 : 50;
      // BENCH_B_PARALLELS=16 (comma-separated): only these maxParallelTasks, to study one of them.
      const parallels = process.env.BENCH_B_PARALLELS ? process.env.BENCH_B_PARALLELS.split(',').map(Number) : s ? [1, 4] : [1, 4, 16];
      const rows: ReplannerFigures[] = [];
      const floors: Record<string, number> = {};
      const floorCpu: Record<string, { bench: number; server: number }> = {};
      const pairs: (readonly [number, number])[][] = [];
      for (const p of parallels) {
        const r = await replanner(ctx, plan, latency, p, reps, { planning: { maxTasks: 200 } }, true);
        rows.push(r.figures);
        pairs.push(r.pairs);
        floors[`maxParallelTasks=${p}`] = r.floorMs!;
        floorCpu[`maxParallelTasks=${p}`] = ctx.lastFloorCpu!;
        log?.(`  floor parallel ${p}: ${floors[`maxParallelTasks=${p}`]} ms`);
      }
      const first = parallels[0]!;
      const last = parallels[parallels.length - 1]!;
      const speedUp = rows[0]!.makespanMs / rows[rows.length - 1]!.makespanMs;
      const floorSpeedUp = floors[`maxParallelTasks=${first}`]! / floors[`maxParallelTasks=${last}`]!;
      out.independent = {
        tasks: plan.length,
        latencyMs: latency,
        runs: rows,
        floor: floors,
        /** CPU ms of the floor's last run per maxParallelTasks (bench process, dev server); Replanner's are in runs[].cpuMs. */
        floorCpuMs: floorCpu,
        speedUp: Math.round(speedUp * 100) / 100,
        floorSpeedUp: Math.round(floorSpeedUp * 100) / 100,
        speedUpShareOfFloor: Math.round((speedUp / floorSpeedUp) * 100) / 100,
        /**
         * The same share rep by rep, each from runs measured side by side (rep i of the first and of
         * the last maxParallelTasks, each with its floor): how far one rep moves it on this machine.
         */
        speedUpSharePerRep: pairs[0]!.map(([r1, f1], i) => {
          const [rN, fN] = pairs[pairs.length - 1]![i]!;
          return Math.round((r1 / rN / (f1 / fN)) * 100) / 100;
        }),
      };
    }

    if (only.has('c')) {
      log?.('(c) a large plan');
      const plan = independent(s ? 10 : 200);
      const { figures } = await replanner(ctx, plan, 0, 16, 1, { planning: { maxTasks: 200 } });
      out.largePlan = figures;
    }

    if (only.has('d')) {
      log?.('(d) concurrent runs, worker in a child process');
      out.concurrent = await concurrentRuns(ctx, address, bundleFile, root, s ? 3 : 50, 50);
    }

    if (only.has('scale')) {
      log?.('(scale) 1 worker process against 2, concurrent runs');
      const so: ScaleOptions = { runs: opts.scale?.runs ?? (s ? 4 : 20), latencyMs: opts.scale?.latencyMs ?? (s ? 20 : 100), workerCounts: [1, 2] };
      out.scale = await scaleScenario(ctx, address, bundleFile, root, so, reps);
    }

    if (only.has('e')) {
      log?.('(e) worker settings');
      const plan = chainGraph(4, 2);
      const settings: Record<string, { replanner0msPar4Ms: number; floor0msPar4Ms: number; perActivityMs: number } | { error: string }> = {};
      const names = opts.settings ?? (s ? ['default', 'maxCachedWorkflows=0 (no sticky cache)'] : Object.keys(SETTINGS));
      const unknown = names.filter((n) => !(n in SETTINGS));
      if (unknown.length) throw new Error(`unknown setting(s) ${unknown.join(', ')}; known: ${Object.keys(SETTINGS).join(' | ')}`);
      let shape: FloorShape | undefined;
      for (const name of names) {
        await worker.stop();
        ctx.taskQueue = `bench-${process.pid}-${++ctx.seq}`;
        try {
          worker = await startInProcessWorker(connection, ctx.taskQueue, fake, bundle, SETTINGS[name]);
        } catch (err) {
          settings[name] = { error: (err as Error).message };
          log?.(`  ${name}: ${(err as Error).message}`);
          worker = await startInProcessWorker(connection, ctx.taskQueue, fake, bundle);
          continue;
        }
        const r = await replanner(ctx, plan, 0, 4, reps);
        shape ??= r.shape;
        const f = await floor(ctx, withParallel(shape, 4), reps);
        const units = await floorUnits(ctx, reps);
        settings[name] = { replanner0msPar4Ms: r.figures.makespanMs, floor0msPar4Ms: f, perActivityMs: units.perActivityMs };
        log?.(`  ${name}: ${JSON.stringify(settings[name])}`);
      }
      out.workerSettings = settings;
    }
  } finally {
    await worker.stop();
    await connection.close();
    await clientConnection.close();
    await fake.stop();
    await env?.teardown();
    fs.rmSync(path.dirname(bundleFile), { recursive: true, force: true });
  }
  return out;
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (m: string, meta?: unknown) => console.error(m, meta ?? ''),
};

function table(doc: Record<string, any>): string {
  const lines: string[] = [`Replanner bench (${doc.reps} reps, medians${doc.smoke ? ', smoke' : ''})`];
  lines.push(`floor: ${JSON.stringify(doc.floorUnits)}`);
  const rows = (title: string, rs: ReplannerFigures[]) => {
    lines.push('', title, 'tasks latency par | makespan bound  mk/bound | calls crit | ovh/crit-call | ev/call largest bytes | cpu bench server');
    for (const r of rs) {
      lines.push(
        `${String(r.tasks).padStart(5)} ${String(r.latencyMs).padStart(7)} ${String(r.maxParallelTasks).padStart(3)} | ${String(r.makespanMs).padStart(8)} ${String(r.boundMs).padStart(5)} ${String(r.makespanOverBound ?? '-').padStart(9)} | ${String(r.llmCalls).padStart(5)} ${String(r.criticalPathCalls).padStart(4)} | ${String(r.overheadPerCriticalCallMs).padStart(13)} | ${String(r.historyEventsPerLlmCall).padStart(6)} ${String(r.largestHistory).padStart(7)} ${String(r.largestHistoryBytes).padStart(9)} | ${String(r.cpuMs.bench).padStart(9)} ${String(r.cpuMs.server).padStart(6)}`,
      );
    }
  };
  if (doc.graph) {
    rows('(a) chain graph', doc.graph.runs);
    lines.push(`LLM calls per purpose: ${JSON.stringify(doc.graph.runs[0].llmCallsPerPurpose)}`);
    lines.push(`floor (0 ms): ${JSON.stringify(doc.graph.floor)}`, `figures: ${JSON.stringify(doc.graph.gates)}`);
  }
  if (doc.independent) {
    rows('(b) independent tasks', doc.independent.runs);
    lines.push(
      `floor: ${JSON.stringify(doc.independent.floor)}; speed-up ${doc.independent.speedUp}x, floor ${doc.independent.floorSpeedUp}x, share ${doc.independent.speedUpShareOfFloor} (rep by rep ${JSON.stringify(doc.independent.speedUpSharePerRep)})`,
      `floor CPU ms: ${JSON.stringify(doc.independent.floorCpuMs)}`,
    );
  }
  if (doc.largePlan) rows('(c) large plan', [doc.largePlan]);
  if (doc.concurrent) lines.push('', `(d) concurrent runs: ${JSON.stringify(doc.concurrent)}`);
  if (doc.scale) {
    const sc = doc.scale;
    lines.push(
      '',
      `(scale) ${sc.runs} concurrent ${sc.tasksPerRun}-task runs at ${sc.latencyMs} ms per LLM call, ${sc.cores} cores; a run alone ${sc.soloMakespanMs} ms (LLM bound ${sc.llmBoundMs} ms); Temporal's floor for the batch ${sc.floorMakespanMs} ms`,
      'workers | makespan (reps)      | runs/min | LLM calls/s | cores: workers / server / bench / machine | limited by',
    );
    for (const c of sc.configs) {
      lines.push(
        `${String(c.workers).padStart(7)} | ${`${c.makespanMs} (${c.repsMakespanMs.join(', ')})`.padEnd(20)} | ${String(c.runsPerMin).padStart(8)} | ${String(c.llmCallsPerS).padStart(11)} | ${JSON.stringify(c.coresUsed.workers)} / ${c.coresUsed.server ?? '-'} / ${c.coresUsed.bench} / ${c.coresUsed.machine} | ${c.limitedBy}`,
      );
      lines.push(
        `        activities by host ${JSON.stringify(c.activitiesByHost)}, by queue ${JSON.stringify(c.activitiesByQueue)}; workflow tasks by host ${JSON.stringify(c.workflowTasksByHost)}`,
      );
    }
    lines.push(`speed-up ${sc.configs[0].workers} → ${sc.configs[sc.configs.length - 1].workers} workers: ${sc.speedUp}x`);
  }
  if (doc.workerSettings) {
    lines.push('', '(e) worker settings (9-task graph, 0 ms, maxParallelTasks 4)');
    for (const [k, v] of Object.entries(doc.workerSettings as Record<string, unknown>)) lines.push(`  ${k}: ${JSON.stringify(v)}`);
  }
  return lines.join('\n');
}

async function main() {
  const { values } = parseArgs({
    options: {
      reps: { type: 'string' },
      json: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      only: { type: 'string', default: 'a,b,c,d' },
      settings: { type: 'boolean', default: false },
      setting: { type: 'string', multiple: true },
      dc: { type: 'string', multiple: true },
      'scale-runs': { type: 'string' },
      'scale-latency': { type: 'string' },
    },
  });
  const only = values.only.split(',').map((x) => x.trim());
  if (values.settings) only.push('e');
  const unknown = only.filter((o) => !SCENARIOS.includes(o));
  if (unknown.length) throw new Error(`--only: unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`);
  const whole = (name: string, v: string | undefined, min: number) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number ≥ ${min}, got "${v}"`);
    return n;
  };
  const scaleRuns = whole('scale-runs', values['scale-runs'], 1);
  const scaleLatency = whole('scale-latency', values['scale-latency'], 0);
  const reps = Number(values.reps ?? (values.smoke ? 1 : 3));
  if (!Number.isInteger(reps) || reps < 1) throw new Error('--reps must be a positive integer');
  const doc = await runBench({
    reps,
    smoke: values.smoke,
    only,
    ...(values.setting ? { settings: values.setting } : {}),
    ...(values.dc ? { dynamicConfig: values.dc } : {}),
    scale: { ...(scaleRuns !== undefined ? { runs: scaleRuns } : {}), ...(scaleLatency !== undefined ? { latencyMs: scaleLatency } : {}) },
    log: values.json ? undefined : (l) => console.error(l),
  });
  console.log(values.json ? JSON.stringify(doc, null, 2) : table(doc));
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
