// (b) Independent tasks: 64 tasks at 50 ms per LLM call, parallel 1, 4 and 16, each beside its floor:
// how much of the floor's speed-up from parallelism Replanner keeps (bench/README.md).
import type { Ctx } from '../context';
import { replanner, type ReplannerFigures } from '../measure';
import { independent } from '../plans';

export async function independentScenario(ctx: Ctx, reps: number) {
  const s = ctx.opts.smoke;
  const log = ctx.opts.log;
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
  return {
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
