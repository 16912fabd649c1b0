// Replanner workers in their own processes (test/support/worker-process.js), so a test can SIGKILL
// one and start another; `killAll` in afterAll never leaves one behind.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { temporalAddress, until } from './harness';

const WORKER_SCRIPT = path.resolve(__dirname, 'worker-process.js');

export interface WorkerProc {
  child: ChildProcess;
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export class WorkerProcesses {
  private readonly procs: WorkerProc[] = [];

  /** A worker on `taskQueue` answering LLM calls from `llmBaseURL`; resolves once it polls. */
  async start(taskQueue: string, llmBaseURL: string, env: NodeJS.ProcessEnv = {}): Promise<WorkerProc> {
    const bundle = process.env.REPLANNER_TEST_BUNDLE;
    if (!bundle) throw new Error('REPLANNER_TEST_BUNDLE is not set: run through jest (global setup builds the bundle)');
    const child = spawn(process.execPath, [WORKER_SCRIPT], {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: temporalAddress(),
        REPLANNER_TASK_QUEUE: taskQueue,
        OPENAI_BASE_URL: llmBaseURL,
        OPENAI_API_KEY: 'test-key',
        REPLANNER_MODEL: 'fake-model',
        REPLANNER_WORKFLOW_BUNDLE: bundle,
        REPLANNER_LOG_LEVEL: 'WARN',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const p: WorkerProc = { child, output, exited };
    this.procs.push(p);
    let ready = false;
    child.stdout.on('data', (d: Buffer) => {
      output.push(d.toString());
      if (/replanner worker: task queue/.test(output.join(''))) ready = true;
    });
    child.stderr.on('data', (d: Buffer) => output.push(d.toString()));
    await until(
      'the worker process to start',
      async () => {
        if (child.exitCode !== null) throw new Error('exited');
        return ready ? true : undefined;
      },
      60_000,
    ).catch((err) => {
      throw new Error(`${(err as Error).message}; worker output:\n${output.join('')}`);
    });
    if (child.exitCode !== null) throw new Error(`worker process exited (${child.exitCode}):\n${output.join('')}`);
    return p;
  }

  async killAll(): Promise<void> {
    for (const p of this.procs) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGKILL');
        await p.exited;
      }
    }
  }
}
