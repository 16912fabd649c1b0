// (load) Scale, said plainly: N concurrent small runs (3 tasks, 50 ms per LLM call) on one worker
// process with its default settings, for N = 20, 50 and 200: all DONE, runs per minute, run times,
// the worker's memory per open run, and which process is busiest (bench/README.md, "Load").
import type { BenchEnv, Ctx } from '../context';
import { runBatch } from '../batch';
import { independent } from '../plans';

export async function loadScenario(ctx: Ctx, env: BenchEnv, counts: number[], latencyMs = 50) {
  const out = [];
  for (const runs of counts) {
    const b = await runBatch(ctx, env, { runs, plan: independent(3), latencyMs, maxParallelTasks: 3, deadlineMs: 20 * 60_000 });
    ctx.opts.log?.(
      `  ${runs} runs: ${b.done} DONE in ${b.wallMs} ms (${b.runsPerMin}/min, p50 ${b.runMsP50} ms, p95 ${b.runMsP95} ms); cores: worker ${b.workerCores}, server ${b.serverCores ?? '-'}, bench ${b.benchCores}; machine ${b.machineBusy}; ${b.workerRssPerRunMiB} MiB per run`,
    );
    out.push(b);
  }
  return out;
}
