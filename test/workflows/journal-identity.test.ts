// S4: the LLM journal is keyed by the full identity of the activity execution. The same run id
// twice within a minute in one workspace (time-ordered server run ids share their first characters
// then) must not replay the first run's answers: the second run asks the LLM as often as the
// first and writes its own files.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FAST, uniqueId, type Harness } from '../support/harness';
import { harnessForSuite } from '../support/suite-hooks';
import { startRun } from '../support/start-run';
import { scriptScenario, fileTask } from '../support/scenario';

let h: Harness;
harnessForSuite((started) => (h = started), { keepScript: true });

it('S4 the same --id twice within a minute in one workspace: the second run sends as many LLM requests and writes its files', async () => {
  scriptScenario(h.fake, { tasks: [fileTask('a')] });
  const ws = h.workspace();
  const runId = uniqueId('same');
  const runOnce = async () => {
    const before = h.fake.requests.filter((r) => r.status === 200).length;
    const { handle } = await startRun(h, { runId, instruction: 'write a', workspace: ws, options: FAST });
    const result = await handle.result();
    expect(result.status).toBe('DONE');
    return h.fake.requests.filter((r) => r.status === 200).length - before;
  };
  const first = await runOnce();
  fs.rmSync(path.join(ws, 'a.txt'));
  const second = await runOnce();
  expect(first).toBeGreaterThan(5);
  expect(second).toBe(first);
  expect(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('A');
});
