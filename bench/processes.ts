// Workers and processes of the bench: the in-process worker, worker processes (scenarios d and
// scale), and CPU and memory read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import type { FakeOpenAI } from '../test/support/fake-openai';
import { createWorker, WORKER_NODE_ARGS, type ReplannerWorker } from '../src/worker';
import { floorActivities } from './floor-activities';
import { countByHost } from './scale';

/** CPU ms used so far (user + system, from /proc) by this process (worker, client, fake LLM) and by its children (the dev server it started). */
export function cpuNow(): { bench: number; server: number } {
  const ms = (stat: string) => {
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in ticks of 10 ms
  };
  let server = 0;
  for (const pid of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) server += ms(stat);
    } catch {
      /* ended meanwhile */
    }
  }
  return { bench: ms(fs.readFileSync('/proc/self/stat', 'utf8')), server };
}

export const cpuSince = (c0: { bench: number; server: number }) => {
  const c1 = cpuNow();
  return { bench: c1.bench - c0.bench, server: c1.server - c0.server };
};

/** /proc figures of a process: CPU ms (user+system) and peak RSS (VmHWM) in MiB. */
export function procStats(pid: number): { cpuMs: number; peakRssMiB: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, i.e. 11 and 12 after "(comm) ".
  const ticks = Number(fields[11]) + Number(fields[12]);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { cpuMs: (ticks * 1000) / 100, peakRssMiB: Math.round(Number(hwm) / 1024) };
}

export interface InProcessWorker {
  stop(): Promise<void>;
}

export async function startInProcessWorker(
  connection: NativeConnection,
  taskQueue: string,
  fake: FakeOpenAI,
  bundle: { code: string; sourceMap: string },
  overrides?: Partial<WorkerOptions>,
): Promise<InProcessWorker> {
  const worker: ReplannerWorker = await createWorker({
    connection,
    taskQueue,
    llm: { apiKey: 'k', baseURL: fake.baseURL, model: 'm', timeoutMs: 30_000 },
    workflowBundle: bundle,
    extraActivities: floorActivities,
    ...(overrides ? { overrides } : {}),
  });
  let failed: unknown;
  const running = worker.run().catch((err: unknown) => {
    failed = err;
  });
  // A setting the SDK refuses stops the worker at once; never start runs that would wait forever.
  await new Promise((r) => setTimeout(r, 1000));
  if (failed !== undefined || worker.getState() !== 'RUNNING') throw new Error(`worker did not start: ${String(failed)}`);
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}

function workerEnvFrom(spec: string | undefined): Record<string, string> {
  if (!spec) return {};
  return Object.fromEntries(spec.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

/**
 * A worker in its own process: worker-main (compiled) or test/support/worker-process.js (jest),
 * on the scripted LLM. `env` adds settings (scale: REPLANNER_HOST, …);
 * BENCH_WORKER_ENV=K=V,K2=V2 adds more, last (bench/README.md, RSS).
 */
export function spawnWorkerProcess(w: {
  address: string;
  bundleFile: string;
  root: string;
  taskQueue: string;
  fakeURL: string;
  env?: Record<string, string>;
}) {
  const compiled = __filename.endsWith('.js');
  const script = compiled ? path.join(w.root, 'dist/src/worker-main.js') : path.join(w.root, 'test/support/worker-process.js');
  return spawn(process.execPath, [...WORKER_NODE_ARGS, script], {
    env: {
      PATH: process.env.PATH,
      TEMPORAL_ADDRESS: w.address,
      REPLANNER_TASK_QUEUE: w.taskQueue,
      OPENAI_BASE_URL: w.fakeURL,
      OPENAI_API_KEY: 'k',
      REPLANNER_MODEL: 'm',
      REPLANNER_WORKFLOW_BUNDLE: w.bundleFile,
      REPLANNER_LOG_LEVEL: 'ERROR',
      ...w.env,
      ...workerEnvFrom(process.env.BENCH_WORKER_ENV),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Stops a child process (SIGTERM) and waits for its exit. */
export const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** Waits until every pid polls `taskQueue` for workflow tasks (a worker that exits first fails the bench). */
export async function untilPolling(client: Client, taskQueue: string, children: ChildProcess[], timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = children.find((c) => c.exitCode !== null);
    if (dead) throw new Error(`scale: worker process ${dead.pid} exited with ${dead.exitCode} before polling ${taskQueue}`);
    const res = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    const ids = (res.pollers ?? []).map((p) => p.identity ?? '');
    const seen = countByHost(ids, Object.fromEntries(children.map((c) => [c.pid!, String(c.pid)])));
    if (children.every((c) => seen[String(c.pid)])) return;
    if (Date.now() > deadline)
      throw new Error(`scale: worker processes not polling ${taskQueue} after ${timeoutMs} ms (pollers: ${ids.join(', ') || 'none'})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
