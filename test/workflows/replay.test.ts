// Determinism: every recorded history in test/fixtures/histories must replay against the current
// workflow code. Until v0.2.0 an intended workflow change re-records them (`npm run record-histories`).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from '@temporalio/worker';
import { HISTORIES_DIR } from '../support/histories';

const files = fs.existsSync(HISTORIES_DIR) ? fs.readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json')) : [];

describe('replay of recorded histories', () => {
  it('there are recorded histories to replay (run, phases, execution, task)', () => {
    const kinds = new Set(
      files.map((f) => {
        const parts = f.split('.');
        return parts.length > 2 ? (parts[1] ?? '').replace(/-[^-]*$/, '') : 'run';
      }),
    );
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['run', 'goal_understanding', 'execution', 'task', 'reflection']));
  });

  it.each(files)('%s replays deterministically', async (file) => {
    // runReplayHistory takes the JSON form directly (as `temporal workflow show -o json` writes it).
    const history: unknown = JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8'));
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.REPLANNER_TEST_BUNDLE! } }, history, file.replace(/\.json$/, ''));
  });
});
