// V1 P9: `replanner status` while a task runs. The run counts a task's tokens when the task ends;
// status adds what the running tasks have spent so far (asked of each task) and shows a running
// task's stuck note under it, in text and in --json. Scripted model: the task's worker repeats one
// failing call, the detector stops it at the 3rd, and the task waits on its "no progress" consultation.
import { cli } from '../support/cli';
import { uniqueId, until, type Harness } from '../support/harness';
import { scriptScenario } from '../support/scenario';
import { HELLO_INSTRUCTION } from '../support/stuck-task';
import { harnessForCli } from '../support/suite-hooks';

let h: Harness;
harnessForCli((x) => (h = x));

const NOT_DONE = { success: false, shouldContinue: true, reason: 'hello.txt is missing', missingRequirements: ['hello.txt'], confidence: null };

interface StatusJson {
  status: string;
  usage: { totalTokens: number; calls: number };
  tasks: { id: string; state: string; stuck?: string }[];
  consultations?: { taskId: string }[];
  runningTasks?: { taskId: string; iteration: number; usage: { totalTokens: number; calls: number }; stuck?: string }[];
}

it('V1 P9 a running task: status adds its tokens so far to the first line (counted at the model server) and shows its stuck note under it; --json has runningTasks', async () => {
  h.fake.reset();
  scriptScenario(h.fake, { tasks: [{ id: 'a', title: 'write hello.txt', files: { 'hello.txt': 'hello' } }], judge: () => NOT_DONE });
  h.fake.always('worker_step', { toolCalls: [{ name: 'list_dir', arguments: { path: 'output.txt' } }] });
  const id = uniqueId('running');
  expect((await cli('run', HELLO_INSTRUCTION, '--workspace', h.workspace(), '--id', id)).code).toBe(0);
  // The task waits on its consultation: nothing is in flight, so every request is counted somewhere.
  const s = await until('the stuck consultation', async () => {
    const j = JSON.parse((await cli('status', id, '--json')).out) as StatusJson;
    return j.consultations?.length && j.runningTasks?.length ? j : undefined;
  });
  const running = s.runningTasks![0]!;
  const taskCalls = h.fake.requests.filter((r) => r.purpose === 'worker_step' || r.purpose === 'judge');
  expect(running).toMatchObject({ taskId: 'a', iteration: 1, usage: { calls: taskCalls.length } });
  expect(h.fake.requestsFor('worker_step')).toHaveLength(3);
  expect(s.usage.calls + running.usage.calls).toBe(h.fake.requests.length);
  const note = /^stuck: list_dir output\.txt failed \(not found\) 3 times in a row \(2 wasted steps, \d+ tokens\) at iteration 1, step 3$/;
  expect(running.stuck).toMatch(note);
  expect(s.tasks.find((t) => t.id === 'a')).toMatchObject({ state: 'RUNNING', stuck: expect.stringMatching(note) });

  const text = (await cli('status', id)).out;
  const first = text.split('\n')[0]!;
  expect(first).toContain(
    `${s.usage.totalTokens} tokens in ${s.usage.calls} LLM calls (+${running.usage.totalTokens} in ${running.usage.calls} calls of the running tasks)`,
  );
  expect(text).toMatch(/\n {2}\[~\] a: write hello\.txt\n {6}stuck: list_dir output\.txt failed \(not found\) 3 times in a row/);
  expect((await cli('cancel', id)).code).toBe(0);
});
