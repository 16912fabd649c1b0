// (cache) Cache pressure: many concurrent runs of the 9-task graph on one worker process whose
// workflow cache holds fewer workflows than are open (none at all, then 10). Every run must end
// DONE, and no workflow task may take long, though each is a replay of its whole history
// (bench/README.md, "Cache pressure").
import type { BenchEnv, Ctx } from '../context';
import { runBatch } from '../batch';
import { chainGraph } from '../plans';

export interface CacheOptions {
  /** Concurrent runs per batch (default 50). */
  runs: number;
  /** Workflow cache sizes to measure, one batch each (default 0 and 10). */
  caches: number[];
}

export async function cacheScenario(ctx: Ctx, env: BenchEnv, o: CacheOptions) {
  const out = [];
  for (const cache of o.caches) {
    const b = await runBatch(ctx, env, {
      runs: o.runs,
      plan: chainGraph(4, 2),
      latencyMs: 0,
      maxParallelTasks: 4,
      workerEnv: { REPLANNER_MAX_CACHED_WORKFLOWS: String(cache) },
      deadlineMs: 20 * 60_000,
    });
    ctx.opts.log?.(
      `  cache ${cache}, ${o.runs} runs: ${b.done} DONE in ${b.wallMs} ms; workflow tasks ${b.workflowTasks}, max ${b.workflowTaskMsMax} ms, ${b.workflowTasksOver1s} over 1 s, failed or timed out ${JSON.stringify(b.workflowTasksFailedOrTimedOut)}; a replay of the largest history (${b.largestHistoryBytes} B) ${b.replayLargestHistoryMs} ms`,
    );
    out.push({ maxCachedWorkflows: cache, ...b });
  }
  return out;
}
