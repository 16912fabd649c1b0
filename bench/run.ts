// Benchmark: Replanner's makespan against the LLM-bound critical path and against Temporal's own
// floor (bench/floor-workflows.ts), measured in the same process on the same worker. Figures are
// defined in bench/README.md.
// Usage: npm run bench [-- --reps 3 --json --smoke --only a,b,c,d,e --settings]
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

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];

export interface BenchOptions {
  reps: number;
  smoke: boolean;
  /** Scenarios to run: a (9-task graph), b (independent tasks), c (large plan), d (concurrent runs), e (worker settings). */
  only: string[];
  /** An existing dev server (jest); otherwise the bench starts its own. */
  address?: string;
  log?: (line: string) => void;
  /** Dev server dynamic config (`KEY=VALUE`), for a server the bench starts itself. */
  dynamicConfig?: string[];
  /** (e): the worker settings to measure (names of SETTINGS); default all. */
  settings?: string[];
}

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
    },
  });
  const only = values.only.split(',').map((x) => x.trim());
  if (values.settings) only.push('e');
  const reps = Number(values.reps ?? (values.smoke ? 1 : 3));
  if (!Number.isInteger(reps) || reps < 1) throw new Error('--reps must be a positive integer');
  const doc = await runBench({
    reps,
    smoke: values.smoke,
    only,
    ...(values.setting ? { settings: values.setting } : {}),
    ...(values.dc ? { dynamicConfig: values.dc } : {}),
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
