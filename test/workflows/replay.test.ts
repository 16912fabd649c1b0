// Determinism: every recorded history under test/fixtures/histories must replay against the current
// workflow code, so a worker upgraded while runs are in flight carries them on.
// - test/fixtures/histories/*.json: recorded by `npm run record-histories` (the file name is the
//   workflow id).
// - test/fixtures/histories/<release>/: histories recorded from a release (e.g. v0.2.0/), picked
//   with `RECORD_ALL_HISTORIES=DIR npx jest …` (every closed workflow of a jest run, saved as
//   `<workflowId>@<runId>.json`), one per distinct shape. Never re-recorded: every later release
//   must keep replaying them (docs/development.md, "Workflow histories and replay").
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from '@temporalio/worker';
import { HISTORIES_DIR } from '../support/histories';

function historyFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return historyFiles(p);
    return e.name.endsWith('.json') ? [path.relative(HISTORIES_DIR, p)] : [];
  });
}

const files = historyFiles(HISTORIES_DIR);
/** The workflow id a history was recorded under: child ids derive from it, so replay must use it. */
const workflowIdOf = (file: string) =>
  path
    .basename(file)
    .replace(/\.json$/, '')
    .replace(/@[^@]*$/, '');
const workflowTypeOf = (history: { events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[] }) =>
  history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;

describe('replay of recorded histories', () => {
  it('there are recorded histories of every workflow type to replay', () => {
    const types = new Set(files.map((f) => workflowTypeOf(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, f), 'utf8')))));
    expect([...types].sort()).toEqual(
      expect.arrayContaining([
        'ActionSequenceWorkflow',
        'ExecutionWorkflow',
        'GoalUnderstandingWorkflow',
        'ReflectionWorkflow',
        'RunWorkflow',
        'TaskDecompositionWorkflow',
        'TaskWorkflow',
        'WorkspaceLockWorkflow',
      ]),
    );
  });

  // One replay worker for all of them (a worker's set-up is ~0.5 s, and there are many histories).
  // It replays them one after another, in order, so the n-th result is the n-th file's.
  const errors: (string | undefined)[] = [];
  beforeAll(async () => {
    const histories = files.map((file) => ({
      // The JSON form as `temporal workflow show -o json` writes it; the id it was recorded under.
      history: JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) as unknown,
      workflowId: workflowIdOf(file),
    }));
    for await (const r of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.REPLANNER_TEST_BUNDLE! } }, histories)) {
      errors.push(r.error ? `${r.workflowId}: ${String(r.error.stack ?? r.error)}` : undefined);
    }
  }, 600_000);

  it.each(files.map((f, i) => [f, i] as const))('%s replays deterministically', (_file, i) => {
    expect(errors).toHaveLength(files.length);
    expect(errors[i]).toBeUndefined();
  });
});
