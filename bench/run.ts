// Benchmark: the orchestration's parallel speed-up and per-run overhead, on a real dev server with
// the scripted LLM (fixed 300 ms per worker reply). Prints medians and the sequential/parallel ratio.
// Usage: npm run bench [-- --reps 3 --tasks 6]
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { FakeOpenAI } from '../test/support/fake-openai';
import { scriptScenario } from '../test/support/scenario';
import { bundleWorkflows, createWorker } from '../src/worker';
import { RunWorkflow, runWorkflowId } from '../src/workflows/run';
import { SEARCH_ATTRIBUTE_KEYS } from '../src/workflows/search-attributes';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main() {
  const { values } = parseArgs({ options: { reps: { type: 'string', default: '3' }, tasks: { type: 'string', default: '6' } } });
  const reps = Number(values.reps);
  const nTasks = Number(values.tasks);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const root = path.resolve(__dirname, '..', fs.existsSync(path.resolve(__dirname, '..', 'package.json')) ? '' : '..');
  const cli = execFileSync('bash', [path.join(root, 'scripts/ensure-temporal')], { encoding: 'utf8' }).trim();
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli }, searchAttributes: SEARCH_ATTRIBUTE_KEYS },
  });
  const fake = await FakeOpenAI.start({ logUnscripted: true });
  const tasks = Array.from({ length: nTasks }, (_, i) => ({ id: `t${i}`, title: `task ${i}`, files: { [`f${i}.txt`]: `${i}` } }));
  scriptScenario(fake, { tasks, workerDelayMs: 300 });
  const connection = await NativeConnection.connect({ address: env.address });
  const worker = await createWorker({
    connection,
    taskQueue: 'bench',
    llm: { apiKey: 'k', baseURL: fake.baseURL, model: 'm', timeoutMs: 10_000 },
    workflowBundle: await bundleWorkflows(),
  });
  const running = worker.run();
  const client = new Client({ connection: env.connection });
  const results: Record<string, { ms: number[]; events: number[] }> = {};
  for (const parallel of [1, 3]) {
    const key = `maxParallelTasks=${parallel}`;
    const result: { ms: number[]; events: number[] } = { ms: [], events: [] };
    results[key] = result;
    for (let r = 0; r < reps; r++) {
      const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-bench-'));
      const runId = `bench-${parallel}-${r}-${process.pid}`;
      const t0 = performance.now();
      const handle = await client.workflow.start(RunWorkflow, {
        taskQueue: 'bench',
        workflowId: runWorkflowId(runId),
        args: [{ runId, instruction: 'bench', workspace: ws, options: { maxParallelTasks: parallel } }],
      });
      const res = await handle.result();
      result.ms.push(performance.now() - t0);
      if (res.status !== 'DONE') throw new Error(`bench run ended ${res.status}`);
      const history = await handle.fetchHistory();
      result.events.push(history.events?.length ?? 0);
      fs.rmSync(ws, { recursive: true, force: true });
    }
  }
  const seq = median(results['maxParallelTasks=1']?.ms ?? []);
  const par = median(results['maxParallelTasks=3']?.ms ?? []);
  console.log(`Replanner bench: ${nTasks} independent tasks, 300 ms per worker LLM reply, ${reps} reps, medians`);
  for (const [k, v] of Object.entries(results)) {
    console.log(`  ${k}: ${median(v.ms).toFixed(0)} ms per run, ${median(v.events)} events in the run workflow's history`);
  }
  console.log(`  speed-up (sequential / parallel): ${(seq / par).toFixed(2)}x (ideal ${Math.min(3, nTasks)}x for the worker share)`);
  worker.shutdown();
  await running;
  await connection.close();
  await fake.stop();
  await env.teardown();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
