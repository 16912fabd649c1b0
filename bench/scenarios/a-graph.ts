// (a) The 9-task graph: 4 chains of 2 tasks joined by one, at 0, 50 and 300 ms per LLM call, parallel
// 1 and 4; the 0 ms rows each beside their floor (bench/README.md, "(a) the chain graph").
import type { Ctx } from '../context';
import { replanner, shapeActivities, type ReplannerFigures } from '../measure';
import { chainGraph, r1 } from '../plans';

/** Reps of the 9-task graph's 0 ms rows at least (bench/README.md, "Dev server dynamic config (session 8)"). */
const SHORT_ROW_REPS = 5;

export async function graphScenario(ctx: Ctx, reps: number) {
  const s = ctx.opts.smoke;
  const log = ctx.opts.log;
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
  return {
    tasks: plan.length,
    runs: rows,
    floor: floors,
    gates: {
      makespan0msSeqOverFloor: r1(at(0, p1).makespanMs / floors[`maxParallelTasks=${p1}`]!),
      overheadPerCall0msSeqMs: at(0, p1).overheadPerCriticalCallMs,
      // What Replanner adds to Temporal's own floor of the same shape, per LLM call (serial, 0 ms).
      aboveFloorPerLlmCall0msSeqMs: r1((at(0, p1).makespanMs - floors[`maxParallelTasks=${p1}`]!) / at(0, p1).llmCalls),
      overheadPerCall0msParMs: at(0, pN).overheadPerCriticalCallMs,
      [`makespanMinusBound${lMax}msParOverFloor0ms`]: r1((at(lMax, pN).makespanMs - at(lMax, pN).boundMs) / floors[`maxParallelTasks=${pN}`]!),
      [`makespanOverBound${lMax}msPar`]: at(lMax, pN).makespanOverBound,
    },
  };
}
