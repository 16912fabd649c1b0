// B1 B2: a replay must take the path the workflow took. The execution phase pokes its run from a
// local activity, and a poke's reply can reach the phase in a later workflow task than the one that
// sent it: when the poke outlives its workflow task (the SDK then completes the task and goes on)
// or when the worker evicts the phase meanwhile, which a worker with no workflow cache does all the
// time. A replay delivers such a reply at the start of the task that recorded it, earlier than it
// came; what the phase sends must not depend on that, or its history no longer replays (a worker
// restart or a cache eviction then fails the phase with a nondeterminism error).
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { DEFAULT_CONFIG } from '../../src/domain/config';
import { TaskState, type TaskRecord } from '../../src/domain/types';
import { ExecutionWorkflow } from '../../src/workflows/execution';
import { DEFAULT_RUN_OPTIONS } from '../../src/workflows/options';
import { FAST, startHarness, uniqueId, type Harness } from '../support/harness';
import { plannedTask, scriptScenario, type ScenarioTask } from '../support/scenario';
import { startRun } from '../support/start-run';

let cached: Harness;
let uncached: Harness;
beforeAll(async () => {
  cached = await startHarness();
  uncached = await startHarness({ workerOverrides: { maxCachedWorkflows: 0 } });
});
afterAll(async () => {
  await cached?.stop();
  await uncached?.stop();
});

/** Six chains of two tasks, then a join: up to six tasks at once, each followed by a replan decision. */
function chains(): ScenarioTask[] {
  const tasks: ScenarioTask[] = [];
  for (let c = 0; c < 6; c++) {
    for (let i = 0; i < 2; i++) {
      const id = `c${c}s${i}`;
      tasks.push({ id, title: `chain ${c} step ${i}`, dependencies: i ? [`c${c}s${i - 1}`] : [], files: { [`${id}.txt`]: id } });
    }
  }
  return [
    ...tasks,
    { id: 'join', title: 'join', dependencies: tasks.filter((t) => t.id.endsWith('s1')).map((t) => t.id), files: { 'join.txt': 'j' } },
  ];
}

const record = (t: ScenarioTask): TaskRecord => ({
  id: t.id,
  title: t.title,
  description: t.title,
  acceptanceCriteria: plannedTask(t).acceptance_criteria,
  dependencies: t.dependencies ?? [],
  scopePaths: Object.keys(t.files ?? {}),
  profile: 'FILE_OPERATION',
  state: TaskState.READY,
});

/**
 * Runs the execution phase on its own. The run it pokes is not there: each poke fails after its
 * three attempts (≈ 0.6 s), longer than 80% of the 0.5 s workflow task timeout, so the SDK completes
 * the phase's workflow task while the poke is in flight and the reply comes in a later one.
 */
async function executionPhase(h: Harness) {
  const tasks = chains();
  h.fake.reset();
  scriptScenario(h.fake, { tasks });
  const runId = uniqueId('poke');
  const workflowId = `run-${runId}.execution-1`;
  const handle = await h.client.workflow.start(ExecutionWorkflow, {
    taskQueue: h.taskQueue,
    workflowId,
    workflowTaskTimeout: '500ms',
    args: [
      {
        run: { runId, workspace: h.workspace(), instruction: 'write the files' },
        options: { ...DEFAULT_RUN_OPTIONS, ...FAST, maxParallelTasks: 6 },
        tasks: tasks.map(record),
        actions: {},
        runWorkflowId: `run-${runId}`,
        round: 1,
        replan: {},
        taskReplanning: DEFAULT_CONFIG.task_replanning,
        maxTasks: 50,
      },
    ],
  });
  const result = await handle.result();
  expect(result.tasks.map((t) => [t.id, t.state])).toEqual(tasks.map((t) => [t.id, TaskState.DONE]));
  expect(result.decisions).toHaveLength(tasks.length);
  const history = await handle.fetchHistory();
  const failed = history.events?.filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) ?? [];
  expect(failed.map((e) => e.workflowTaskFailedEventAttributes?.failure?.message)).toEqual([]);
  // What a worker restart does: the whole history, replayed by a fresh worker.
  await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.REPLANNER_TEST_BUNDLE! } }, history, workflowId);
}

describe('B1 B2 the execution phase sends the same commands whenever its pokes answer', () => {
  it('B1 B2 pokes that outlive their workflow task: the finished phase replays from its history', async () => {
    await executionPhase(cached);
  });

  it('B1 B2 on a worker with no workflow cache (every workflow task a replay): the phase runs its graph to the end', async () => {
    await executionPhase(uncached);
  });
});

/**
 * O6: a worker evicts a workflow from its cache whenever it needs room, also in the middle of a
 * workflow task. With no cache at all every workflow task is a replay and every other workflow's
 * task evicts the one before. Runs that held a workflow task open on a local activity (the run's
 * reads of its children, its workspace lock, the phase's pokes) lost it with each eviction and
 * never got on; the run now uses ordinary activities and signals only.
 */
describe('O6 a worker whose workflow cache holds fewer workflows than are open', () => {
  it('O6 three whole runs at once on a worker with no workflow cache all end DONE, and each replays from its history', async () => {
    const h = uncached;
    h.fake.reset();
    const tasks: ScenarioTask[] = [
      { id: 'a', title: 'write a', files: { 'a.txt': 'a' } },
      { id: 'b', title: 'write b', files: { 'b.txt': 'b' } },
      { id: 'c', title: 'write c', dependencies: ['a', 'b'], files: { 'c.txt': 'c' } },
    ];
    scriptScenario(h.fake, { tasks });
    const runs = await Promise.all(
      [1, 2, 3].map((i) =>
        startRun(h, { instruction: `write the files (${i})`, workspace: h.workspace(), options: { ...FAST, maxParallelTasks: 2 } }, 'nocache'),
      ),
    );
    // Before the change the first run's workflow tasks were dropped again and again: none ended.
    const results = await withDeadline(
      Promise.all(runs.map((r) => r.handle.result())),
      150_000,
      'the runs on the worker with no workflow cache did not end within 150 s',
    );
    expect(results.map((r) => r.status)).toEqual(['DONE', 'DONE', 'DONE']);
    for (const { handle } of runs) {
      const ids = [handle.workflowId, `${handle.workflowId}.execution-1`];
      for (const id of ids) {
        const history = await h.client.workflow.getHandle(id).fetchHistory();
        await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.REPLANNER_TEST_BUNDLE! } }, history, id);
      }
    }
  }, 240_000);
});

function withDeadline<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}
