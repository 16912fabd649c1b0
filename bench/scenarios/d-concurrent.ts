// (d) Concurrent runs: 50 three-task runs at once on one worker in its own process: CPU per LLM
// call and the worker's peak memory (bench/README.md).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scriptScenario } from '../../test/support/scenario';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import type { BenchEnv, Ctx } from '../context';
import { independent, r1 } from '../plans';
import { procStats, spawnWorkerProcess, stopChild } from '../processes';

export async function concurrentRuns(ctx: Ctx, env: BenchEnv, runs: number, latencyMs: number) {
  const { fake, client } = ctx;
  const taskQueue = `bench-proc-${process.pid}`;
  const plan = independent(3);
  fake.reset();
  scriptScenario(fake, { tasks: plan, latencyMs });
  const child = spawnWorkerProcess({ address: env.address, bundleFile: env.bundleFile, root: env.root, taskQueue, fakeURL: fake.baseURL });
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
    await stopChild(child);
  }
}
