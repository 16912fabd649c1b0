// (scale) 1 worker process against 2 on this machine, N concurrent runs (issue 23). The processes
// and runs; the pure parts (which worker owns which root, the figures, what limits them) are in
// bench/scale.ts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scriptScenario, type ScenarioTask } from '../../test/support/scenario';
import { startRun } from '../../src/client/runs';
import type { BenchEnv, Ctx } from '../context';
import { FloorRunWorkflow } from '../floor-workflows';
import { workIdentities } from '../histories';
import { oneRun, withParallel } from '../measure';
import { criticalPathCalls, independent, median } from '../plans';
import { cpuSince, cpuNow, procStats, spawnWorkerProcess, stopChild, untilPolling } from '../processes';
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
} from '../scale';

export interface ScaleOptions {
  /** Concurrent runs per batch (default 20). */
  runs: number;
  /** The scripted LLM's fixed latency per call, ms. */
  latencyMs: number;
  /** Worker process counts to compare, in order. */
  workerCounts: number[];
}

/**
 * One batch: `workers` worker processes (distinct REPLANNER_HOST, the roots split between them),
 * a warm-up run per worker, then `runs` concurrent runs with their workspaces alternating between
 * the roots. CPU per process from /proc over the batch; which host ran what from the histories.
 */
async function scaleBatch(
  ctx: Ctx,
  env: BenchEnv,
  workers: number,
  roots: string[],
  so: ScaleOptions,
  criticalCallsPerRun: number,
  plan: ScenarioTask[],
) {
  const { client, fake } = ctx;
  const specs = scaleWorkerSpecs(workers, roots);
  const taskQueue = `bench-scale-${process.pid}-${++ctx.seq}`;
  const procs = specs.map((spec) =>
    spawnWorkerProcess({
      address: env.address,
      bundleFile: env.bundleFile,
      root: env.root,
      taskQueue,
      fakeURL: fake.baseURL,
      // Issue 23's settings: ignored by a worker without workspace affinity (both then share one queue).
      env: { REPLANNER_HOST: spec.host, REPLANNER_WORKSPACE_ROOTS: workspaceRootsEnv(spec) },
    }),
  );
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
export async function scaleScenario(ctx: Ctx, env: BenchEnv, so: ScaleOptions, reps: number) {
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
        const b = await scaleBatch(ctx, env, w, roots, so, critical, plan);
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
