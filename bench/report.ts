// The bench's table: what `npm run bench` prints without --json (bench/README.md explains each column).
import type { ReplannerFigures } from './measure';

export function table(doc: Record<string, any>): string {
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
  const batches = (title: string, rows: Record<string, unknown>[]) => {
    lines.push('', title);
    for (const r of rows) lines.push(`  ${JSON.stringify(r)}`);
  };
  if (doc.cache) batches('(cache) concurrent 9-task runs at 0 ms, maxParallelTasks 4, by workflow cache size', doc.cache);
  if (doc.load) batches('(load) concurrent 3-task runs at 50 ms on one worker', doc.load);
  return lines.join('\n');
}
