// The judge's evidence (J1) and the re-decomposition's run log (J6) are read from the worker's
// per-step transcript files; a logPath that points outside the run's transcripts reads nothing.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evidenceFromTranscript } from '../../src/activities/worker-step';

let ws: string;
const rel = '.replanner/runs/r1/tasks/a/iteration-1.abcd-1234';
beforeAll(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-transcript-'));
  const dir = path.join(ws, rel);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'prompt.json'), JSON.stringify({ system: 'SYSTEM', user: 'USER' }));
  const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2, calls: 1 };
  const writeStep = (step: number, content: string, calls: object[]) =>
    fs.writeFileSync(path.join(dir, `step-${String(step).padStart(3, '0')}.json`), JSON.stringify({ step, content, usage, calls }));
  writeStep(1, '', [{ id: 'c1', name: 'write_file', arguments: '{"path":"a.txt"}', ok: true, output: 'wrote a.txt' }]);
  writeStep(2, '', [{ id: 'c2', name: 'run_command', arguments: '{"argv":["ls"]}', ok: false, output: 'exit 2' }]);
  writeStep(3, 'all done', []);
  fs.writeFileSync(path.join(ws, 'secret.txt'), 'do not read');
});
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }));

describe('J1 J6 evidence from the per-step transcript', () => {
  it('J1 each tool call of each step with its result, in step order', async () => {
    expect(await evidenceFromTranscript(ws, rel)).toBe(
      ['> write_file {"path":"a.txt"}', 'wrote a.txt', '> run_command {"argv":["ls"]}', 'exit 2'].join('\n'),
    );
  });

  it('J6 the run log is bounded', async () => {
    const log = await evidenceFromTranscript(ws, rel, 60);
    expect(log.length).toBeLessThanOrEqual(60);
    expect(log).toContain('chars cut');
  });

  it.each([
    ['no logPath', ''],
    ['a missing directory', '.replanner/runs/r1/tasks/a/iteration-9.ffff-0000'],
    ['the workspace itself', '.'],
    ['a path leaving the run transcripts', '.replanner/runs/../../'],
    ['an absolute path', '/etc'],
  ])('J1 %s reads nothing', async (_why, logPath) => {
    expect(await evidenceFromTranscript(ws, logPath)).toBe('(no transcript)');
  });
});
