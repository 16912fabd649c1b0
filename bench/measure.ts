// Measuring Replanner against its floor: one run and its figures (makespan, LLM calls, critical
// path, history events, CPU), `reps` runs with their floors beside them, and the floor's units.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RecordedRequest } from '../test/support/fake-openai';
import { scriptScenario, type ScenarioTask } from '../test/support/scenario';
import { RunWorkflow, runWorkflowId } from '../src/workflows/run';
import type { Ctx } from './context';
import { FloorRunWorkflow, type FloorShape } from './floor-workflows';
import { dumpTree, runHistories, type RunHistories } from './histories';
import { criticalPathCalls, median, r1 } from './plans';
import { cpuNow, cpuSince } from './processes';

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

export async function oneRun(ctx: Ctx, plan: ScenarioTask[], latencyMs: number, maxParallelTasks: number, config?: unknown) {
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
export async function replanner(
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

export function shapeActivities(shape: FloorShape): number {
  let n = 0;
  for (const s of shape.steps) {
    if ('activities' in s) n += s.activities;
    else if ('phase' in s) n += s.phase;
    else n += s.execution.tasks.reduce((a, t) => a + t.activities + s.execution.activitiesPerTask, 0) + s.execution.activitiesAfter;
  }
  return n;
}

export function withParallel(shape: FloorShape, maxParallelTasks: number): FloorShape {
  return { steps: shape.steps.map((s) => ('execution' in s ? { execution: { ...s.execution, maxParallelTasks } } : s)) };
}

export async function floor(ctx: Ctx, shape: FloorShape, reps: number): Promise<number> {
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

/** Per sequential no-op activity and per bare child workflow (a child with no activity), from the difference of two floors. */
export async function floorUnits(ctx: Ctx, reps: number) {
  const n = ctx.opts.smoke ? 10 : 20;
  await floor(ctx, { steps: [{ phase: 1 }] }, 1); // warm-up: the first workflow of a worker pays for its start
  const empty = await floor(ctx, { steps: [] }, reps);
  const acts = await floor(ctx, { steps: [{ activities: n }] }, reps);
  const kids = await floor(ctx, { steps: Array.from({ length: n }, () => ({ phase: 0 })) }, reps);
  return { emptyWorkflowMs: empty, perActivityMs: r1((acts - empty) / n), perChildWorkflowMs: r1((kids - empty) / n) };
}
