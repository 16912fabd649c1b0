// (e) Worker settings: the 9-task graph at 0 ms, parallel 4, and its floor, under each worker setting
// against the default (bench/README.md, "What the engine allows").
import type { WorkerOptions } from '@temporalio/worker';
import type { BenchEnv, Ctx } from '../context';
import { floor, floorUnits, replanner, withParallel } from '../measure';
import type { FloorShape } from '../floor-workflows';
import { chainGraph } from '../plans';
import { startInProcessWorker } from '../processes';

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

export async function settingsScenario(ctx: Ctx, env: BenchEnv, reps: number) {
  const s = ctx.opts.smoke;
  const log = ctx.opts.log;
  log?.('(e) worker settings');
  const plan = chainGraph(4, 2);
  const settings: Record<string, { replanner0msPar4Ms: number; floor0msPar4Ms: number; perActivityMs: number } | { error: string }> = {};
  const names = ctx.opts.settings ?? (s ? ['default', 'maxCachedWorkflows=0 (no sticky cache)'] : Object.keys(SETTINGS));
  const unknown = names.filter((n) => !(n in SETTINGS));
  if (unknown.length) throw new Error(`unknown setting(s) ${unknown.join(', ')}; known: ${Object.keys(SETTINGS).join(' | ')}`);
  let shape: FloorShape | undefined;
  for (const name of names) {
    await env.worker.stop();
    ctx.taskQueue = `bench-${process.pid}-${++ctx.seq}`;
    try {
      env.worker = await startInProcessWorker(env.connection, ctx.taskQueue, ctx.fake, env.bundle, SETTINGS[name]);
    } catch (err) {
      settings[name] = { error: (err as Error).message };
      log?.(`  ${name}: ${(err as Error).message}`);
      env.worker = await startInProcessWorker(env.connection, ctx.taskQueue, ctx.fake, env.bundle);
      continue;
    }
    const r = await replanner(ctx, plan, 0, 4, reps);
    shape ??= r.shape;
    const f = await floor(ctx, withParallel(shape, 4), reps);
    const units = await floorUnits(ctx, reps);
    settings[name] = { replanner0msPar4Ms: r.figures.makespanMs, floor0msPar4Ms: f, perActivityMs: units.perActivityMs };
    log?.(`  ${name}: ${JSON.stringify(settings[name])}`);
  }
  return settings;
}
