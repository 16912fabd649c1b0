// One batch of concurrent runs on one worker process (scenarios cache and load): how many ended
// DONE, run times, the worker's CPU and memory, and its workflow tasks read from the histories.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { scriptScenario, type ScenarioTask } from '../test/support/scenario';
import { startRun } from '../src/client/runs';
import type { BenchEnv, Ctx } from './context';
import { children } from './histories';
import { median, r1 } from './plans';
import { machineCpuMs } from './scale';
import { cpuNow, cpuSince, procStats, spawnWorkerProcess, stopChild, untilPolling } from './processes';

export interface BatchSpec {
  runs: number;
  plan: ScenarioTask[];
  latencyMs: number;
  maxParallelTasks: number;
  /** Environment of the worker process (e.g. REPLANNER_MAX_CACHED_WORKFLOWS). */
  workerEnv?: Record<string, string>;
  /** A batch not over by then is reported as such (its runs are terminated), never waited for without end. */
  deadlineMs: number;
}

const EventType = temporal.api.enums.v1.EventType;

/** A workflow task's time on the worker, from its start to its completion (or failure, or timeout). */
export interface WorkflowTaskTimes {
  /** Started → completed, ms, of every workflow task that completed. */
  durationsMs: number[];
  /** Workflow tasks that failed or timed out (a replay that did not finish in time, a nondeterminism), by cause. */
  failedOrTimedOut: Record<string, number>;
  /** The largest history of any workflow of the batch, in bytes, and that workflow. */
  largestHistoryBytes: number;
  largest?: { workflowId: string; history: History };
  /** Activities that timed out (a host's queue not served within its schedule-to-start timeout, a lost heartbeat), by type; and the gate's asks whether the workspace host is there. */
  activityTimeouts: Record<string, number>;
  hostPresenceAsks: number;
}

type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;

const ms = (t: { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined) =>
  t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : NaN;

/** Every workflow task of a workflow and its children, recursively (the last run of each id). */
export async function workflowTaskTimes(client: Client, workflowId: string, out: WorkflowTaskTimes): Promise<void> {
  const h = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = h.events ?? [];
  const bytes = temporal.api.history.v1.History.encode(h).finish().length;
  if (bytes > out.largestHistoryBytes) {
    out.largestHistoryBytes = bytes;
    out.largest = { workflowId, history: h };
  }
  const started = new Map<string, number>();
  const types = new Map<string, string>();
  for (const e of events) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a) types.set(String(e.eventId), a.activityType?.name ?? '?');
    if (a?.activityType?.name === 'hostPresent') out.hostPresenceAsks += 1;
    const to = e.activityTaskTimedOutEventAttributes;
    if (to) {
      const k = `${types.get(String(to.scheduledEventId)) ?? '?'}: ${temporal.api.enums.v1.TimeoutType[to.failure?.timeoutFailureInfo?.timeoutType ?? 0] ?? '?'}`;
      out.activityTimeouts[k] = (out.activityTimeouts[k] ?? 0) + 1;
    }
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) started.set(String(e.eventId), ms(e.eventTime));
    const done = e.workflowTaskCompletedEventAttributes;
    if (done) out.durationsMs.push(ms(e.eventTime) - (started.get(String(done.startedEventId)) ?? NaN));
    const failed = e.workflowTaskFailedEventAttributes;
    const timedOut = e.workflowTaskTimedOutEventAttributes;
    const cause = failed
      ? `failed: ${temporal.api.enums.v1.WorkflowTaskFailedCause[failed.cause ?? 0] ?? String(failed.cause)}`
      : timedOut
        ? `timed out: ${temporal.api.enums.v1.TimeoutType[timedOut.timeoutType ?? 0] ?? String(timedOut.timeoutType)}`
        : undefined;
    if (cause) out.failedOrTimedOut[cause] = (out.failedOrTimedOut[cause] ?? 0) + 1;
  }
  for (const c of children(events)) await workflowTaskTimes(client, c.id, out);
}

/**
 * A replay of `history` from its start, as a worker without the workflow in its cache makes for each
 * of its workflow tasks: 4 replays through one replay worker, the median of the last 3 (the first
 * also pays for the worker and its V8 context), ms.
 */
async function replayTime(env: BenchEnv, workflowId: string, history: History): Promise<number> {
  const times: number[] = [];
  let t = performance.now();
  const items = Array.from({ length: 4 }, () => ({ workflowId, history }));
  for await (const r of Worker.runReplayHistories({ workflowBundle: { code: env.bundle.code } }, items)) {
    if (r.error) throw r.error;
    const now = performance.now();
    times.push(now - t);
    t = now;
  }
  return median(times.slice(1));
}

/** A run still open: for each of its workflows still running, what it waits on (pending activities with their attempt and last failure, pending children). */
async function whereItWaits(client: Client, workflowId: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (id: string) => {
    const d = await client.workflow.getHandle(id).describe();
    if (d.status.name !== 'RUNNING') return;
    const raw = d.raw.pendingActivities ?? [];
    const acts = raw.map(
      (a) => `${a.activityType?.name ?? '?'} attempt ${a.attempt ?? '?'}${a.lastFailure?.message ? ` (${a.lastFailure.message.slice(0, 120)})` : ''}`,
    );
    const kids = (d.raw.pendingChildren ?? []).map((c) => c.workflowId ?? '?');
    out.push(`${id}: history ${d.historyLength}; activities [${acts.join('; ')}]; children [${kids.join(', ')}]`);
    for (const k of kids) await walk(k);
  };
  await walk(workflowId).catch((e: unknown) => out.push(`could not describe: ${String(e)}`));
  return out;
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : NaN;
};

