// V6: why a tool call failed, in one bounded line, beside the step's tool calls in `watch` and in the
// task's details; M4: what the scripted judge reads of the evidence a real judge gets.
import { workerStepLine } from '../../src/client/render-events';
import { addStepLine, taskDetails } from '../../src/domain/task-details';
import { FAILURE_LINE_CHARS, failureLine } from '../../src/domain/worker-steps';
import { judgePrompt } from '../../src/llm/prompts/task';
import { failedCommand, unfinishedReflection } from '../../src/scripted-model/evidence';
import type { RecordedRequest } from '../../src/scripted-model/types';

describe('V6 the reason a tool call failed', () => {
  it('V6 the first line of what the tool answered; for a command that exited non-zero, the exit code and the first line it printed', () => {
    expect(failureLine('bubblewrap not found at /opt/bwrap/bwrap (it was there when the worker checked its sandbox): reinstall it')).toBe(
      'bubblewrap not found at /opt/bwrap/bwrap (it was there when the worker checked its sandbox): reinstall it',
    );
    expect(failureLine('exit code 1\nwc: replanner-tryout/PLAN.md: No such file or directory\n  8 NOTES.md\n')).toBe(
      'exit code 1: wc: replanner-tryout/PLAN.md: No such file or directory',
    );
    expect(failureLine('exit code 2\n(no output)')).toBe('exit code 2');
    expect(failureLine('timed out after 5s; process group killed\n(no output)')).toBe('timed out after 5s; process group killed');
    expect(failureLine('')).toBe('(no output)');
    const long = failureLine(`read_file: ${'x'.repeat(500)}`);
    expect(long).toHaveLength(FAILURE_LINE_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('V6 watch prints it beside the failed count; a step without a reason prints as before', () => {
    const step = { iteration: 1, step: 2, actions: ['run_command(wc -l PLAN.md)!'], toolErrors: 1 };
    expect(workerStepLine('notes', { ...step, failure: 'exit code 1: wc: PLAN.md: No such file or directory' })).toBe(
      '      notes · step 1.2: run_command(wc -l PLAN.md)! (1 failed: exit code 1: wc: PLAN.md: No such file or directory)',
    );
    expect(workerStepLine('notes', step)).toBe('      notes · step 1.2: run_command(wc -l PLAN.md)! (1 failed)');
  });

  it("V6 the task's details show it too, bounded", () => {
    const lines = addStepLine([], 1, 2, {
      toolCalls: 1,
      toolErrors: 1,
      actions: ['run_command(node t.js)!'],
      logPath: 'x',
      failure: `node not found in the sandbox's PATH: /usr/bin:/bin ${'y'.repeat(400)}`,
    });
    expect(lines[0]!.failure).toHaveLength(FAILURE_LINE_CHARS);
    const text = taskDetails({ taskId: 'a', title: 'test', state: 'RUNNING', iteration: 1, maxIterations: 8, steps: lines, earlierSteps: 0 });
    expect(text).toContain("- iteration 1, step 2: `run_command(node t.js)!` (1 failed: node not found in the sandbox's PATH: /usr/bin:/bin yyy");
  });
});

describe('M4 the scripted judge reads the evidence a real judge gets', () => {
  const judgeRequest = (evidence: string): RecordedRequest => {
    const p = judgePrompt({
      instruction: 'x',
      task: { id: 't', title: 'test', description: 'test', acceptanceCriteria: [], dependencies: [], scopePaths: [] } as never,
      workerSummary: 'done',
      evidence,
    });
    return { seq: 1, purpose: 'judge', body: {}, headers: {}, startedAt: 0, messages: [], text: `${p.system}\n${p.user}` };
  };

  it('M4 the last command that did not exit 0 is a failure, named with why (failureLine); one that passed, or no command, is not', () => {
    const wrote = '> write_file {"path":"t.js","content":"x"}\nwrote 1 bytes to t.js';
    const ran = (answer: string) => `${wrote}\n> run_command {"argv":["node","t.js"]}\n${answer}`;
    expect(failedCommand(judgeRequest(ran('exit code 0\n> p@1.0.0 test\nok')))).toBeUndefined();
    expect(failedCommand(judgeRequest(wrote))).toBeUndefined();
    expect(failedCommand(judgeRequest(ran("node not found in the sandbox's PATH: /usr/bin (argv[0] …)")))).toEqual({
      command: 'node t.js',
      reason: "node not found in the sandbox's PATH: /usr/bin (argv[0] …)",
    });
    expect(failedCommand(judgeRequest(ran('exit code 1\nAssertionError')))).toEqual({ command: 'node t.js', reason: 'exit code 1: AssertionError' });
    // Fixed on a later try: the last result counts.
    expect(failedCommand(judgeRequest(`${ran('exit code 1\nAssertionError')}\n${ran('exit code 0\nok')}`))).toBeUndefined();
  });

  it('M4 the scripted reflection names the tasks that did not finish', () => {
    const req = (outcomes: string) => ({ ...judgeRequest(''), text: `TASK OUTCOMES:\n${outcomes}` });
    expect(unfinishedReflection(req('- [DONE] a: write a\n- [DONE] b: write b'))).toBeUndefined();
    expect(unfinishedReflection(req('- [DONE] a: write a\n- [BLOCKED] b: test b — the command failed'))).toMatchObject({
      evaluation_result: 'partial_success',
      achievement_rate: 50,
      summary: 'scripted: 1 of 2 tasks done; not done: b (BLOCKED)',
    });
  });
});