/** `runs` concurrent runs on one fresh worker process; its figures. */
export async function runBatch(ctx: Ctx, env: BenchEnv, spec: BatchSpec) {
  const { client, fake } = ctx;
  const taskQueue = `bench-batch-${process.pid}-${++ctx.seq}`;
  const proc = spawnWorkerProcess({
    address: env.address,
    bundleFile: env.bundleFile,
    root: env.root,
    taskQueue,
    fakeURL: fake.baseURL,
    env: spec.workerEnv,
  });
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-bench-batch-'));
  try {
    await untilPolling(client, taskQueue, [proc]);
    fake.reset();
    scriptScenario(fake, { tasks: spec.plan, latencyMs: spec.latencyMs });
    const pid = proc.pid!;
    const rssBeforeMiB = Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024);
    const w0 = procStats(pid).cpuMs;
    const c0 = cpuNow();
    const m0 = machineCpuMs(fs.readFileSync('/proc/stat', 'utf8'));
    const t0 = performance.now();
    const deadline = t0 + spec.deadlineMs;
    /** What each run still open at the deadline was waiting for. */
    const stuck: string[][] = [];
    const handles = await Promise.all(
      Array.from({ length: spec.runs }, async (_, i) => {
        const ws = fs.mkdtempSync(path.join(base, `r${i}-`));
        const runId = `bench-batch-${process.pid}-${i}-${++ctx.seq}`;
        const { handle } = await startRun(client, {
          instruction: 'bench',
          workspace: ws,
          taskQueue,
          runId,
          options: { maxParallelTasks: spec.maxParallelTasks },
        });
        return handle;
      }),
    );
    const ends = await Promise.all(
      handles.map(async (handle) => {
        const left = deadline - performance.now();
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), Math.max(0, left))));
        const res = await Promise.race([handle.result().then((x) => ({ status: x.status, ms: performance.now() - t0 })), late]).finally(() =>
          clearTimeout(timer),
        );
        if (!res) {
          stuck.push(await whereItWaits(client, handle.workflowId));
          await handle.terminate('the bench batch is past its deadline').catch(() => undefined);
        }
        return res;
      }),
    );
    const wallMs = performance.now() - t0;
    const m1 = machineCpuMs(fs.readFileSync('/proc/stat', 'utf8'));
    const cpu = cpuSince(c0);
    const worker = procStats(pid);
    const workerCpuMs = worker.cpuMs - w0;
    const times: WorkflowTaskTimes = { durationsMs: [], failedOrTimedOut: {}, largestHistoryBytes: 0, activityTimeouts: {}, hostPresenceAsks: 0 };
    for (const h of handles) await workflowTaskTimes(client, h.workflowId, times);
    const replayMs = times.largest ? await replayTime(env, times.largest.workflowId, times.largest.history) : NaN;
    const runMs = ends.filter((e) => e?.status === 'DONE').map((e) => e!.ms);
    const d = times.durationsMs;
    return {
      runs: spec.runs,
      tasksPerRun: spec.plan.length,
      latencyMs: spec.latencyMs,
      done: runMs.length,
      unfinished: ends.filter((e) => !e).length,
      unfinishedWaitingOn: stuck,
      wallMs: Math.round(wallMs),
      runsPerMin: r1((runMs.length / wallMs) * 60_000),
      runMsP50: Math.round(median(runMs)),
      runMsP95: Math.round(percentile(runMs, 95)),
      llmCalls: fake.requests.length,
      workerCpuMs: Math.round(workerCpuMs),
      /** The worker's share of one core over the batch, and the machine's busy share of all its cores. */
      workerCores: r1(workerCpuMs / wallMs),
      serverCores: ctx.opts.address ? null : r1(Math.max(0, cpu.server - workerCpuMs) / wallMs),
      benchCores: r1(cpu.bench / wallMs),
      machineBusy: r1((m1.busyMs - m0.busyMs) / (m1.totalMs - m0.totalMs)),
      workerPeakRssMiB: worker.peakRssMiB,
      workerRssPerRunMiB: r1((worker.peakRssMiB - rssBeforeMiB) / spec.runs),
      workflowTasks: d.length,
      workflowTaskMsP50: r1(median(d)),
      workflowTaskMsP99: r1(percentile(d, 99)),
      workflowTaskMsMax: r1(Math.max(...d)),
      /** Started → completed on the history's clock: the replay, and also the wait for the worker's thread and for a busy machine. */
      workflowTasksOver1s: d.filter((x) => x > 1000).length,
      workflowTasksFailedOrTimedOut: times.failedOrTimedOut,
      largestHistoryBytes: times.largestHistoryBytes,
      activityTimeouts: times.activityTimeouts,
      hostPresenceAsks: times.hostPresenceAsks,
      /** What a workflow task of a worker without that workflow in its cache costs at most: a whole replay of the largest history (replayTime, in the bench process). */
      replayLargestHistoryMs: r1(replayMs),
    };
  } finally {
    await stopChild(proc);
    fs.rmSync(base, { recursive: true, force: true });
  }
}
